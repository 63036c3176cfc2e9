"""What may reach a line as it is, and how the rest is escaped or refused."""

from __future__ import annotations

import pytest
from iotwin.core.errors import UserError
from iotwin.core.text import check_printable, one_line, printable, printable_tree, valid_utf8


def test_printable_escapes_what_would_act_on_a_terminal_and_keeps_the_rest() -> None:
    assert printable("a\nb\rc\td\x00e\x1b[2Kf\x7f\x85") == \
        "a\\nb\\rc\\td\\x00e\\x1b[2Kf\\x7f\\x85"
    assert printable("\u202eevil\u2066\u2028") == "\\u202eevil\\u2066\\u2028"
    assert printable("caf\udce9") == "caf\\xe9"  # the byte 0xe9 of a Latin-1 name
    assert printable("é 漢字 /run/x_1.h5 *:*") == "é 漢字 /run/x_1.h5 *:*"


def test_valid_utf8_escapes_only_undecodable_bytes() -> None:
    text = valid_utf8("line one\nline \udcff")
    assert text == "line one\nline \\xff"
    assert text.encode("utf-8")  # what SQLite binds


def test_one_line_joins_lines_and_escapes() -> None:
    assert one_line("first\n  second\n\nthird \x1b") == "first / second / third \\x1b"


def test_printable_tree_escapes_keys_values_and_lists_alike() -> None:
    tree = printable_tree({"file": "a\nb", "write": ["a\nb", 3], "k\x00": None})
    assert tree == {"file": "a\\nb", "write": ["a\\nb", 3], "k\\x00": None}


@pytest.mark.parametrize(("value", "named"), [
    ("x\ny", "cfg.yaml: files[0].match"),
    ({"ok": "fine", "a\x00b": "v"}, "cfg.yaml: files[0].match"),  # a key: where it sits
    ({"ok": "v\rw"}, "cfg.yaml: files[0].match.ok"),
    (["fine", "\u202e"], "cfg.yaml: files[0].match[1]"),
])
def test_check_printable_names_where_the_character_is(value: object, named: str) -> None:
    with pytest.raises(UserError) as refused:
        check_printable(value, "cfg.yaml: files[0].match")
    message = str(refused.value)
    assert message.startswith(f"{named}: ") and "\n" not in message
    assert "holds a control character (U+" in message


def test_check_printable_takes_printable_text_numbers_and_none() -> None:
    check_printable({"cb_config_list": "*:*", "n": 4, "x": None, "l": ["é", 1.5]}, "here")
