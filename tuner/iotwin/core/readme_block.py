"""A generated block of a README: the text between ``<!-- NAME results: begin -->`` and
``<!-- NAME results: end -->``, replaced in place, the prose around it kept."""

from __future__ import annotations

from pathlib import Path

from iotwin.core.errors import UserError


def fill_block(readme: Path, name: str, content: str) -> None:
    begin_marker, end_marker = f"<!-- {name} results: begin -->", f"<!-- {name} results: end -->"
    text = readme.read_text() if readme.exists() else ""
    begin, end = text.find(begin_marker), text.find(end_marker)
    if begin < 0 or end < begin:
        raise UserError(f"{readme}: no {begin_marker} ... {end_marker} block to fill")
    readme.write_text(text[:begin + len(begin_marker)] + "\n\n" + content + "\n" + text[end:])
