"""The fast assembly equals the reference ``build_event_table`` on random data."""

from __future__ import annotations

import os
import tempfile

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.io.assemble import sort_order


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(-5, 5)), min_size=0, max_size=200))
def test_sort_order_is_a_stable_lexsort(rows: list[tuple[int, int]]) -> None:
    user = np.asarray([r[0] for r in rows], dtype=np.int32)
    time = np.asarray([r[1] for r in rows], dtype=np.int64)
    np.testing.assert_array_equal(sort_order(user, time, 7), np.lexsort((time, user)))


ids = st.sampled_from(["a", "b", "B", "10", "9", "zz", "ü"])


@given(st.lists(st.tuples(ids, st.integers(1_600_000_000, 1_600_100_000), ids), min_size=1, max_size=60))
def test_load_matches_build_event_table(rows: list[tuple[str, int, str]]) -> None:
    text = "user,time,location\n" + "".join(f"{u},{t},{loc}\n" for u, t, loc in rows)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "e.csv")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        got = load_dataset(path, ReaderOptions(use_cache=False)).events
    want = build_event_table([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    for name in ("user", "time", "location", "user_ids", "location_ids"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


@given(st.lists(st.lists(st.integers(-100, 100), max_size=50), max_size=8), st.integers(0, 40))
def test_growable_equals_concatenation(pieces: list[list[int]], capacity: int) -> None:
    from privacy_studio.core.io.source import Growable

    buffer = Growable(np.int64, capacity)
    for piece in pieces:
        buffer.append(np.asarray(piece, dtype=np.int64))
    want = np.asarray([v for piece in pieces for v in piece], dtype=np.int64)
    np.testing.assert_array_equal(buffer.view(), want)
    np.testing.assert_array_equal(buffer.take(), want)
    assert buffer.size == 0


texts = st.text(
    alphabet=st.sampled_from(["a", "b", "Z", "0", "9", " ", "é", "ü", "€", "\x00", "\x7f"]), max_size=19
)


@given(st.lists(texts | st.none(), max_size=60), st.integers(0, 3))
def test_sorted_unique_equals_numpy_unique(values: list[str], cut: int) -> None:
    """The hash-and-pack path (and its fallbacks, for nulls too) equals ``np.unique`` of numpy strings."""
    import pyarrow as pa

    from privacy_studio.core.io.assemble import sorted_unique

    entries = pa.array(values, type=pa.string()).slice(min(cut, len(values)))  # offsets not at 0 too
    want_values, want_inverse = np.unique(np.asarray(entries.to_pylist(), dtype=str), return_inverse=True)
    got_values, got_inverse = sorted_unique(entries)
    np.testing.assert_array_equal(got_values, want_values)
    assert got_values.dtype == want_values.dtype
    np.testing.assert_array_equal(got_inverse, want_inverse.ravel())


@given(st.lists(st.text(alphabet="0123456789abcdef", min_size=8, max_size=8), min_size=1, max_size=80))
def test_sorted_unique_of_ascii_ids(values: list[str]) -> None:
    """Equal-width ASCII ids, the national-scale case: the values come from the packed bytes."""
    import pyarrow as pa

    from privacy_studio.core.io.assemble import sorted_unique

    want_values, want_inverse = np.unique(np.asarray(values, dtype=str), return_inverse=True)
    got_values, got_inverse = sorted_unique(pa.array(values, type=pa.string()))
    np.testing.assert_array_equal(got_values, want_values)
    assert got_values.dtype == want_values.dtype
    np.testing.assert_array_equal(got_inverse, want_inverse.ravel())
