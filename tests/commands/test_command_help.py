"""Every command's --help prints (argparse formats help strings with %: a stray one breaks it)."""

from __future__ import annotations

import pytest
from iotwin.cli import main
from support.command_tree import commands


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_help_prints(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*words, "--help"])
    assert ended.value.code == 0
    assert capsys.readouterr().out.startswith("usage: iotwin")
