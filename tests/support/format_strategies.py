"""Hypothesis strategies for the formats users write, made from their schemas: valid workloads
and configs, and hostile versions of them (a key given a wrong type, a value beyond its bounds
or beyond every integer type, deep nesting, removed or unknown keys; their text mangled: bad
encodings, control characters, tags, aliases, truncation)."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from hypothesis import strategies as st
from iotwin.config.schema import Key, load_schema
from iotwin.core.units import format_size

from support.workload_documents import edited, fields_in, path_text

# --- values no reader should take for something else ------------------------------------------

#: integers at and across every bound of the bounds table and every C type
EDGE_INTEGERS = sorted({0, 1, -1, 2, 2**16, 2**20, 2**20 + 1, 2**24, 2**24 + 1, 2**31 - 1, 2**31,
                        2**32 - 1, 2**32, 2**53 + 1, 2**60, 2**60 + 1, 2**62, 2**62 + 1,
                        2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**64 + 5, -2**31 - 1, -2**60 - 1,
                        -2**63, -2**63 - 1, 10**30, -10**30, 10**400})


def nested(depth: int) -> Any:
    value: Any = 1
    for k in range(depth):
        value = [value] if k % 2 else {"a": value}
    return value


HOSTILE = st.one_of(
    st.sampled_from(EDGE_INTEGERS),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e7, 1e7 + 1, -0.0, 5e-324, 1.5, 2.0**60]),
    st.booleans(),
    st.none(),
    st.text(max_size=12),
    st.sampled_from(["", "4MiB", "99999999999TiB", "1e309", "0x10", "yes", "a\x00b", "\x01",
                     "\u0085", "\u2028", "\ufffe", "é😀", "[", "{", "*a", "&a", "!!int 3"]),
    st.lists(st.integers(-3, 2**33), max_size=6),
    st.lists(st.sampled_from(EDGE_INTEGERS), min_size=1, max_size=5),
    st.dictionaries(st.text(max_size=6), st.integers(), max_size=3),
    st.integers(28, 40).map(nested),
)


# --- valid workloads ---------------------------------------------------------------------------

def _factors(draw: st.DrawFn, writers: int, axes: int) -> list[int]:
    """``writers`` as a product over ``axes`` axes."""
    grid = [1] * axes
    n, p = writers, 2
    while n > 1:
        while n % p:
            p += 1
        grid[draw(st.integers(0, axes - 1))] *= p
        n //= p
    return grid


@st.composite
def decompositions(draw: st.DrawFn, writers: int, axes: int) -> tuple[dict[str, Any], list[int]]:
    """(a decomposition on ``writers``, its extents)."""
    grid = _factors(draw, writers, axes)
    form = draw(st.sampled_from(("block", "dims", "extents")))
    if form == "block":
        block = [draw(st.integers(0, 40)) for _ in grid]
        return {"grid": grid, "block": block}, [g * b for g, b in zip(grid, block, strict=True)]
    if form == "dims":
        dims = [draw(st.integers(0, 200)) for _ in grid]
        return {"grid": grid, "dims": dims}, dims
    extents = [[draw(st.integers(0, 30)) for _ in range(g)] for g in grid]
    return {"grid": grid, "extents": extents}, [sum(axis) for axis in extents]


@st.composite
def datasets(draw: st.DrawFn, writers: int, name: str) -> tuple[dict[str, Any], list[int]]:
    axes = draw(st.integers(1, 4))
    dataset: dict[str, Any] = {"name": name,
                               "element_bytes": draw(st.sampled_from((1, 2, 4, 8, 24)))}
    if draw(st.booleans()):
        dataset["decomposition"], dims = draw(decompositions(writers, axes))
    else:
        dims = [draw(st.integers(0, 100)) for _ in range(axes)]
        dataset["dims"] = dims
    optional = {"transfer": st.sampled_from(("collective", "independent")),
                "chunk_dims": st.just([max(1, d // 2) for d in dims]),
                "access_elements": st.integers(1, 1000),
                "fill_time": st.sampled_from(("ifset", "never", "alloc")),
                "element_type": st.sampled_from(("float", "int"))}
    for key, values in optional.items():
        if draw(st.booleans()):
            dataset[key] = draw(values)
    return dataset, dims


@st.composite
def selections(draw: st.DrawFn, writers: int, dims: list[int]) -> dict[str, Any]:
    axes = len(dims)
    if draw(st.booleans()):
        grid = _factors(draw, writers, axes)
        block = [draw(st.integers(0, d // g)) if g <= d else 0 for g, d in zip(grid, dims,
                                                                               strict=True)]
        origin = [draw(st.integers(0, d - g * b)) for g, b, d in zip(grid, block, dims,
                                                                      strict=True)]
        return {"grid": grid, "block": block, "origin": origin}
    runs = []
    for _ in range(draw(st.integers(0, 2))):
        first = draw(st.integers(0, writers - 1))
        n = draw(st.integers(0, writers - first))
        count, stride, block, start = [], [], [], []
        for d in dims:
            b = draw(st.integers(0, max(0, d)))
            c = draw(st.integers(0, 1 if b == 0 else max(1, d // max(b, 1))))
            s = max(b, 1) if c > 1 else draw(st.integers(1, 3))
            reach = (c - 1) * s + b if c and b else 0
            start.append(draw(st.integers(0, max(0, d - reach))))
            count.append(c), stride.append(s), block.append(b)
        runs.append({"ranks": [first, n], "start": start, "count": count, "stride": stride,
                     "block": block})
    return {"runs": runs}


@st.composite
def sessions(draw: st.DrawFn, ranks: int) -> dict[str, Any]:
    mode = draw(st.sampled_from(("shared", "per-rank", "groups")))
    session: dict[str, Any] = {"name": draw(st.sampled_from(("f.h5", "ckpt.%r.h5", "é.h5"))),
                               "mode": mode}
    writers = {"shared": ranks, "per-rank": 1}.get(mode, 0)
    if mode == "groups":
        groups = draw(st.sampled_from([g for g in range(1, ranks + 1) if ranks % g == 0]))
        session["groups"], writers = groups, ranks // groups
    made = [draw(datasets(writers, f"/d{i}")) for i in range(draw(st.integers(1, 3)))]
    session["datasets"] = [dataset for dataset, _ in made]
    optional = {"role": st.sampled_from(("checkpoint", "visualisation", "other")),
                "api": st.sampled_from(("hdf5", "mpiio", "posix", "netcdf4")),
                "library": st.sampled_from(("netcdf4", "pnetcdf")),
                "create": st.booleans(), "compute_before_s": st.floats(0, 100),
                "write_calls": st.sampled_from(("per-dataset", "one-call")),
                "flushes": st.integers(0, 5), "keep_open": st.booleans(),
                "hdf5_access": st.fixed_dictionaries({}, optional={
                    "coll_metadata_write": st.booleans(), "all_coll_metadata_ops": st.booleans()}),
                "hdf5_create": st.fixed_dictionaries({}, optional={
                    "libver_low": st.sampled_from(("earliest", "v18", "v110")),
                    "link_creation_order": st.sampled_from(("untracked", "tracked", "indexed")),
                    "track_times": st.booleans()})}
    for key, values in optional.items():
        if draw(st.booleans()):
            session[key] = draw(values)
    if draw(st.booleans()):
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            if draw(st.integers(0, 4)) == 0:
                calls.append({"flush": True})
                continue
            index = draw(st.integers(0, len(made) - 1))
            dataset, dims = made[index]
            calls.append({"write": [dataset["name"]],
                          "selections": [draw(selections(writers, dims))]})
        session["calls"] = calls
    return session


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    ranks = draw(st.sampled_from((1, 2, 3, 4, 6, 8, 12)))
    work: dict[str, Any] = {"iotwin_workload": 1, "ranks": ranks,
                            "files": [draw(sessions(ranks))
                                      for _ in range(draw(st.integers(1, 3)))]}
    if draw(st.booleans()):
        work["mpi"] = draw(st.sampled_from(("mpich", "openmpi")))
    return work


# --- valid configs -------------------------------------------------------------------------------

def _size_value(draw: st.DrawFn, number: int) -> Any:
    text = format_size(number)
    return draw(st.sampled_from((number, text))) if not text.isdigit() else number


def key_values(key: Key) -> st.SearchStrategy[Any]:
    """Values the schema allows for ``key``."""
    if key.type in ("int", "size"):
        assert key.min is not None and key.max is not None
        low, high, step = key.min, key.max, key.multiple_of or 1
        numbers = st.integers(math.ceil(low / step), high // step).map(lambda k: k * step)
        edges = st.sampled_from([v for v in (low, high, low + step) if low <= v <= high
                                 and v % step == 0])
        values = st.one_of(numbers, edges)
        return values if key.type == "int" else values.flatmap(
            lambda v: st.sampled_from([v, format_size(v)]) if not format_size(v).isdigit()
            else st.just(v))
    if key.type == "int-list":
        assert key.bounds is not None
        return st.lists(st.integers(1, int(key.bounds.max)), min_size=1, max_size=4)
    if key.type == "bool":
        return st.booleans()
    if key.type == "enum":
        return st.sampled_from(key.values)
    if key.type == "string":
        return st.sampled_from(("*:*", "*:1", "*.h5", "[!a]*", "x"))
    if key.type == "record-list":
        return record_lists(key)
    if key.type == "string-map":
        return st.dictionaries(st.sampled_from(("romio_lustre_co_ratio", "bgl_nodes_pset",
                                                "striping_unit")),
                               st.sampled_from(("1", "2", "4")), max_size=2)
    return st.fixed_dictionaries({}, optional={name: key_values(field)
                                               for name, field in key.fields.items()})


@st.composite
def record_lists(draw: st.DrawFn, key: Key) -> list[dict[str, Any]]:
    """Entries ``key`` allows: its increasing field strictly increasing, the last entry's
    field its word (``last``), a first-only field in the first entry alone, and a field
    exclusive with a set one left out."""
    assert key.increasing is not None
    count = draw(st.integers(1, 3))
    steps = draw(st.lists(st.integers(1, 1 << 30), min_size=count - 1, max_size=count - 1))
    marks = [sum(steps[:i + 1]) for i in range(count - 1)]
    entries = []
    for i, mark in enumerate([*marks, None]):
        others = {name: key_values(field) for name, field in key.fields.items()
                  if name != key.increasing and (i == 0 or not field.first_only)}
        entry = draw(st.fixed_dictionaries({}, optional=others))
        entry = {name: value for name, value in entry.items()
                 if not entry.get(key.fields[name].exclusive_with or "")}
        entry[key.increasing] = key.last[key.increasing] if mark is None else mark
        entries.append(entry)
    return entries


def blocks(names: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    schema = load_schema()
    optional = {name: st.fixed_dictionaries({}, optional={k: key_values(v) for k, v in
                                                         schema.blocks[name].items()})
                for name in names}
    return st.fixed_dictionaries({}, optional=optional)


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    config = draw(blocks(("openmpi", "lustre", "mpiio", "hdf5", "dataset")))
    for block in ("dataset",):
        if {"chunk_size", "chunk_dims"} <= set(config.get(block, {})):
            del config[block]["chunk_dims"]
    if draw(st.booleans()):
        entry = draw(blocks(("lustre", "mpiio", "hdf5", "dataset")))
        entry["match"] = draw(st.sampled_from(("*.h5", "f.h5", "ckpt*")))
        for scoped in [entry.get("dataset", {})]:
            if {"chunk_size", "chunk_dims"} <= set(scoped):
                del scoped["chunk_dims"]
        config["files"] = [entry]
    return config


# --- hostile versions ---------------------------------------------------------------------------

def _paths(document: Any, where: list[str | int] | None = None) -> list[list[str | int]]:
    """Every key path of a document (mapping keys and list indices)."""
    where = where or []
    out = [where] if where else []
    if isinstance(document, dict):
        for key, value in document.items():
            out += _paths(value, [*where, key])
    elif isinstance(document, list):
        for i, value in enumerate(document):
            out += _paths(value, [*where, i])
    return out


@st.composite
def mutated(draw: st.DrawFn, document: Any) -> Any:
    """``document`` with one to three changes at random key paths: a hostile value, the key
    removed, or an unknown key beside it."""
    out = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(out)
        if not paths:
            return draw(HOSTILE)
        where = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(("value", "value", "delete", "unknown")))
        if action == "value":
            out = edited(out, {path_text(where): draw(HOSTILE)})
        elif action == "delete":
            out = edited(out, deleted=[path_text(where)])
        elif isinstance(where[-1], str):
            out = edited(out, {path_text([*where[:-1], "zz" + where[-1]]): draw(HOSTILE)})
    return out


def schema_fields(document: Any) -> list[str]:
    return [path_text(where) for where, _, present in fields_in(document) if present]


@st.composite
def mangled_text(draw: st.DrawFn, text: str) -> bytes:
    """The text of a document mangled as a file can be: cut, re-encoded, a byte or a YAML
    construct put in."""
    data = text.encode()
    how = draw(st.sampled_from(("cut", "byte", "encoding", "insert", "bom", "repeat")))
    at = draw(st.integers(0, len(data)))
    if how == "cut":
        return data[:at]
    if how == "byte":
        return data[:at] + bytes([draw(st.integers(0, 255))]) + data[at:]
    if how == "encoding":
        return text.encode(draw(st.sampled_from(("utf-16", "utf-32", "latin-1"))), "replace")
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "repeat":
        return data + b"\n---\n" + data
    piece = draw(st.sampled_from(("!!str ", "&a ", "*a", "# c\n", "\t", "\\u0000", "\x00",
                                  "[" * 40, "? ", "<<: ", "\u2028", "%YAML 1.1\n")))
    return data[:at] + piece.encode() + data[at:]


def as_json(document: Any) -> str:
    return json.dumps(document, ensure_ascii=False, allow_nan=True)
