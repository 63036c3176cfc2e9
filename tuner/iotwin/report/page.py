"""One self-contained HTML page: text, tables and figures inlined as data: URIs.

Nothing on the page refers outside it (no scripts, fonts, style sheets or image files), so it
can be mailed, archived or opened offline as it is.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from iotwin.core.text import printable

# "389.9 MB/s", "-22% (under-predicted)", "57.3-75.4", "3 of 20": figures read down a column
_FIGURE = re.compile(r"^[-+]?\d[\d.,]*(-\d[\d.,]*)?(%| ?[A-Za-z/]+)?(\s|$)")

_STYLE = """
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #f0f0f0; }
td.text, td.settings { text-align: left; max-width: 40em; overflow-wrap: break-word; }
td.settings { font-family: monospace; font-size: 0.9em; }
figure { margin: 1em 0; } img { max-width: 100%; }
figcaption { font-size: 0.85em; color: #555; }
.meta { color: #555; font-size: 0.9em; }
"""


@dataclass
class Page:
    title: str
    parts: list[str] = field(default_factory=list)

    def heading(self, text: str) -> None:
        self.parts.append(f"<h2>{_escaped(text)}</h2>")

    def paragraph(self, text: str, css_class: str = "") -> None:
        attribute = f' class="{css_class}"' if css_class else ""
        self.parts.append(f"<p{attribute}>{_escaped(text)}</p>")

    def figure(self, png: bytes, caption: str) -> None:
        data = base64.b64encode(png).decode("ascii")
        self.parts.append(f'<figure><img alt="{_escaped(caption)}" '
                          f'src="data:image/png;base64,{data}">'
                          f"<figcaption>{_escaped(caption)}</figcaption></figure>")

    def table(self, rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None
              ) -> None:
        if not rows:
            self.paragraph("(no rows)")
            return
        # columns empty in every row (no published figure, no campaign) are left out
        columns = [c for c in (columns or rows[0].keys())
                   if any(row.get(c) not in ("", None) for row in rows)]
        head = "".join(f"<th>{_escaped(c)}</th>" for c in columns)
        body = "".join("<tr>" + "".join(_cell(row.get(c)) for c in columns) + "</tr>"
                       for row in rows)
        self.parts.append(f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
                          f"<tbody>{body}</tbody></table></div>")

    def render(self) -> str:
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{_escaped(self.title)}</title><style>{_STYLE}</style></head>"
                f"<body><h1>{_escaped(self.title)}</h1>\n" + "\n".join(self.parts)
                + "\n</body></html>\n")


def _escaped(text: str) -> str:
    """Text as the page shows it: control characters escaped (printable), then HTML's own."""
    return html.escape(printable(text))


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"<td>{value:.4g}</td>"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"<td>{value}</td>"
    text = "" if value is None else str(value)
    if _FIGURE.match(text):  # a figure already formatted with its unit: aligned as a number
        return f"<td>{_escaped(text)}</td>"
    kind = "settings" if "=" in text else "text"  # key=value settings, names, prose
    return f'<td class="{kind}">{_escaped(text)}</td>'
