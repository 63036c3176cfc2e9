"""Reading and validating a tuning config: the one way to make a
:class:`~iotwin.config.types.Config` (sizes as byte counts).

YAML is read as every format's text is (iotwin.core.yaml_files): YAML 1.2 core-schema
scalars (plain ``true`` / ``false`` booleans, plain decimal digits integers, everything else a
string), as the C side (libyaml) resolves them, so ``010`` or ``yes`` cannot mean one thing to
the validator and another to the interposer. Every integer and size key names its kind in the
one bounds table (data/bounds.yaml): its C type's range and a sane maximum.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from iotwin.config.schema import Key, Schema, load_schema
from iotwin.config.types import Config
from iotwin.core.errors import InputError, UserError
from iotwin.core.text import control_character
from iotwin.core.units import parse_size
from iotwin.core.yaml_files import parse_document, read_input
from iotwin.formats.record_schema import describe, key_text


class ConfigError(UserError):
    """A tuning config that cannot be used; the message names the file and the key path."""


class ConfigFieldError(InputError, ConfigError):
    """A config's field its schema refuses, with the line of the field in the config's file
    (or, for a config inside another input, in that input's)."""


def parse_yaml(text: str, source: str) -> Any:
    """A config's YAML text (iotwin.core.yaml_files: YAML 1.2 core scalars, no floats)."""
    return parse_document(text, source, floats=False, error=ConfigError)


def load_config(path: str | Path) -> Config:
    """Read and validate a config file; sizes come back as byte counts. A refused field is
    named with its line: ``FILE:LINE: FIELD: problem``."""
    return read_input(Path(path), "config", validate_config, floats=False, error=ConfigError)


#: the config that sets nothing: every setting at the site's default
DEFAULT_CONFIG: Config = {}



def validate_config(data: Any, source: str, at: str = "") -> Config:
    """The normalised config (sizes as ints), or ConfigError naming ``source`` and the key path
    (from ``at``, where the config lies in ``source``: ``configs[0].config``): the one way to
    make a :class:`~iotwin.config.types.Config`."""
    if data is None:
        return {}
    return cast(Config, _Validator(load_schema(), source).scope(data, "top", at))


def validate_value(block: str, name: str, value: Any, source: str, path: str) -> Any:
    """One key's value (``block.name``) as :func:`validate_config` normalises it, or
    ConfigError naming ``source`` and ``path``: for documents that hold a config key's value
    elsewhere (a platform sheet's default layout is a ``lustre.components``)."""
    return _Validator(load_schema(), source).value(load_schema().blocks[block][name], value, path)


class _Validator:
    def __init__(self, schema: Schema, source: str) -> None:
        self.schema = schema
        self.source = source

    def fail(self, path: str, message: str) -> ConfigFieldError:
        return ConfigFieldError(self.source, path, message)

    def mapping(self, value: Any, path: str, what: str) -> dict[Any, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected {what}, got {describe(value)}")
        return value

    def refuse_control(self, text: Any, path: str, what: str) -> None:
        code = control_character(text) if isinstance(text, str) else None
        if code is not None:
            raise self.fail(path, f"{what} a control character (U+{code:04X})")

    def scope(self, data: Any, scope_name: str, path: str) -> dict[str, Any]:
        scope = self.schema.scopes[scope_name]
        mapping = self.mapping(data, path, "a mapping of config blocks")
        allowed = self.schema.allowed_keys(scope)
        result: dict[str, Any] = {}
        for name, value in mapping.items():
            self.refuse_control(name, path, "a key holds")
            key_path = _join(path, key_text(name))
            if name in scope.keys:
                result[name] = self.value(scope.keys[name], value, key_path)
            elif name in scope.blocks:
                result[name] = self.block(name, value, key_path)
            elif name in scope.lists:
                result[name] = self.entries(scope.lists[name], value, key_path)
            elif scope.inline and name in self.schema.blocks[scope.inline]:
                result[name] = self.value(self.schema.blocks[scope.inline][name], value, key_path)
            else:
                raise self.fail(key_path, "unknown key (expected one of " + ", ".join(allowed)
                                + ")")
        self.check_required(scope.keys, result, path)
        if scope.inline:
            self.check_exclusive(self.schema.blocks[scope.inline], result, path)
        return result

    def block(self, block: str, value: Any, path: str) -> dict[str, Any]:
        keys = self.schema.blocks[block]
        mapping = self.mapping(value, path, f"a mapping of {block} settings")
        result = self.keyed(keys, mapping, path)
        self.check_exclusive(keys, result, path)
        return result

    def keyed(self, keys: dict[str, Key], mapping: dict[Any, Any], path: str) -> dict[str, Any]:
        result = {}
        for name, value in mapping.items():
            self.refuse_control(name, path, "a key holds")
            key_path = _join(path, key_text(name))
            if name not in keys:
                raise self.fail(key_path, "unknown key (expected one of " + ", ".join(keys)
                                + ")")
            result[name] = self.value(keys[name], value, key_path)
        return result

    def entries(self, scope_name: str, value: Any, path: str) -> list[dict[str, Any]]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list of {scope_name} blocks, got {describe(value)}")
        return [self.scope(item, scope_name, f"{path}[{i}]") for i, item in enumerate(value)]

    def check_required(self, keys: dict[str, Key], result: dict[str, Any], path: str) -> None:
        for name, key in keys.items():
            if key.required and name not in result:
                raise self.fail(_join(path, name), "required key is missing")

    def check_exclusive(self, keys: dict[str, Key], result: dict[str, Any], path: str) -> None:
        for name, key in keys.items():
            other = key.exclusive_with
            if other and name in result and result.get(other, False) is not False:
                raise self.fail(_join(path, name), f"cannot be combined with {other}")

    def value(self, key: Key, value: Any, path: str) -> Any:
        self.refuse_control(value, path, "holds")
        checked = _CHECKS[key.type](self, key, value, path)
        if checked is _INVALID:
            raise self.fail(path, f"expected {key.expected()}, got {describe(value)}")
        return checked

    def check_int(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, int) or isinstance(value, bool) or not _in_bounds(key, value):
            return _INVALID
        return value

    def check_size(self, key: Key, value: Any, path: str) -> Any:
        if isinstance(value, str) and value in key.values:
            return value
        if isinstance(value, int | str) and not isinstance(value, bool):
            try:
                size = parse_size(value)
            except ValueError:
                return _INVALID
            if _in_bounds(key, size):
                return size
        return _INVALID

    def check_bool(self, key: Key, value: Any, path: str) -> Any:
        return value if isinstance(value, bool) else _INVALID

    def check_enum(self, key: Key, value: Any, path: str) -> Any:
        return value if isinstance(value, str) and value in key.values else _INVALID

    def check_string(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, str):
            return _INVALID
        if key.name == "match" and "[^" in value:
            raise self.fail(path, "'[^' means different things to fnmatch implementations; "
                            "write '[!' to negate a set")
        return value

    def check_string_map(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            return _INVALID
        result = {}
        for name, item in value.items():
            self.refuse_control(name, path, "a key holds")
            self.refuse_control(item, _join(path, key_text(name)), "holds")
            if not isinstance(name, str) or isinstance(item, dict | list) or item is None:
                raise self.fail(_join(path, key_text(name)),
                                f"expected a string value, got {describe(item)}")
            result[name] = describe(item) if not isinstance(item, str) else item
        return result

    def check_int_list(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, list) or not value:
            return _INVALID
        for i, item in enumerate(value):
            self.refuse_control(item, f"{path}[{i}]", "holds")
            if not isinstance(item, int) or isinstance(item, bool) or item < 1:
                raise self.fail(f"{path}[{i}]",
                                f"expected a positive integer, got {describe(item)}")
            if key.bounds is not None and item > key.bounds.max:
                raise self.fail(f"{path}[{i}]", f"{item} is more than {key.bounds.max}, the "
                                f"largest {key.bounds.name.replace('_', ' ')}")
        return list(value)

    def check_record(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            return _INVALID
        return self.keyed(key.fields, value, path)

    def check_record_list(self, key: Key, value: Any, path: str) -> Any:
        if not isinstance(value, list) or not value:
            return _INVALID
        records: list[dict[str, Any]] = []
        for i, item in enumerate(value):
            at = f"{path}[{i}]"
            mapping = self.mapping(item, at, "a mapping with keys " + ", ".join(key.fields))
            record = self.keyed(key.fields, mapping, at)
            self.check_required(key.fields, record, at)
            self.check_exclusive(key.fields, record, at)
            self.check_entry(key, records, record, at)
            records.append(record)
        for name, word in key.last.items():
            if records[-1].get(name) != word:
                raise self.fail(f"{path}[{len(records) - 1}].{name}",
                                f"expected {word} in the last entry, got "
                                f"{describe(records[-1].get(name))}")
        return records

    def check_entry(self, key: Key, before: list[dict[str, Any]], record: dict[str, Any],
                    path: str) -> None:
        """A record-list's entry against the ones before it: a first-only field, and its
        increasing field beyond the previous entry's (a word is beyond every size)."""
        for name, field_key in key.fields.items():
            if before and field_key.first_only and record.get(name, False) is not False:
                raise self.fail(_join(path, name), "only the first entry may set it")
        field_name = key.increasing
        if not before or field_name is None or field_name not in record:
            return
        previous, value = before[-1].get(field_name), record[field_name]
        if isinstance(previous, str):
            raise self.fail(f"{path[:path.rindex('[')]}[{len(before) - 1}].{field_name}",
                            f"only the last entry may be {previous}")
        if isinstance(value, int) and previous is not None and value <= previous:
            raise self.fail(_join(path, field_name), f"expected more than {previous} (the "
                            f"previous entry's {field_name}), got {value}")


_INVALID = object()
_CHECKS = {
    "int": _Validator.check_int,
    "size": _Validator.check_size,
    "bool": _Validator.check_bool,
    "enum": _Validator.check_enum,
    "string": _Validator.check_string,
    "string-map": _Validator.check_string_map,
    "int-list": _Validator.check_int_list,
    "record": _Validator.check_record,
    "record-list": _Validator.check_record_list,
}


def _in_bounds(key: Key, value: int) -> bool:
    return ((key.min is None or value >= key.min) and (key.max is None or value <= key.max)
            and (not key.multiple_of or value % key.multiple_of == 0))


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
