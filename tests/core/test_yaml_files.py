"""Every YAML file users write is read by the one reader (iotwin.core.yaml_files): a duplicate
key is refused in one line naming the file and the line, wherever the file is read. Before,
the spec sheets, spaces, experiments, site files and the rest were read with yaml.safe_load,
where the last of two equal keys won silently."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from iotwin.commands.demo import load_spec
from iotwin.core import paths
from iotwin.core.errors import UserError
from iotwin.core.yaml_files import dump_by_libyaml, read_yaml
from iotwin.executors.slurm import Site
from iotwin.model.platform_sheet import load_sheet
from iotwin.model.platforms import load_platform
from iotwin.observations.design import load_design
from iotwin.space.parameters import load_space
from iotwin.studies.experiment.spec import load_experiment
from iotwin.studies.strategy_benchmark import load_benchmark
from iotwin.validation.local import load_suite

REPO = paths.repo_root()
DATA = paths.data_dir()

#: each surface: a file of its kind in the repository, and the function that reads one
SURFACES: dict[str, tuple[Path, Callable[[Path], Any]]] = {
    "spec sheet": (REPO / "sim-models/platforms/sheets/archer.yaml", load_sheet),
    "platform model": (REPO / "sim-models/platforms/archer.yaml", load_platform),
    "space": (paths.spaces_dir() / "poster.yaml", load_space),
    "experiment": (REPO / "experiments/convergence.yaml", load_experiment),
    "benchmark spec": (REPO / "experiments/strategy-benchmark-2-ranks.yaml", load_benchmark),
    "site file": (DATA / "sites/default.yaml", Site.load),
    "calibration design": (DATA / "calibration-lustre.yaml", load_design),
    "suite": (REPO / "validation/local/suite.yaml", load_suite),
    "demo description": (DATA / "demo.yaml", load_spec),
}


def with_first_key_again(text: str) -> tuple[str, str, int]:
    """``text`` (a mapping) with its first top-level entry written again at the end: the
    text, the key, and the line where it is repeated."""
    lines = text.rstrip("\n").split("\n")
    first = next(i for i, line in enumerate(lines) if re.match(r"^[A-Za-z_]", line))
    end = next((i for i in range(first + 1, len(lines))
                if re.match(r"^[A-Za-z_]", lines[i])), len(lines))
    key = lines[first].split(":")[0]
    return "\n".join([*lines, *lines[first:end]]) + "\n", key, len(lines) + 1


@pytest.mark.parametrize("surface", SURFACES)
def test_a_duplicate_key_is_refused_naming_the_file_and_line(surface: str,
                                                             tmp_path: Path) -> None:
    original, read = SURFACES[surface]
    text, key, line = with_first_key_again(original.read_text())
    path = tmp_path / original.name
    path.write_text(text)
    with pytest.raises(UserError) as raised:
        read(path)
    assert str(raised.value) == f"{path}:{line}: {key}: duplicate key"


def test_a_nested_duplicate_key_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "sheet.yaml"
    path.write_text("storage:\n  osts: 16\n  servers: 4\n  osts: 1000\n")
    with pytest.raises(UserError, match=rf"^{re.escape(str(path))}:4: storage\.osts: "
                                        "duplicate key$"):
        read_yaml(path, "spec sheet")


def test_every_file_of_the_repository_these_surfaces_read_still_reads() -> None:
    for original, read in SURFACES.values():
        read(original)


def test_libyaml_writes_what_pyyaml_writes_and_it_reads_back_the_same() -> None:
    """The store writes each config by libyaml's emitter (dump_by_libyaml): the text of every
    config of a measured table is PyYAML's own, and a long quoted string, which the two wrap
    apart, reads back as it was."""
    from iotwin.executors.table import read_table

    table = read_table(REPO / "experiments" / "landscape" / "vpic-io-4.csv")
    for config in table.configs:
        assert dump_by_libyaml(dict(config), sort_keys=True) == \
            yaml.safe_dump(dict(config), sort_keys=True)
    space = yaml.safe_load((paths.spaces_dir() / "table3.yaml").read_text())
    assert yaml.safe_load(dump_by_libyaml(space)) == space
