"""Batches read ahead by a thread: the same items in order, errors where they happened, and a stop."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.io.prefetch import prefetched


@given(st.lists(st.integers(), max_size=50), st.integers(1, 4))
def test_prefetched_gives_the_same_items_in_order(items: list[int], ahead: int) -> None:
    assert list(prefetched(iter(items), ahead)) == items


def test_an_error_of_the_reader_is_raised_at_its_item() -> None:
    def batches():
        yield 1
        yield 2
        raise OSError("damaged")

    got = []
    with pytest.raises(OSError, match="damaged"):
        for item in prefetched(batches()):
            got.append(item)
    assert got == [1, 2]


def test_stopping_early_stops_the_reading_thread() -> None:
    made = []

    def batches():
        for i in range(1000):
            made.append(i)
            yield i

    before = threading.active_count()
    reader = prefetched(batches(), ahead=2)
    assert next(reader) == 0
    reader.close()  # what a break or an exception in the consumer does
    time.sleep(0.05)
    assert len(made) <= 4 and threading.active_count() == before
