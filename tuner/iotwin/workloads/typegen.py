"""Generate :mod:`iotwin.workloads.types`, the workload format's static types, from its schema
(``data/workload-schema.yaml``): one ``TypedDict`` per record (iotwin.formats.typegen).
``python -m iotwin.workloads.typegen`` rewrites the module; a test checks that it is current.

The types describe a *validated* workload (:func:`iotwin.workloads.workload.validate_workload`)
as it is written: the keys it has, defaults not filled in.
"""

from __future__ import annotations

import sys
from pathlib import Path

from iotwin.formats.typegen import module, record_types, write
from iotwin.workloads.workload import workload_schema

OUTPUT = Path(__file__).with_name("types.py")

_HEADER = '''"""The workload format's types, generated from data/workload-schema.yaml by
``python -m iotwin.workloads.typegen``: do not edit by hand.

A value of type :class:`Workload` is a validated workload (``validate_workload``) as it is
written: the keys the schema allows, the ones it requires required."""

from __future__ import annotations

from typing import Literal, Required, TypedDict
'''


def render() -> str:
    return module(_HEADER, record_types(workload_schema(), "Workload"))


def main() -> int:
    return write(OUTPUT, render())


if __name__ == "__main__":
    sys.exit(main())
