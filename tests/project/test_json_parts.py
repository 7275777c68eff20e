"""Parsing a project in parts gives exactly what json.loads gives, errors and their positions included."""

from __future__ import annotations

import json
from collections import OrderedDict, namedtuple

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from privacy_studio.core import json_parts

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.sampled_from([None, 1, 2]), st.integers(0, 4))
def test_the_same_value_as_json_loads_at_every_depth(value, indent, depth):
    text = json.dumps(value, indent=indent)
    assert json_parts._value(text, json_parts._skip(text, 0), depth)[0] == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(JSON, st.data())
def test_a_damaged_text_fails_where_json_loads_fails(value, data):
    text = json.dumps({"results": [value, value]}, indent=2)
    cut = data.draw(st.integers(0, len(text) - 1))
    damaged = text[:cut] + data.draw(st.sampled_from(["", "x", ",", "}", "]", '"'])) + text[cut + 1 :]
    try:
        expected = json.loads(damaged)
    except json.JSONDecodeError as exc:
        with pytest.raises(json.JSONDecodeError) as got:
            _parse_in_parts(damaged)
        assert (got.value.msg, got.value.pos) == (exc.msg, exc.pos)
    else:
        assert _parse_in_parts(damaged) == expected


def _parse_in_parts(text: str):
    saved, json_parts.SMALL = json_parts.SMALL, 0
    try:
        return json_parts.loads(text)
    finally:
        json_parts.SMALL = saved


def test_a_large_text_is_parsed_in_parts():
    value = {"results": [{"by_p": list(range(1000)), "label": str(i)} for i in range(200)]}
    text = json.dumps(value, indent=2)
    assert len(text) >= json_parts.SMALL
    assert json_parts.loads(text) == value


ANY_KEYS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda kids: (
        st.lists(kids, max_size=5)
        | st.tuples(kids, kids)
        | st.dictionaries(st.text(max_size=4) | st.integers(), kids, max_size=4)
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(ANY_KEYS, st.integers(0, 5), st.integers(1, 3), st.booleans(), st.booleans())
def test_the_pieces_make_the_text_of_json_dumps(value, depth, chunk, sort_keys, ensure_ascii):
    """At any depth and list chunk, with or without sorted keys, non-string keys and NaN included."""
    options = {"sort_keys": sort_keys, "separators": (",", ":"), "ensure_ascii": ensure_ascii, "default": str}
    assume(not (sort_keys and _mixed_keys(value)))  # json.dumps itself cannot sort str and int keys together
    saved, json_parts.CHUNK = json_parts.CHUNK, chunk
    try:
        pieces = "".join(json_parts.dumps_parts(value, depth, **options))
    finally:
        json_parts.CHUNK = saved
    assert pieces == json.dumps(value, **options)


def _mixed_keys(value) -> bool:
    if isinstance(value, dict):
        return len({type(k) for k in value}) > 1 or any(_mixed_keys(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_mixed_keys(v) for v in value)
    return False


def test_a_long_list_is_cut_into_chunks():
    value = {"per_user": list(range(3 * json_parts.CHUNK + 5)), "name": "x"}
    pieces = list(json_parts.dumps_parts(value, separators=(",", ":"), sort_keys=True))
    assert len(pieces) > 4 and "".join(pieces) == json.dumps(value, separators=(",", ":"), sort_keys=True)


_Pair = namedtuple("_Pair", "first second")  # a tuple subclass (OrderedDict: a dict subclass)
#: Keys json.dumps turns into text itself (a dict of them is written by the fallback, not in chunks).
_OTHER_KEYS = st.booleans() | st.none() | st.floats(allow_nan=False, allow_infinity=False)

PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda kids: (
        st.lists(kids, max_size=5)
        | st.tuples(kids, kids)
        | st.dictionaries(st.text(max_size=4) | st.integers(), kids, max_size=4)
        | st.dictionaries(_OTHER_KEYS, kids, max_size=3)
        | st.builds(OrderedDict, st.dictionaries(st.text(max_size=4), kids, max_size=3))
        | st.builds(_Pair, kids, kids)
    ),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(PLAIN, st.integers(1, 3), st.sampled_from([1, 2, 4]))
def test_indented_pieces_make_the_text_of_json_dumps_indent(value, chunk, indent):
    """The project file's text: lists and dicts of plain values cut into chunks, at any nesting, empty
    containers, keys that are not strings and subclasses of dict and tuple included."""
    saved, json_parts.CHUNK = json_parts.CHUNK, chunk
    try:
        pieces = "".join(json_parts.indented_parts(value, indent))
    finally:
        json_parts.CHUNK = saved
    assert pieces == json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)


def test_indented_pieces_refuse_nan_as_json_dumps_does():
    with pytest.raises(ValueError):
        "".join(json_parts.indented_parts({"a": [1.0, float("nan")]}))


def test_a_long_flat_list_is_one_c_call_per_chunk():
    value = {"results": [{"per_user": [i / 7 for i in range(3 * json_parts.CHUNK + 5)], "name": "é"}]}
    pieces = list(json_parts.indented_parts(value))
    assert max(len(p) for p in pieces) > json_parts.CHUNK  # chunks, not values one by one
    assert "".join(pieces) == json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
