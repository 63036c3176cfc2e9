"""Every command's --help prints (argparse formats help strings with %: a stray one breaks it)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from iotwin.cli import build_parser, main
from support.command_tree import commands, subcommands


@pytest.mark.parametrize("words", commands(), ids=" ".join)
def test_help_prints(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*words, "--help"])
    assert ended.value.code == 0
    assert capsys.readouterr().out.startswith("usage: iotwin")


def test_a_command_line_builds_the_parser_of_its_command_alone_and_parses_alike() -> None:
    every = subcommands(build_parser())
    for name, parser in every.items():
        alone = subcommands(build_parser(name))
        assert list(alone) == [name]
        assert alone[name].format_help() == parser.format_help()
    assert list(subcommands(build_parser("no-such-command"))) == list(every)


def test_a_command_imports_no_other_commands_module() -> None:
    """`iotwin show` starts without importing what `iotwin tune` runs (the search strategies,
    numpy): the suite and the users start hundreds of short commands."""
    probe = ("import sys; from iotwin.cli import build_parser; build_parser('show'); "
             "print([m for m in sorted(sys.modules) if m.startswith('iotwin.commands.') "
             "and not m.startswith('iotwin.commands._')], 'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["['iotwin.commands.show']", "False"]


def test_the_report_command_starts_without_the_report_of_any_campaign_kind() -> None:
    """A report's builder (its figures, the tuning or the studies it explains) is imported
    when a report of its kind is written, not when `iotwin report` starts or refuses."""
    probe = ("import sys; from iotwin.cli import build_parser; build_parser('report'); "
             "from iotwin.report.writing import BUILDERS; "
             "print(sorted(m for m, _ in BUILDERS.values() if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout == "[]\n"


def test_tune_help_states_the_stop_target_the_strategy_file_ships(
        capsys: pytest.CaptureFixture[str]) -> None:
    from iotwin.search import strategy_settings

    shipped = strategy_settings("sim-screened")
    with pytest.raises(SystemExit):
        main(["tune", "--help"])
    said = " ".join(capsys.readouterr().out.split())  # argparse's line breaks undone
    assert f"target={shipped['target']:g}" in said
    assert f"confidence={shipped['confidence']:g}" in said
