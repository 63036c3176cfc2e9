"""The options several commands share, defined once: where results are stored, where
simulations run, how long a real run may take."""

from __future__ import annotations

import argparse
import sys

from iotwin.core.limits import RUN_TIMEOUT_S
from iotwin.model.sim_cluster import ENV, checked_address


def add_store_argument(parser: argparse.ArgumentParser) -> None:
    """``--store PATH``: every command that reads or writes results."""
    parser.add_argument("--store", metavar="PATH", default=None,
                        help="results database (default: $IOTWIN_STORE, else ./iotwin.db)")


def add_sim_cluster_argument(parser: argparse.ArgumentParser) -> None:
    """``--sim-cluster ADDRESS``: every command that simulates."""
    parser.add_argument("--sim-cluster", metavar="ADDRESS", type=_address,
                        help="run simulation batches on a Dask cluster: local (a LocalCluster, "
                             "a worker per core), local:N, or a scheduler's tcp://HOST:PORT "
                             f"(default: ${ENV}, else one local process)")


def add_timeout_argument(parser: argparse.ArgumentParser, default: float | None = RUN_TIMEOUT_S
                         ) -> None:
    """``--timeout S``: every command that runs programs; ``default`` None leaves the choice
    to a stored campaign (``iotwin tune --resume``)."""
    parser.add_argument("--timeout", type=float, default=default, metavar="S",
                        help="seconds before a run is killed and counted as a timeout "
                             f"(default {RUN_TIMEOUT_S:g})")


def add_site_rules_argument(parser: argparse.ArgumentParser) -> None:
    """``--ignore-site-rules``: every command that takes a user's config for a platform."""
    parser.add_argument("--ignore-site-rules", action="store_true",
                        help="go on with a config that breaks the platform's site rules "
                             "(its site_rules: stripes a file, pool, size threshold, forbidden "
                             "settings), with a warning for each")


def warn(lines: list[str]) -> None:
    for line in lines:
        print(f"iotwin: warning: {line}", file=sys.stderr)


def _address(address: str) -> str:
    try:
        return checked_address(address)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
