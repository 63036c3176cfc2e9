"""Every command's --help prints (argparse formats help strings with %: a stray one breaks it)."""

from __future__ import annotations

import argparse

import pytest
from iotwin.cli import build_parser, main


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return {name: sub for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
            for name, sub in action.choices.items()}


def commands() -> list[list[str]]:
    return [[name, *([sub] if sub else [])]
            for name, parser in subcommands(build_parser()).items()
            for sub in ["", *subcommands(parser)]]


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_help_prints(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*words, "--help"])
    assert ended.value.code == 0
    assert capsys.readouterr().out.startswith("usage: iotwin")
