"""Text that reaches a terminal, a report or an error line: no character in it may act.

A newline in a hint printed raw in a report makes a line that was never there, a carriage
return or an ANSI escape overwrites one, a NUL cuts a key short in C, and a bidirectional
override (the "Trojan Source" characters, CVE-2021-42574) shows a name in another order than
it has. What users and their files give (config keys, hint names and values, ``match``
patterns, workload names) is refused with :func:`check_printable`; what programs produced
(captured dataset and file names, names in Darshan logs, messages of other tools) is shown
through :func:`printable`, which escapes those characters instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from iotwin.core.errors import UserError

#: C0 and C1 control characters and DEL, the line and paragraph separators, and the
#: bidirectional embedding, override and isolate characters
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: what Python makes of bytes that are not UTF-8 in a file name or an argument (PEP 383's
#: surrogateescape: byte 0xNN becomes U+DCNN), and any other lone surrogate: none is text
#: that SQLite, JSON or a UTF-8 terminal can take
SURROGATE = re.compile("[\ud800-\udfff]")
#: what no string a user gives may hold: the control characters and lone surrogates above,
#: and the noncharacters U+FFFE and U+FFFF (formats/doc.c and the interposer's config.c check
#: the same set)
_NOT_TEXT = re.compile(f"{CONTROL.pattern}|{SURROGATE.pattern}|[\ufffe\uffff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def control_character(text: str) -> int | None:
    """The first character of ``text`` no string a user gives may hold (a name, a hint, a
    pattern, a format's string), as a code point; None if there is none."""
    found = _NOT_TEXT.search(text)
    return ord(found.group()) if found else None


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    if "\udc80" <= char <= "\udcff":  # an undecodable byte: shown as that byte
        return f"\\x{ord(char) - 0xdc00:02x}"
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def printable(text: str) -> str:
    """``text`` with every control character and undecodable byte written as an escape
    (``\\n``, ``\\x00``, ``\\u202e``, ``\\xff``): one line, shown as it is."""
    return SURROGATE.sub(_escape, CONTROL.sub(_escape, text))


def valid_utf8(text: str) -> str:
    """``text`` with its undecodable bytes (lone surrogates) escaped as in :func:`printable`,
    and nothing else changed: a string any UTF-8 store or stream can take."""
    return SURROGATE.sub(_escape, text)


def printable_lines(text: str) -> str:
    """``text`` (a program's output, say) line by line, each made :func:`printable`."""
    return "\n".join(printable(line) for line in text.splitlines())


def printable_tree(value: Any) -> Any:
    """``value`` (parsed JSON) with every string in it, keys included, made printable: the
    same name escaped the same way wherever it is referred to."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_tree(key): printable_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [printable_tree(item) for item in value]
    return value


def one_line(text: str) -> str:
    """A message of any number of lines as one: its lines joined by " / ", escaped."""
    return printable(" / ".join(line.strip() for line in text.splitlines() if line.strip()))


def check_printable(value: Any, where: str, error: type[UserError] = UserError) -> None:
    """``error`` (a UserError) naming ``where`` (file and key path) if a string in ``value`` (a
    string, or the keys and values of mappings and lists, at any depth) holds a control
    character or an undecodable byte."""
    if isinstance(value, str):
        point = control_character(value)
        if point is not None:
            raise error(f'{where}: "{printable(value)}" holds a control character '
                        f"(U+{point:04X})")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            check_printable(key, where, error)
            check_printable(item, f"{where}.{printable(str(key))}", error)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_printable(item, f"{where}[{index}]", error)


def key_text(key: Any) -> str:
    """A mapping key as a key path shows it: itself if it is printable ASCII, else quoted
    (so that a key cannot break the one line of an error message)."""
    text = str(key)
    return text if text and text.isascii() and text.isprintable() else json.dumps(text)
