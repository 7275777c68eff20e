"""``build_event_table`` codes ids with Arrow's kernels (issue #27: ``np.unique`` on strings held the
interpreter lock for seconds); the codes must be exactly those of the old ``np.unique`` coding, kept here as
the slow reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.events import (
    TEXT_SLICE,
    LocationTable,
    build_event_table,
    codes_in,
    string_codes,
)


def unique_reference(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The old coding: ids sorted as numpy sorts strings, and each value's position among them."""
    ids, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
    return ids, codes.ravel().astype(np.int32)


def lookup_reference(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The old coding against a location table: a dictionary lookup per value."""
    lookup = {lid: i for i, lid in enumerate(np.asarray(ids).tolist())}
    return np.asarray([lookup[v] for v in np.asarray(values).astype(str).tolist()], dtype=np.int32)


#: Any text numpy keeps as it is: no lone surrogates (not UTF-8) and no NUL (numpy drops trailing ones).
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=6)


def as_array(values: list, kind: str) -> np.ndarray:
    """``values`` as a numpy array of the kind a reader hands over."""
    return np.asarray(values, dtype=object) if kind == "object" else np.asarray(values)


@given(st.lists(TEXT, max_size=60), st.sampled_from(["unicode", "object"]))
def test_string_ids_are_coded_as_np_unique_codes_them(values, kind) -> None:
    array = as_array(values, kind) if values else np.asarray([], dtype=str)
    ids, codes = string_codes(array)
    want_ids, want_codes = unique_reference(array)
    assert ids.tolist() == want_ids.tolist() and codes.tolist() == want_codes.tolist()
    assert codes.dtype == np.int32


@given(st.lists(st.integers(-(2**40), 2**40), max_size=60), st.sampled_from([np.int64, np.uint32, np.int8]))
def test_integer_ids_are_coded_as_their_text(values, dtype) -> None:
    info = np.iinfo(dtype)
    array = np.clip(np.asarray(values, dtype=np.int64), info.min, info.max).astype(dtype)
    ids, codes = string_codes(array)
    want_ids, want_codes = unique_reference(array)
    assert ids.tolist() == want_ids.tolist() and codes.tolist() == want_codes.tolist()


@given(st.lists(st.floats(allow_nan=False, width=32) | st.booleans() | st.none(), max_size=20))
def test_other_ids_are_coded_as_numpy_writes_them(values) -> None:
    array = np.asarray(values, dtype=object)
    ids, codes = string_codes(array)
    want_ids, want_codes = unique_reference(array)
    assert ids.tolist() == want_ids.tolist() and codes.tolist() == want_codes.tolist()


def test_ids_longer_than_a_slice_keep_their_codes_across_slices() -> None:
    rng = np.random.default_rng(3)
    values = np.char.add("user ", rng.integers(0, 5000, 2 * TEXT_SLICE + 17).astype(str))
    ids, codes = string_codes(values)
    want_ids, want_codes = unique_reference(values)
    assert np.array_equal(ids, want_ids) and np.array_equal(codes, want_codes)


@given(st.lists(TEXT, min_size=1, max_size=30, unique=True), st.data())
def test_locations_are_coded_in_the_tables_order(ids, data) -> None:
    values = data.draw(st.lists(st.sampled_from(ids), max_size=60))
    array = np.asarray(values, dtype=object) if values else np.asarray([], dtype=str)
    assert codes_in(array, np.asarray(ids)).tolist() == lookup_reference(array, np.asarray(ids)).tolist()


def test_a_location_missing_from_the_table_is_named() -> None:
    with pytest.raises(KeyError, match="c"):
        codes_in(np.asarray(["a", "c"]), np.asarray(["a", "b"]))


@given(st.lists(st.tuples(st.sampled_from(["b", "a", "é", "10", "9"]), st.integers(0, 5), TEXT), max_size=40))
def test_the_table_is_the_one_the_unique_coding_built(rows) -> None:
    users = np.asarray([r[0] for r in rows], dtype=str)
    times = np.asarray([r[1] for r in rows], dtype=np.int64)
    places = np.asarray([r[2] for r in rows], dtype=object)
    table = build_event_table(users, times, places)
    user_ids, user_codes = unique_reference(users)
    place_ids, place_codes = unique_reference(places)
    order = np.lexsort((times, user_codes))
    assert table.user_ids.tolist() == user_ids.tolist() and table.location_ids.tolist() == place_ids.tolist()
    assert table.user.tolist() == user_codes[order].tolist()
    assert table.location.tolist() == place_codes[order].tolist()
    assert table.time.tolist() == times[order].tolist()
    if len(place_ids):
        nan = np.full(len(place_ids), np.nan)
        located = build_event_table(users, times, places, locations=LocationTable(place_ids, *[nan] * 4))
        assert located.location.tolist() == table.location.tolist()


@given(st.lists(TEXT, max_size=60), st.lists(TEXT, max_size=60), st.sampled_from(["string", "large_string"]))
def test_arrow_strings_are_coded_as_their_python_strings_are(users, places, kind) -> None:
    """A written release's columns go to ``build_event_table`` as Arrow strings (a Python string per row held
    the GIL, issue #27): the same table as from the same ids as Python strings."""
    import pyarrow as pa

    n = min(len(users), len(places))
    users, places = users[:n], places[:n]
    time = np.arange(n, dtype=np.int64)[::-1].copy()
    kind_type = pa.string() if kind == "string" else pa.large_string()
    halves = [users[: n // 2], users[n // 2 :]]  # a chunked column, as a table's column is
    arrow_users = pa.chunked_array([pa.array(h, type=kind_type) for h in halves], type=kind_type)
    from_arrow = build_event_table(arrow_users, time, pa.array(places, type=kind_type))
    from_python = build_event_table(np.asarray(users, dtype=object), time, np.asarray(places, dtype=object))
    for name in ("user", "time", "location", "user_ids", "location_ids"):
        assert getattr(from_arrow, name).tolist() == getattr(from_python, name).tolist(), name


def test_arrow_strings_with_nulls_take_the_python_way() -> None:
    """Nulls have no text of their own in Arrow's coding: such columns keep the old conversion."""
    import pyarrow as pa

    from privacy_studio.core.events import arrow_text

    assert arrow_text(pa.array(["a", "b"])) and not arrow_text(pa.array(["a", None]))
    assert not arrow_text(pa.array([1, 2])) and not arrow_text(np.asarray(["a"]))
