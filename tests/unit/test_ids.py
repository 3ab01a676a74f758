"""ids: only letters, digits, '-' and '_' (1-128 chars) may become part of a path."""

from __future__ import annotations

import pytest

from deliberation.state.ids import MAX_ID_LENGTH, InvalidId, check_id, is_valid_id

BAD = [
    "../x",
    "..",
    ".",
    "/etc/passwd",
    "/abs/path",
    "",
    "a" * 129,
    "a/b",
    "a\\b",
    "a\x00b",
    "\x00",
    "abc\n",
    " abc",
    "a b",
    "a.b",
    "é",
    None,
    42,
    b"abc",
    ["abc"],
]
GOOD = ["a", "A-Z_09", "49e53924-b8e5-4684-ab9d-b59cffeb45cb", "a0531c74b82e2edd0", "toolu_0", "a" * 128, "-", "_"]


@pytest.mark.parametrize("value", BAD, ids=repr)
def test_unsafe_ids_are_refused_with_a_clear_message(value):
    assert is_valid_id(value) is False
    with pytest.raises(InvalidId) as err:
        check_id("session_id", value)
    text = str(err.value)
    assert text.startswith("invalid session_id ")
    assert "letters, digits, '-' and '_'" in text and f"1-{MAX_ID_LENGTH}" in text
    assert err.value.kind == "session_id"


@pytest.mark.parametrize("value", GOOD)
def test_safe_ids_pass_unchanged(value):
    assert check_id("agent_id", value) == value


def test_length_bound_is_exactly_128():
    assert MAX_ID_LENGTH == 128
    assert is_valid_id("x" * 128) and not is_valid_id("x" * 129)


def test_long_values_are_shortened_in_the_message():
    with pytest.raises(InvalidId) as err:
        check_id("agent_id", "/" * 500)
    assert len(str(err.value)) < 250
    assert "..." in str(err.value)
