"""fastjson gives what the json package gives: the same values, the same text, the same errors."""

import json
import math
import sys

import pytest

from deliberation.wire import fastjson

DOCS = [
    '{"a": 1, "b": [true, false, null], "c": {"d": "e\\u00e9\\ud83d\\ude00"}}',
    '  \n\t{"x": 1.5e3, "y": -0, "z": 12345678901234567890}\r\n ',
    "[]",
    '"text"',
    "3",
    "-2.5",
    "null",
    '{"n": NaN, "i": Infinity, "m": -Infinity}',
    '{"dup": 1, "dup": 2}',
    '{"s": "\\"quoted\\" \\\\ \\/ \\b\\f\\n\\r\\t"}',
]
BAD = ["", "   ", "{", '{"a": 1} x', '{"a": 1}{}', "{'a': 1}", "[1,]", '{"a": "\x01"}', "\ufeff{}", "nul"]


def same(a, b):
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("doc", DOCS)
def test_loads_matches_json_for_str_and_bytes(doc):
    assert same(fastjson.loads(doc), json.loads(doc))
    raw = doc.encode("utf-8", "surrogatepass")
    assert same(fastjson.loads(raw), json.loads(raw))
    assert same(fastjson.loads(bytearray(raw)), json.loads(raw))


@pytest.mark.parametrize("doc", ['{"a": "\u00e9"}', '["x"]'])
@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-32-be"])
def test_loads_other_encodings_as_json_does(doc, encoding):
    raw = doc.encode(encoding)
    assert fastjson.loads(raw) == json.loads(raw)


def test_loads_a_lone_surrogate_in_bytes_as_json_does():
    raw = b'{"a": "\xed\xa0\x80"}'
    assert fastjson.loads(raw) == json.loads(raw)


@pytest.mark.parametrize("doc", BAD)
def test_errors_are_json_errors_with_json_messages(doc):
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(doc)
    with pytest.raises(json.JSONDecodeError) as got:
        fastjson.loads(doc)
    assert str(got.value) == str(expected.value)


def test_too_deep_is_a_recursion_error_as_in_json():
    doc = "[" * (sys.getrecursionlimit() * 2) + "]" * (sys.getrecursionlimit() * 2)
    with pytest.raises(RecursionError):
        json.loads(doc)
    with pytest.raises(RecursionError):
        fastjson.loads(doc)


OBJS = [
    {"a": 1, "b": [True, False, None], "c": {"d": 'é😀\u2028\x00\n"\\'}, "f": 1.5, "g": -0.0, "h": 10**30},
    [],
    {},
    "plain",
    "é",
    3,
    2.5,
    None,
    True,
    (1, 2),
    {1: "int key", 2.5: "float key", None: "n", False: "f"},
    {"nan": math.nan, "inf": math.inf, "ninf": -math.inf},
    ["\ud800 lone surrogate"],
]


@pytest.mark.parametrize("obj", OBJS)
@pytest.mark.parametrize("ensure_ascii", [True, False])
@pytest.mark.parametrize("separators", [None, (",", ":")])
def test_dumps_matches_json(obj, ensure_ascii, separators):
    assert fastjson.dumps(obj, ensure_ascii=ensure_ascii, separators=separators) == json.dumps(
        obj, ensure_ascii=ensure_ascii, separators=separators
    )


def test_dumps_refuses_what_json_refuses():
    for obj in ({"a": object()}, {(1, 2): 3}):
        with pytest.raises(TypeError) as expected:
            json.dumps(obj)
        with pytest.raises(TypeError) as got:
            fastjson.dumps(obj)
        assert str(got.value) == str(expected.value)
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        fastjson.dumps(loop)
    deep: list = []
    for _ in range(sys.getrecursionlimit() * 2):
        deep = [deep]
    with pytest.raises(RecursionError):
        fastjson.dumps(deep)


def test_the_fast_path_module_does_not_load_the_json_package():
    import subprocess

    code = (
        "import sys; sys.path.insert(0, %r); from deliberation.wire import fastjson; "
        'fastjson.dumps(fastjson.loads(b\'{"a": [1, 2.5, "x"]}\'), ensure_ascii=False); '
        "print(sorted(m for m in ('json', 're', 'enum') if m in sys.modules))" % fastjson.__file__.rsplit("/deliberation/", 1)[0]
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
