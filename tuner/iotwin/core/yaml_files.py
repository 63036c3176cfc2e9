"""Reading the YAML (or JSON) files users write (configs, workloads, spec sheets, platforms,
spaces, experiments and benchmark specs, calibration designs, site and launcher files,
suites), as every reader of the formats reads them (formats/doc_yaml.c does the same in C,
the interposer's config.c resolves scalars alike), with errors that name the file, and the
line or the key:

- UTF-8 text: any other byte sequence is refused, naming the offset of the first bad byte;
  in a format also read as JSON (workloads: iosim), so is a character written as itself that
  YAML does not print (a control character but tab, line feed and carriage return, DEL,
  U+FFFE, U+FFFF) or reads as a line break where JSON reads a character (U+0085, U+2028,
  U+2029): escape them;
- YAML 1.2 core-schema scalars: plain ``true``/``false`` are booleans, plain decimal digits
  integers, plain decimal numbers floats (where the format has numbers), ``~``/``null``/empty
  null, everything else a string; so ``010``, ``yes`` or ``1_000`` cannot mean one thing to one
  reader and another to another;
- no duplicate keys, no explicit tags, no alias inside its own anchor;
- integers of at most MAX_INTEGER_DIGITS digits (Python's conversion limit);
- at most MAX_DEPTH nested lists and mappings and MAX_NODES nodes, aliases counted as expanded:
  a deeply nested or "billion laughs" document is refused before anything walks it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from iotwin.core.errors import InputError, UserError
from iotwin.core.text import key_text

#: the deepest nesting of lists and mappings a document may have (a workload needs 7)
MAX_DEPTH = 32
#: the most nodes (scalars, lists, mappings) a document may have, aliases expanded
MAX_NODES = 2**22
#: the most digits of an integer the reader converts: Python's own limit on converting text
#: (4300 digits). Below it an integer too large for its field is the schema's error, the same
#: one iosim's and the replay proxy's readers give (tests/formats/test_fuzz_formats.py)
MAX_INTEGER_DIGITS = 4300
#: libyaml's word for nesting beyond its own bound (1000), which it may meet first
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"

_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_SPECIAL_FLOATS = {"inf": math.inf, "nan": math.nan}
#: characters the text may not hold as themselves (YAML refuses them or reads line breaks)
_UNWRITTEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff]")

ErrorType = Callable[[str], Exception]
Parsed = TypeVar("Parsed")


class _Refused(yaml.YAMLError):
    """A rule above broken at ``line``, by the node at the key path ``field`` ("": the
    document, or a node whose path is not kept)."""

    def __init__(self, line: int, problem: str, field: str = "") -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem
        self.field = field


class _PythonParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python parser, for a PyYAML built without libyaml."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


#: libyaml's parser (the C readers' own) under PyYAML's composer, which checks the rules above;
#: PyYAML's pure-Python parser where it was built without libyaml (the type checker knows the
#: latter: libyaml's has the same methods)
if TYPE_CHECKING:
    _Parser = _PythonParser
else:
    try:
        from yaml.cyaml import CParser as _Parser
    except ImportError:
        _Parser = _PythonParser


class _DocumentLoader(yaml.composer.Composer, _Parser, yaml.constructor.SafeConstructor,
                      yaml.resolver.Resolver):
    """A safe loader with the rules above (scalars resolved by the subclasses' resolvers)."""

    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self._depth = 0  # lists and mappings open around the node being composed
        self._nodes = 0
        self._size: dict[int, int] = {}  # per composed node: its nodes, aliases expanded
        self._height: dict[int, int] = {}  # per composed node: lists and mappings nested in it
        self._paths = [""]  # the key path of each node being composed, outermost first
        self.next_path = ""  # the key path of the node whose first event is read next
        self._map_paths: dict[int, str] = {}  # per composed mapping: its key path

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        path = self.next_path = _child_path(self._paths[-1], parent, index)
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None and id(target) not in self._size:
                raise _Refused(line, f"the alias *{event.anchor} is inside its own anchor")
            node = super().compose_node(parent, index)
            assert node is not None  # an alias composes to the node of its anchor
            self._count(self._size[id(node)], self._depth + self._height[id(node)], line, path)
            return node
        if getattr(event, "tag", None) is not None:
            raise _Refused(line, f"explicit tag {event.tag} (the format uses no tags)")
        nested = 0 if isinstance(event, yaml.ScalarEvent) else 1
        self._count(1, self._depth + nested, line, path)
        self._depth += nested
        self._paths.append(path)
        node = super().compose_node(parent, index)
        self._paths.pop()
        self._depth -= nested
        if isinstance(node, yaml.MappingNode):
            self._map_paths[id(node)] = path
        assert node is not None  # an event starting a node composes to a node
        children = _children(node)
        self._size[id(node)] = 1 + sum(self._size[id(child)] for child in children)
        self._height[id(node)] = nested + max((self._height[id(c)] for c in children), default=0)
        return node

    def _count(self, nodes: int, depth: int, line: int, path: str) -> None:
        self._nodes += nodes
        if depth > MAX_DEPTH:
            raise _too_deep(line, path)
        if self._nodes > MAX_NODES:
            raise _Refused(line, f"more than {MAX_NODES} nodes (aliases counted expanded)",
                           path)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, str | int):
                if key in seen:
                    raise _Refused(key_node.start_mark.line + 1, "duplicate key",
                                   _joined(self._map_paths.get(id(node), ""), str(key)))
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _too_deep(line: int, path: str) -> _Refused:
    """Nesting beyond MAX_DEPTH at the node at ``path``, named by the key whose value nests
    (its list items dropped: libyaml may meet its own bound ahead of the items, and the C
    readers name the same key, formats/doc_yaml.c)."""
    return _Refused(line, f"nested deeper than {MAX_DEPTH} lists and mappings",
                    re.sub(r"(\[\d+\])+$", "", path))


def _child_path(path: str, parent: yaml.Node | None, index: Any) -> str:
    """The key path of a node composed at ``index`` of ``parent`` (at ``path``): a list's
    item ``[i]``, a mapping's value by its key; a mapping's key, the mapping's own."""
    if isinstance(parent, yaml.SequenceNode):
        return f"{path}[{index}]"
    if isinstance(index, yaml.ScalarNode):
        return _joined(path, str(index.value))
    return path


def _joined(path: str, key: str) -> str:
    """``path.key`` as error messages name keys (core/text.key_text)."""
    return f"{path}.{key_text(key)}" if path else key_text(key)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    text = str(loader.construct_scalar(node))
    special = _SPECIAL_FLOATS.get(text.lstrip("+-.").lower())
    if special is None:
        return float(text)
    return -special if text.startswith("-") else special


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    text = str(loader.construct_scalar(node))
    digits = len(text.lstrip("+-"))
    if digits > MAX_INTEGER_DIGITS:  # Python refuses to convert beyond 4300 digits
        raise _Refused(node.start_mark.line + 1, f"an integer of {digits} digits (no field "
                                                 f"holds more than {MAX_INTEGER_DIGITS})")
    return int(text, 10)


def _loader(floats: bool) -> type[_DocumentLoader]:
    class Loader(_DocumentLoader):
        pass

    Loader.yaml_implicit_resolvers = {}  # only the resolvers below
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
        list("tTfF"))
    Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
    if floats:
        Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))
        Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
    Loader.add_implicit_resolver(
        "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
    Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
    return Loader


_LOADERS = {False: _loader(False), True: _loader(True)}


def _load(text: str, floats: bool) -> Any:
    loader = _LOADERS[floats](text)  # as yaml.load does
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as problem:
        # libyaml's scanner meets its own bound on nesting (1000 flow levels) ahead of any
        # node it gives: the nesting starts at the node being read
        if problem.problem != _LIBYAML_TOO_DEEP:
            raise
        line = problem.problem_mark.line + 1 if problem.problem_mark else 1
        raise _too_deep(line, loader.next_path) from None
    finally:
        loader.dispose()


def parse_document(text: str, source: str, *, floats: bool, json_too: bool = False,
                   error: ErrorType = UserError) -> Any:
    """The document in ``text``; ``error("<source>:LINE: FIELD: problem")`` if it breaks a rule
    above (without ``FIELD: `` where the rule is the document's: malformed, a tag).
    ``floats``: plain decimal numbers are floats (workloads), else strings (configs).
    ``json_too``: the format is read as JSON too (workloads)."""
    unwritten = _UNWRITTEN.search(text) if json_too else None
    if unwritten:
        line = text.count("\n", 0, unwritten.start()) + 1
        raise error(str(InputError(source, "", f"U+{ord(unwritten.group()):04X} written as "
                                   "itself (escape it)", line)))
    try:
        return _load(text, floats)
    except _Refused as refused:
        raise error(str(InputError(source, refused.field, refused.problem, refused.line))
                    ) from None
    except yaml.reader.ReaderError as problem:
        point = problem.character
        point = ord(point) if isinstance(point, str) else int(point)
        raise error(f"{source}: U+{point:04X} at offset {problem.position}: "
                    f"{problem.reason}") from None
    except yaml.YAMLError as problem:
        raise error(describe_yaml_error(problem, source)) from None


def describe_yaml_error(error: yaml.YAMLError, source: str) -> str:
    """``SOURCE:LINE: malformed YAML: problem``, as one line."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    return str(InputError(source, "", f"malformed YAML: {problem}",
                          mark.line + 1 if mark else None))


def decode_text(data: bytes, source: str, error: ErrorType = UserError) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise error(f"{source}: not UTF-8 text (byte 0x{data[problem.start]:02x} at offset "
                    f"{problem.start})") from None


def read_document(path: Path, what: str, *, floats: bool, json_too: bool = False,
                  error: ErrorType = UserError) -> Any:
    """The document in the file ``path`` (a ``what``: config, workload), read as above."""
    text = _read_text(path, what, error)
    return parse_document(text, str(path), floats=floats, json_too=json_too, error=error)


def _read_text(path: Path, what: str, error: ErrorType) -> str:
    try:
        data = path.read_bytes()
    except OSError as problem:
        raise error(f"{path}: cannot read the {what}: {problem.strerror}") from None
    return decode_text(data, f"{path}: cannot read the {what}", error)


def read_yaml(path: Path, what: str) -> Any:
    """The document in the YAML file ``path`` (a ``what``: spec sheet, experiment, space...),
    read as :func:`read_document` reads a workload's (plain decimal numbers are floats);
    UserError naming the file, and the line where it has one, if unreadable, not UTF-8,
    malformed or breaking a rule above (a duplicate key, say)."""
    return read_document(path, what, floats=True)


#: PyYAML's safe loader on libyaml's parser, where PyYAML was built with libyaml
_SHIPPED_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_shipped(path: Path) -> Any:
    """A YAML file iotwin ships (a schema, the bounds table, the cost constants, the strategy
    settings): written by its authors, not by a user, so read as PyYAML's ``safe_load`` reads
    it, but by libyaml's parser, ten times faster than PyYAML's own: every command reads
    several of these files as it starts."""
    return yaml.load(path.read_text(), Loader=_SHIPPED_LOADER)


#: PyYAML's safe dumper on libyaml's emitter, where PyYAML was built with libyaml
_LIBYAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def dump_by_libyaml(value: Any, **options: Any) -> str:
    """``yaml.safe_dump(value, **options)``'s document, written by libyaml's emitter, four
    times faster than PyYAML's own (0.17 ms against 0.76 for a config): the store writes every
    run's and prediction's config, hundreds in a campaign. The text is PyYAML's but where a
    long quoted string wraps (a config has none)."""
    return str(yaml.dump(value, Dumper=_LIBYAML_DUMPER, **options))


def read_input(path: Path, what: str, parse: Callable[[Any, str], Parsed], *,
               floats: bool = True, json_too: bool = False,
               error: ErrorType = UserError) -> Parsed:
    """``parse(document, str(path))`` of the document in the file ``path`` (a ``what``: spec
    sheet, experiment, space, config, workload...), read as :func:`read_document` reads it
    (``error`` if it cannot be): the one way every input file is read and checked. An
    InputError ``parse`` raises about this file without a line gets the line of its field (or
    of the nearest mapping or list holding it)."""
    text = _read_text(path, what, error)
    document = parse_document(text, str(path), floats=floats, json_too=json_too, error=error)
    try:
        return parse(document, str(path))
    except InputError as refusal:
        if refusal.file == str(path) and refusal.line is None:
            refusal.line = field_line(text, refusal.field, floats)
        raise


def field_line(text: str, field: str, floats: bool = True) -> int | None:
    """The line of the key path ``field`` (``workloads[0].ranks``) in the YAML ``text``: its
    key's, or where the key is missing or the path goes on inside a value, the line of the
    nearest mapping or list holding it. None if the text has no such mapping or list. The C
    and C++ readers of configs and workloads walk their trees alike (formats/input_error.c),
    so that each names the same line."""
    loader = _LOADERS[floats](text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    line = None
    rest = field
    while node is not None:
        line = node.start_mark.line + 1
        node, rest, key_line = _step(node, rest)
        line = key_line or line
    return line


def _step(node: yaml.Node, rest: str) -> tuple[yaml.Node | None, str, int | None]:
    """One step down the key path ``rest`` from ``node``: the node it leads to (None: the
    path ends here or leads nowhere), what is left of the path, and the line of the key
    stepped through."""
    rest = rest.lstrip(".")
    if isinstance(node, yaml.SequenceNode):
        index = re.match(r"\[(\d+)\]", rest)
        if index and int(index.group(1)) < len(node.value):
            return node.value[int(index.group(1))], rest[index.end():], None
        return None, rest, None
    if not isinstance(node, yaml.MappingNode) or not rest:
        return None, rest, None
    keys = [(key, value) for key, value in node.value if isinstance(key, yaml.ScalarNode)
            and rest.startswith(key.value) and rest[len(key.value):][:1] in ("", ".", "[", " ")]
    if not keys:
        return None, rest, None
    key, value = max(keys, key=lambda pair: len(pair[0].value))
    rest = rest[len(key.value):]
    return (value if rest else None), rest, key.start_mark.line + 1


def check_keys(data: Any, allowed: Collection[str], origin: str, where: str = "",
               required: Collection[str] = ()) -> Mapping[str, Any]:
    """``data`` itself if it is a mapping whose keys are all ``allowed`` and include every
    ``required`` one; else InputError naming the file (``origin``) and the key path."""
    if not isinstance(data, dict):
        raise InputError(origin, where, "expected a mapping")
    prefix = f"{where}." if where else ""
    for key in data:
        if key not in allowed:
            raise InputError(origin, f"{prefix}{key_text(key)}",
                             f"unknown key (expected one of {', '.join(allowed)})")
    for key in required:
        if key not in data:
            raise InputError(origin, f"{prefix}{key}", "missing")
    return data
