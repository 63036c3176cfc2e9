"""Hypothesis strategies for the inputs beyond configs and workloads, made from their schemas:
spec sheets (data/sheet-schema.yaml and the bounds table), published measurement tables (their
columns and the bounds table's kinds), parameter spaces (a parameter per config-schema key,
its values from that key's schema), experiment specs (data/experiment-schema.yaml), benchmark
and landscape specs (data/benchmark-schema.yaml, data/suite-schema.yaml), layout lists (a
config's lustre.components), a stored calibration's parameters (a platform's free
parameters), site files (Site's fields) and stores (a store's file, its bytes damaged). The
hostile versions come from format_strategies (mutated documents, mangled text)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from iotwin.config.schema import load_schema
from iotwin.core import paths
from iotwin.core.units import format_size
from iotwin.formats.bounds import Bound, load_bounds
from iotwin.model.sheet_schema import SheetField, record_schema, sheet_schema
from iotwin.observations import published
from iotwin.search import STRATEGIES
from iotwin.studies.experiment import spec as experiment

from support.format_strategies import HOSTILE, key_values

# -- spec sheets -------------------------------------------------------------------------------

#: how far beyond a bound's low end a generated count goes (a machine of 2^20 nodes simulates
#: as one of 64: the fuzz checks the readers, not iosim's speed)
_COUNT_SPAN = 64


def _count(bound: Bound | None) -> st.SearchStrategy[int]:
    low = int(bound.min) if bound else 1
    high = min(int(bound.max), low + _COUNT_SPAN) if bound else low + _COUNT_SPAN
    return st.integers(low, high)


def _rate(bound: Bound | None) -> st.SearchStrategy[Any]:
    low, high = (bound.min, bound.max) if bound else (1.0, 1e9)
    mbs = st.floats(low, min(high, 1e6), allow_nan=False, allow_infinity=False)
    return st.one_of(mbs, mbs.map(lambda v: f"{v / 1000:.3f} GB/s"),
                     st.sampled_from(("HDR", "EDR", "Aries", "100Gb/s")))


def _size(bound: Bound | None) -> st.SearchStrategy[Any]:
    low, high = (int(bound.min), int(bound.max)) if bound else (2**16, 2**30)
    powers = [2**k for k in range(12, 41) if low <= 2**k <= high] or [low]
    return st.sampled_from(powers).flatmap(lambda v: st.sampled_from((v, format_size(v))))


def sheet_value(field: SheetField) -> st.SearchStrategy[Any]:
    """A value the sheet schema allows for ``field``."""
    kind = field.kind
    if kind == "count":
        return _count(field.bounds)
    if kind == "rate":
        return _rate(field.bounds)
    if kind == "size":
        if field.config is not None:
            return st.sampled_from((2**20, "4MiB", "64KiB", 2**24))
        return _size(field.bounds)
    if kind == "seconds":
        return st.floats(0, 1e-3)
    if kind == "stripes":
        return st.sampled_from((1, 2, 4, -1))
    if kind == "enum":
        return st.sampled_from(field.values)
    if kind == "flag":
        return st.booleans()
    if kind == "pool":
        return st.just("flash")
    if kind == "text":
        return st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs")), min_size=1,
                       max_size=20).filter(str.strip)
    if kind == "fractions":
        assert field.bounds is not None
        return st.lists(st.floats(field.bounds.min, field.bounds.max), min_size=1, max_size=3)
    if kind == "words":
        return st.lists(st.one_of(st.integers(0, 2**20), st.sampled_from(("--n", "-x", "a b"))),
                        max_size=4)
    return st.nothing()  # structured kinds: left to the committed sheets' examples


def _section(fields: dict[str, SheetField],
             named: dict[str, st.SearchStrategy[Any]] | None = None
             ) -> st.SearchStrategy[dict[str, Any]]:
    """A record of ``fields``: its required keys and any optional ones, each a value of its
    kind within its bounds (``named``: the values of keys that name things that exist)."""
    plain = {name: (named or {}).get(name, sheet_value(field)) for name, field in fields.items()}
    plain = {name: strategy for name, strategy in plain.items() if not strategy.is_empty}
    required = {name: strategy for name, strategy in plain.items() if fields[name].required}
    optional = {name: strategy for name, strategy in plain.items()
                if not fields[name].required and name not in ("pool", "mdt_mbs", "dom_max")}
    return st.fixed_dictionaries(required, optional=optional)


@st.composite
def sheets(draw: st.DrawFn) -> dict[str, Any]:
    """A spec sheet of the schema's sections, each key a value of its kind within its
    bounds; the figures a sheet needs (servers, targets, target_mbs) given."""
    schema = sheet_schema()
    sheet: dict[str, Any] = {"platform_sheet": 1, "name": "fuzz"}
    for section, fields in schema.sections.items():
        if section in ("site_rules",):
            continue
        values = draw(_section(fields))
        if values or section in ("compute", "storage", "defaults"):
            sheet[section] = values
    storage = sheet["storage"]
    storage.setdefault("targets", draw(_count(fields_of("storage", "targets"))))
    storage.setdefault("servers", draw(st.integers(1, storage["targets"])))
    storage.setdefault("target_mbs", draw(_rate(fields_of("storage", "target_mbs"))))
    return sheet


def fields_of(section: str, key: str) -> Bound | None:
    return sheet_schema().sections[section][key].bounds


# -- published measurement tables ----------------------------------------------------------------

MACHINE = "archer"


def _decimal(bound: Bound) -> st.SearchStrategy[str]:
    mib = published.MIB_PER_MB
    return st.floats(bound.min / mib, min(bound.max / mib, 1e5), allow_nan=False).map(
        lambda v: f"{v:.3f}")


@st.composite
def measurement_rows(draw: st.DrawFn) -> dict[str, str]:
    """One row of a published table: each column a value of its kind."""
    bounds = load_bounds()
    largest_block = round((bounds["buffer_bytes"].max // 8) ** (1 / 3)) - 1
    return {"machine": draw(st.sampled_from((MACHINE, MACHINE, "cirrus"))),
            "method": draw(st.sampled_from(sorted(published._METHODS))),
            "striping": draw(st.sampled_from(sorted(published._STRIPINGS))),
            "local_block": f"{draw(st.integers(1, min(largest_block, 512)))}^3",
            "processes": str(draw(st.integers(1, 4096))),
            "maxrate_mibs": draw(_decimal(bounds["io_rate"])),
            "avgrate_mibs": draw(_decimal(bounds["io_rate"]))}


HOSTILE_FIELDS = st.sampled_from(["", "inf", "nan", "-1", "1e308", "1e-300", "4²", "٣",
                                  "1_000", "0x10", "10^7", "\x00", "é", "\"", "a,b", "1e400",
                                  "99999999999999999999", "1.5", " 3", "NaN", "1e", "."])


@st.composite
def measurement_tables(draw: st.DrawFn) -> str:
    """A table's text: its header, rows from the schema, some made hostile (a field replaced,
    a field dropped, a header column renamed or repeated, a byte-order mark)."""
    columns = list(published._COLUMNS)
    rows = [draw(measurement_rows()) for _ in range(draw(st.integers(0, 8)))]
    lines = [[row[c] for c in columns] for row in rows]
    for _ in range(draw(st.integers(0, 3))):
        if not lines:
            break
        line = draw(st.integers(0, len(lines) - 1))
        if not lines[line]:
            continue
        column = draw(st.integers(0, len(lines[line]) - 1))
        action = draw(st.sampled_from(("value", "value", "drop", "extra")))
        if action == "value":
            lines[line][column] = draw(HOSTILE_FIELDS)
        elif action == "drop":
            del lines[line][column]
        else:
            lines[line].append("x")
    header = list(columns)
    if draw(st.integers(0, 9)) == 0:
        header[draw(st.integers(0, len(header) - 1))] = draw(st.sampled_from(("", "machine",
                                                                                "Method")))
    text = "\n".join(",".join(fields) for fields in [header, *lines]) + "\n"
    return ("\ufeff" if draw(st.booleans()) else "") + text


# -- parameter spaces ----------------------------------------------------------------------------

@st.composite
def spaces(draw: st.DrawFn) -> dict[str, Any]:
    """A space of one to four parameters, each a config-schema key with values its schema
    allows; some active only when another takes a value."""
    blocks = load_schema().blocks
    keys = [(block, name) for block, names in blocks.items() for name, key in names.items()
            if key.type in ("int", "size", "bool", "enum", "string")]
    chosen = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=4, unique=True))
    parameters = []
    for i, (block, name) in enumerate(chosen):
        values = draw(st.lists(key_values(blocks[block][name]), min_size=1, max_size=4,
                               unique_by=str))
        parameter: dict[str, Any] = {"name": f"p{i}", "key": f"{block}.{name}",
                                     "values": values}
        if parameters and draw(st.booleans()):
            other = parameters[0]
            parameter["active_when"] = {other["name"]: other["values"][0]}
        parameters.append(parameter)
    return {"name": "fuzz", "parameters": parameters}


# -- experiment specs ----------------------------------------------------------------------------

_SAMPLE = {"name": "fuzz", "study": "strategies", "platforms": ["archer"],
           "workloads": [{"kernel": "vpic-io", "ranks": 4}]}


@st.composite
def experiment_specs(draw: st.DrawFn) -> dict[str, Any]:
    """An experiment spec with its required keys and any of its optional top-level keys (the
    schema's top record), each from the committed experiments' values or hostile ones."""
    spec = dict(_SAMPLE)
    optional = [key for key, field in record_schema(experiment.SCHEMA)["top"].items()
                if not field.required and key not in spec]
    for key in draw(st.lists(st.sampled_from(optional), max_size=3, unique=True)):
        spec[key] = draw(HOSTILE)
    return spec


# -- benchmark and landscape specs ---------------------------------------------------------------

LANDSCAPES = sorted(path for path in (paths.repo_root() / "experiments" / "landscape").glob(
    "*.yaml") if ".workload" not in path.suffixes)


def benchmark_specs() -> st.SearchStrategy[dict[str, Any]]:
    """A benchmark spec of data/benchmark-schema.yaml: its strategies real ones, its tables
    the committed landscape specs (by absolute path)."""
    fields = record_schema("benchmark-schema")["spec"]
    cap = _count(fields["strategies"].bounds)
    return _section(fields, {
        "strategies": st.dictionaries(st.sampled_from(sorted(STRATEGIES)), cap, min_size=1,
                                      max_size=3),
        "tables": st.dictionaries(st.sampled_from(("a", "b-2", "table")),
                                  st.sampled_from([str(p) for p in LANDSCAPES]), min_size=1,
                                  max_size=2)})


def landscape_specs() -> st.SearchStrategy[dict[str, Any]]:
    """A landscape (local validation suite) spec of data/suite-schema.yaml: a kernel's."""
    fields = record_schema("suite-schema")["suite"]
    return _section(fields, {"kernel": st.sampled_from(("vpic-io", "block3d")),
                             "platform": st.just("local"), "space": st.just("local")})


# -- layout lists (data/layouts.yaml) ------------------------------------------------------------

def layout_lists() -> st.SearchStrategy[dict[str, Any]]:
    """A list of named layouts: names, each a config's lustre.components (from its schema)
    or null."""
    components = load_schema().blocks["lustre"]["components"]
    names = st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1,
                    max_size=10)
    return st.dictionaries(names, st.one_of(st.none(), key_values(components)), min_size=1,
                           max_size=3)


# -- calibrations in a store ---------------------------------------------------------------------

def calibration_parameters(free: dict[str, tuple[float, float, float]]
                           ) -> st.SearchStrategy[dict[str, Any]]:
    """A stored calibration's parameters: a platform's free parameters (and names it does
    not have), each within its bounds, beyond them, or not a finite number."""
    def value(bounds: tuple[float, float, float]) -> st.SearchStrategy[Any]:
        _, low, high = bounds
        return st.one_of(st.floats(low, high), st.floats(allow_nan=True, allow_infinity=True),
                         st.integers(-2**70, 2**70), st.integers(10**300, 10**301))
    names = st.sampled_from(sorted(free)).flatmap(lambda name: st.tuples(st.just(name),
                                                                        value(free[name])))
    unknown = st.tuples(st.text(min_size=1, max_size=12), st.floats())
    return st.lists(st.one_of(names, unknown), max_size=4).map(dict)


# -- site files ----------------------------------------------------------------------------------

def site_files() -> st.SearchStrategy[dict[str, Any]]:
    """A site file: any of Site's keys, each of its type."""
    text = st.text(st.characters(codec="ascii", categories=("L", "N")), min_size=1, max_size=8)
    return st.fixed_dictionaries({}, optional={
        "name": text,
        "sbatch": st.fixed_dictionaries({}, optional={
            "partition": st.one_of(st.none(), text), "account": st.one_of(st.none(), text),
            "qos": st.one_of(st.none(), text), "extra": st.lists(text, max_size=2)}),
        "cores_per_node": st.integers(1, 256),
        "launcher": st.one_of(st.none(), st.sampled_from(("srun", "mpich", "openmpi"))),
        "one_job_at_a_time": st.booleans()})

