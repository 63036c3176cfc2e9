"""Errors that reach the user as one clear line."""

from __future__ import annotations


class UserError(Exception):
    """Bad input from the user (file, key, value): printed as one line, exit status 2."""


class InputError(UserError):
    """A field of an input the input's schema refuses, as one line: ``FILE:LINE: FIELD:
    problem``. ``FILE`` names the input (a file, or an option: ``--vary``), ``FIELD`` the key
    path (``workloads[0].ranks``; empty for the whole input), ``LINE`` the line of the file it
    is on, filled in by the reader of the file (core/yaml_files.read_input) where the error is
    raised without it; an input without lines (an option, a store's column) has none."""

    def __init__(self, file: str, field: str, problem: str, line: int | None = None) -> None:
        super().__init__(file, field, problem, line)
        self.file = file
        self.field = field
        self.problem = problem
        self.line = line

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        field = f"{self.field}: " if self.field else ""
        return f"{where}: {field}{self.problem}"
