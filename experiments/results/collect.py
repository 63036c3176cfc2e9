"""Copy an experiment's report into experiments/results/NAME/: cells.csv and figure-N.png.

    iotwin experiment experiments/NAME.yaml -o DIR
    python experiments/results/collect.py NAME DIR

DIR is the experiment's report directory; the newest report-ID.html in it is taken, its CSV
becomes cells.csv and its inline figures figure-1.png, figure-2.png, ... in page order.
"""

from __future__ import annotations

import base64
import re
import shutil
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent
_INLINE_PNG = re.compile(r'src="data:image/png;base64,([^"]+)"')


def newest_report(directory: Path) -> Path:
    pages = sorted(directory.glob("report-*.html"), key=lambda p: int(p.stem.split("-")[1]))
    if not pages:
        raise SystemExit(f"{directory}: no report-ID.html (run iotwin experiment ... -o "
                         f"{directory} first)")
    return pages[-1]


def collect(name: str, directory: Path, results: Path = RESULTS) -> list[Path]:
    page = newest_report(directory)
    out = results / name
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("figure-*.png"):
        old.unlink()
    shutil.copy(page.with_suffix(".csv"), out / "cells.csv")
    written = [out / "cells.csv"]
    for number, data in enumerate(_INLINE_PNG.findall(page.read_text()), start=1):
        figure = out / f"figure-{number}.png"
        figure.write_bytes(base64.b64decode(data))
        written.append(figure)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for path in collect(argv[0], Path(argv[1])):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
