"""The three readers of the workload format (the Python validator, iosim, the replay proxy) give
the same verdict on the same documents, and read accepted ones into the same normal form.

Documents: the corpus (tests/formats/workload-corpus.yaml: valid ones and invalid ones with the key
path each is refused at), the project's real workloads, and documents generated from each valid
one by the schema (tests/support/workload_documents.py). Each is written as JSON, which every reader
reads; the YAML-only cases at the end (anchors, block style, scalars, encodings) go to the two
readers of YAML text. A valid workload a reader does not run (captured calls in the replay
proxy, api netcdf4 in iosim) counts as accepted: the format's verdict is the same."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from iotwin.core.mpi_flavours import DEFAULT_MPI
from support.workload_documents import corpus, key_path, mutations, path_text, real_documents
from support.workload_readers import (
    READERS,
    YAML_READERS,
    Verdict,
    json_lines,
    same_content,
    verdicts,
    workload_json,
)


def _write(folder: Path, documents: dict[str, Any]) -> dict[str, Path]:
    files = {}
    for i, (name, document) in enumerate(documents.items()):
        files[name] = folder / f"{i:05d}.json"
        files[name].write_text(workload_json(document))
    return files


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every document's file and each reader's verdict on it."""
    valid, invalid = corpus()
    real = real_documents()
    generated = {name: (document, refused) for base, source in [*valid.items(), *real.items()]
                 for name, document, refused in mutations(base, source)}
    documents = {**{f"valid:{k}": v for k, v in valid.items()},
                 **{f"real:{k}": v for k, v in real.items()},
                 **{f"invalid:{k}": v[0] for k, v in invalid.items()},
                 **{f"generated:{k}": v[0] for k, v in generated.items()}}
    files = _write(tmp_path_factory.mktemp("parity"), documents)
    names = list(files)
    by_reader = verdicts([files[name] for name in names])
    results = {name: {reader: by_reader[reader][i] for reader in READERS}
               for i, name in enumerate(names)}
    return {"files": files, "results": results, "invalid": invalid, "generated": generated,
            "valid": valid, "real": real}


def _agree(result: dict[str, Verdict]) -> bool:
    return len({verdict.accepted for verdict in result.values()}) == 1


def test_every_reader_gives_every_document_the_same_verdict(judged):
    disagree = {name: {r: (v.kind, v.error) for r, v in result.items()}
                for name, result in judged["results"].items() if not _agree(result)}
    assert not disagree, json.dumps(disagree, indent=1)[:4000]


def test_the_corpus_is_large_and_balanced(judged):
    results = judged["results"]
    accepted = sum(1 for r in results.values() if r["python"].accepted)
    assert len(judged["valid"]) >= 15 and len(judged["invalid"]) >= 100
    assert accepted >= 40 and len(results) - accepted >= 1000


@pytest.mark.parametrize("group", ["valid", "real"])
def test_valid_documents_are_read_into_the_same_normal_form(judged, group: str):
    for name in judged[group]:
        result = judged["results"][f"{group}:{name}"]
        assert all(v.accepted for v in result.values()), (name, result)
        normal = result["python"].normal
        for reader in ("iosim", "replay"):
            assert same_content(result[reader].normal, normal), (name, reader)


def test_the_normal_form_fills_every_default(judged):
    normal = judged["results"]["valid:shared-block"]["replay"].normal
    session = normal["files"][0]
    assert (normal["mpi"], normal["name"]) == (DEFAULT_MPI, "shared")  # core's, the schema's
    assert {k: session[k] for k in ("role", "mode", "api", "create", "flushes", "keep_open")} == {
        "role": "other", "mode": "shared", "api": "hdf5", "create": True, "flushes": 0,
        "keep_open": False}
    run = judged["results"]["valid:calls-runs"]["iosim"].normal["files"][0]["calls"][0][
        "selections"][0]["runs"][0]
    assert run == {"ranks": [0, 1, 1], "start": [0], "start_step": [0], "count": [8],
                   "stride": [1], "block": [1]}


def test_what_a_reader_does_not_run_is_said_apart_from_errors(judged):
    apis = judged["results"]["valid:apis"]
    assert apis["iosim"].kind == "accepted"  # iosim models posix, netcdf4 and hdf5 files
    assert apis["replay"].kind == "cannot-run" and "files[0].api" in apis["replay"].error
    calls = judged["results"]["valid:calls-regular"]
    assert (calls["iosim"].kind, calls["replay"].kind) == ("accepted", "cannot-run")


def _line_of(document: Any, at: str) -> int:
    """The line of the key path ``at`` in the document's JSON text: its own, or where it is
    missing, that of the deepest mapping or list on its path."""
    lines, steps = json_lines(document), key_path(at)
    return next(lines[path_text(steps[:n])] for n in range(len(steps), -1, -1)
                if path_text(steps[:n]) in lines)


def test_invalid_documents_are_refused_at_their_key_and_line_with_one_message(judged):
    for name, (document, at) in judged["invalid"].items():
        result = judged["results"][f"invalid:{name}"]
        where = f"{judged['files'][f'invalid:{name}']}:{_line_of(document, at)}: "
        messages = {reader: verdict.error for reader, verdict in result.items()}
        assert all(not v.accepted for v in result.values()), (name, messages)
        for reader, message in messages.items():
            assert message.startswith(f"{where}{at}: " if at else where), (name, reader,
                                                                            message)
        assert messages["python"] == messages["replay"] == messages["iosim"], (name, messages)


def test_generated_documents_with_a_wrong_key_are_refused_by_all(judged):
    for name, (_, must_refuse) in judged["generated"].items():
        if must_refuse:
            result = judged["results"][f"generated:{name}"]
            assert not any(v.accepted for v in result.values()), name


def test_generated_refusals_have_the_same_message(judged):
    differ = {}
    for name in judged["generated"]:
        result = judged["results"][f"generated:{name}"]
        if not result["python"].accepted and len({v.error for v in result.values()}) > 1:
            differ[name] = {r: v.error for r, v in result.items()}
    assert not differ, json.dumps(dict(list(differ.items())[:5]), indent=1)


# --- YAML text: the Python and replay readers --------------------------------------------------

BASE = ("iotwin_workload: 1\nranks: 2\nfiles:\n  - name: f.h5\n{extra}    datasets:\n"
        "      - {{name: /x, element_bytes: {bytes}, decomposition: {{grid: [2], block: [4]}}}}\n")

YAML_CASES: dict[str, tuple[bytes, str | None]] = {
    "block style and comments": (BASE.format(extra="    # a comment\n", bytes=8).encode(), None),
    "anchors and aliases": (b"iotwin_workload: 1\nranks: 2\nfiles:\n  - &f\n    name: a.h5\n"
                            b"    datasets: [{name: /x, element_bytes: 8, decomposition: "
                            b"{grid: [2], block: [4]}}]\n  - *f\n", None),
    "byte order mark": (b"\xef\xbb\xbf" + BASE.format(extra="", bytes=8).encode(), None),
    "plain float forms": (BASE.format(extra="    compute_before_s: .5e1\n", bytes=8).encode(),
                          None),
    "quoted number is a string": (BASE.format(extra="", bytes='"8"').encode(),
                                  ":6: files[0].datasets[0].element_bytes: expected an integer"),
    "octal-looking is decimal": (BASE.format(extra="    flushes: 010\n", bytes=8).encode(), None),
    "yes is a string": (BASE.format(extra="    create: yes\n", bytes=8).encode(),
                        ":5: files[0].create: expected true or false, got \"yes\""),
    "hexadecimal is a string": (BASE.format(extra="    flushes: 0x10\n", bytes=8).encode(),
                                ":5: files[0].flushes: expected an integer"),
    "underscores are a string": (BASE.format(extra="    flushes: 1_0\n", bytes=8).encode(),
                                 ":5: files[0].flushes: expected an integer"),
    "infinity": (BASE.format(extra="    compute_before_s: .inf\n", bytes=8).encode(),
                 ":5: files[0].compute_before_s: expected a number from 0 to 1e+07, got inf"),
    "not a number": (BASE.format(extra="    compute_before_s: .nan\n", bytes=8).encode(),
                     ":5: files[0].compute_before_s: expected a number from 0 to 1e+07, got nan"),
    "1e309": (BASE.format(extra="    compute_before_s: 1e309\n", bytes=8).encode(),
              ":5: files[0].compute_before_s: expected a number from 0 to 1e+07, got inf"),
    "duplicate key": (BASE.format(extra="    flushes: 1\n    flushes: 2\n", bytes=8).encode(),
                      ":6: files[0].flushes: duplicate key"),
    "explicit tag": (BASE.format(extra="    flushes: !!int '3'\n", bytes=8).encode(),
                     ":5: explicit tag tag:yaml.org,2002:int"),
    "two documents": (BASE.format(extra="", bytes=8).encode() + b"---\nranks: 2\n",
                      ":7: malformed YAML: but found another document"),
    "empty": (b"", "expected a mapping, got null"),
    "not UTF-8": (BASE.format(extra="", bytes=8).encode() + b"# \xe9\n",
                  "not UTF-8 text (byte 0xe9 at offset"),
    "UTF-16": (("\ufeff" + BASE.format(extra="", bytes=8)).encode("utf-16-le"),
               "not UTF-8 text (byte 0xff at offset 0)"),
    "control character": (BASE.format(extra="    role: \"a\\x01\"\n", bytes=8).encode(),
                          ":5: files[0].role: expected one of"),
    "deep nesting": (("files: " + "[" * 20000 + "]" * 20000 + "\n").encode(),
                     ":1: files: nested deeper than 32 lists and mappings"),
    "recursive alias": (b"iotwin_workload: 1\nranks: 2\nfiles: &a [*a]\n",
                        "the alias *a is inside its own anchor"),
    "undefined alias": (b"iotwin_workload: 1\nranks: 2\nfiles: *b\n", ":3: "),
    "alias bomb": ("".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10) if i else 'x'}]\n"
                           for i in range(9)).encode(),
                   "more than 4194304 nodes (aliases counted expanded)"),
    "list as a key": (b"iotwin_workload: 1\nranks: 2\n? [a]\n: 1\nfiles: []\n", ":3: "),
}


@pytest.fixture(scope="module")
def yaml_judged(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Verdict]]:
    folder = tmp_path_factory.mktemp("yaml")
    files = []
    for i, (text, _) in enumerate(YAML_CASES.values()):
        files.append(folder / f"{i:03d}.yaml")
        files[-1].write_bytes(text)
    by_reader = verdicts(files, YAML_READERS)
    return {name: {r: by_reader[r][i] for r in YAML_READERS} | {"file": Verdict("", str(files[i]))}
            for i, name in enumerate(YAML_CASES)}


@pytest.mark.parametrize("case", YAML_CASES)
def test_both_readers_of_yaml_agree(yaml_judged, case: str):
    result = yaml_judged[case]
    python, replay = result["python"], result["replay"]
    expected = YAML_CASES[case][1]
    assert python.accepted == replay.accepted, (python, replay)
    if expected is None:
        assert python.accepted and same_content(python.normal, replay.normal)
    else:
        assert not python.accepted
        for verdict in (python, replay):
            assert verdict.error.startswith(result["file"].error + ":")
            assert expected in verdict.error, verdict.error
