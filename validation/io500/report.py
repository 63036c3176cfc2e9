"""The family calibration's document (tuner/iotwin/data/family-io500.yaml) as the tables of
validation/io500/README.md: the constants, the accuracy before, fitted and each system held
out, and every submission's phases predicted against measured.

    .venv/bin/python validation/io500/report.py [FAMILY.yaml]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from iotwin.core.paths import data_dir
from iotwin.core.readme_block import fill_block
from iotwin.core.yaml_files import read_yaml
from iotwin.model.family import FAMILY_FILE

README = Path(__file__).resolve().parent / "README.md"


def _gbs(mbs: float | None) -> str:
    return "failed" if mbs is None else f"{mbs / 1000:.2f}"


def _x(predicted: float | None, measured: float) -> str:
    return "-" if predicted is None else f"{predicted / measured:.2f}x"


def tables(document: dict[str, Any]) -> str:
    lines = [f"{document['fitted']}; simulated at {document['volume']}.", "",
             "| constant | prior | fitted |", "|---|---:|---:|"]
    lines += [f"| `{path}` | {document['priors'][path]:.4g} | {value:.4g} |"
              for path, value in document["constants"].items()]
    lines += ["", "| models | phase | within 2x | median factor | 90th pct factor | Spearman |",
              "|---|---|---:|---:|---:|---:|"]
    names = {"before": "prior constants", "fitted_all": "fitted to all",
             "leave_one_system_out": "each system held out"}
    for key, name in names.items():
        for phase, acc in document[key].items():
            lines.append(f"| {name} | {phase} | {100 * acc['within_2x']:.0f} % "
                         f"({round(acc['within_2x'] * acc['cases'])}/{acc['cases']}) | "
                         f"{acc['median_factor']:.2f}x | {acc['p90_factor']:.2f}x | "
                         f"{acc['spearman']:.2f} |")
    lines += ["", "| submission, phase | system | measured GB/s | prior | fitted | held out |",
              "|---|---|---:|---:|---:|---:|"]
    for case in document["cases"]:
        m = case["measured_mbs"]
        lines.append(f"| {case['case']} | {case['system']} | {_gbs(m)} | "
                     f"{_gbs(case['before_mbs'])} ({_x(case['before_mbs'], m)}) | "
                     f"{_gbs(case['fitted_mbs'])} ({_x(case['fitted_mbs'], m)}) | "
                     f"{_gbs(case['held_out_mbs'])} ({_x(case['held_out_mbs'], m)}) |")
    return "\n".join(lines)


def main() -> int:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else data_dir() / FAMILY_FILE
    fill_block(README, "family", tables(read_yaml(source, "family calibration")))
    print(f"{README}: tables of {source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
