"""Reading the CSV tables users give (a site's published measurements, a study's published
figures) as one reader does: UTF-8 text (a byte-order mark before the header is not part of
its first name), a header naming the columns a table needs (each once), every row as many
fields as the header, and its numbers in ASCII decimal within a kind of the one bounds table
(``str.isdigit`` takes superscripts, ``int`` and ``float`` other scripts' digits, ``1_000``,
``inf`` and ``nan``). Every error names the file, the line and the column."""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Collection, Iterator
from pathlib import Path

from iotwin.core.errors import UserError
from iotwin.formats.bounds import load_bounds, shown

#: ASCII digits, at most 18 (within int64)
_DIGITS = re.compile(r"^[0-9]{1,18}$")
#: a number in ASCII decimal notation
_DECIMAL = re.compile(r"^(?:[0-9]{1,20}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})(?:[eE][-+]?[0-9]{1,3})?$")


def table_rows(path: Path, columns: Collection[str], what: str
               ) -> Iterator[tuple[int, dict[str, str]]]:
    """Each row's line and its fields of ``columns``; a UserError naming the file (and the
    line) for a table without them (not a table of ``what``), a row of another length than
    the header, text that is not UTF-8 or not CSV."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as file:
            reader = csv.reader(file)
            header = next(reader, None) or []
            missing = [c for c in columns if c not in header]
            if missing:
                raise UserError(f"{path}: not a table of {what}: no column {', '.join(missing)}")
            twice = [c for c in columns if header.count(c) > 1]
            if twice:
                raise UserError(f"{path}:1: column {twice[0]} twice in the header")
            index = {name: header.index(name) for name in columns}
            while True:
                try:
                    fields = next(reader)
                except StopIteration:
                    return
                except csv.Error as error:
                    raise UserError(f"{path}:{reader.line_num}: not a CSV row: {error}") from None
                if not fields:  # a blank line
                    continue
                if len(fields) != len(header):
                    raise UserError(f"{path}:{reader.line_num}: {len(fields)} fields where the "
                                    f"header has {len(header)}")
                yield reader.line_num, {name: fields[i] for name, i in index.items()}
    except OSError as error:
        raise UserError(f"{path}: cannot read the {what}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise UserError(f"{path}: not UTF-8 text (byte 0x{error.object[error.start]:02x} at "
                        f"offset {error.start})") from None
    except csv.Error as error:
        raise UserError(f"{path}: not a CSV table: {error}") from None


def whole_number(text: str) -> int | None:
    """The field's whole number if it is ASCII digits (at most 18), else None."""
    return int(text) if _DIGITS.match(text) else None


def decimal_number(text: str) -> float:
    """The field's number if it is in ASCII decimal notation, else NaN (in no bound)."""
    return float(text) if _DECIMAL.match(text) else math.nan


def count_field(text: str, kind: str, where: str, column: str) -> int:
    """A whole number within the bounds table's ``kind``; UserError naming ``where`` (file
    and line) and the column else."""
    bound = load_bounds()[kind]
    value = whole_number(text)
    if value is None or not bound.contains(value):
        raise UserError(f"{where}: {column}: {bound.refusal(shown(text))}")
    return value
