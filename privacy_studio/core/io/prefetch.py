"""Reading the next batch of a file while the current one is converted: Parquet decoding releases the
interpreter lock, so on two cores it overlaps the conversion instead of alternating with it (issue #30)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TypeVar

T = TypeVar("T")

#: Batches decoded ahead of the one being converted (each holds up to a million rows).
AHEAD = 2
_DONE = object()


class _Failure:
    """An exception raised by the reading thread, re-raised where the batches are used."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def prefetched(batches: Iterator[T], ahead: int = AHEAD) -> Iterator[T]:
    """The items of ``batches`` in order, produced by a thread up to ``ahead`` items early; its exceptions
    are raised here, at the item where they happened. Stopping early (a break, an exception, closing this
    generator) stops the thread before it reads further."""
    if ahead < 1:  # a Queue of size 0 is unbounded: the whole file would be decoded ahead
        raise ValueError(f"prefetched: ahead must be at least 1, got {ahead}")
    items: queue.Queue = queue.Queue(maxsize=ahead)
    stop = threading.Event()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                items.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in batches:
                if not put(item):
                    return
            put(_DONE)
        except BaseException as exc:
            put(_Failure(exc))

    thread = threading.Thread(target=produce, name="batch-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = items.get()
            if item is _DONE:
                return
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        stop.set()
        thread.join()
