"""The `iotwin` command line's commands, as its parser defines them."""

from __future__ import annotations

import argparse

from iotwin.cli import build_parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The commands (or actions) directly under ``parser``, by name."""
    return {name: sub for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
            for name, sub in action.choices.items()}


def commands() -> list[list[str]]:
    """Every command and every action of one, as the words that name it: ``[landscape]``,
    ``[landscape, measure]``."""
    return [[name, *([sub] if sub else [])]
            for name, parser in subcommands(build_parser()).items()
            for sub in ["", *subcommands(parser)]]


def leaf_commands() -> dict[str, argparse.ArgumentParser]:
    """The commands that do something (those without actions, and each action), by their
    words: ``workload from-darshan``."""
    leaves = {}
    for name, parser in subcommands(build_parser()).items():
        actions = subcommands(parser)
        leaves.update({f"{name} {action}": sub for action, sub in actions.items()}
                      if actions else {name: parser})
    return leaves


def options(parser: argparse.ArgumentParser) -> set[str]:
    """Every option string ``parser`` takes: ``--max-time``, ``-o``."""
    return {option for action in parser._actions for option in action.option_strings}
