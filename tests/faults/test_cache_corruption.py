"""A damaged columnar cache entry is noticed and the source read again: the dataset is the one read without
the cache, with a note, never a crash or a different number."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from privacy_studio.core.io import ReaderOptions, load_dataset
from tests.faults.conftest import write_events


def _same_events(a, b) -> bool:
    return all(
        np.array_equal(np.asarray(getattr(a.events, f)), np.asarray(getattr(b.events, f)))
        for f in ("user", "time", "location", "user_ids", "location_ids")
    )


def _reverse(a: np.ndarray) -> None:
    a[:] = a[::-1].copy()


def _zero(a: np.ndarray) -> None:
    a[:] = 0


def _int_max(a: np.ndarray) -> None:
    a[:] = np.iinfo(a.dtype).max if a.dtype.kind in "iu" else 1e300


def _negative(a: np.ndarray) -> None:
    a[: max(1, len(a) // 3)] = -5 if a.dtype.kind in "if" else a[0]


def _one_value(a: np.ndarray) -> None:
    a[len(a) // 2] = a[0] + (7 if a.dtype.kind in "iuf" else a[0])


#: In-place corruptions of an array file's content (the size stays the same).
CORRUPTIONS: dict[str, Callable[[np.ndarray], None]] = {
    "reversed": _reverse,
    "zeroed": _zero,
    "int_max": _int_max,
    "negative": _negative,
    "one_value": _one_value,
}
ARRAYS = ["ev_user", "ev_time", "ev_location"]


def _entry(cache: Path) -> Path:
    (entry,) = [p for p in cache.iterdir() if not p.name.startswith(".")]
    return entry


def _cached_and_fresh(tmp_path: Path):
    data = write_events(tmp_path / "events.csv", users=20, events=10)
    options = ReaderOptions()
    fresh = load_dataset(str(data), ReaderOptions(use_cache=False))
    load_dataset(str(data), options)
    return data, options, fresh


@pytest.mark.parametrize("array", ARRAYS)
@pytest.mark.parametrize("how", sorted(CORRUPTIONS))
def test_corrupted_array_is_detected_and_reread(
    array: str, how: str, tmp_path: Path, private_cache: Path, record: Callable
) -> None:
    data, options, fresh = _cached_and_fresh(tmp_path)
    mapped = np.load(_entry(private_cache) / f"{array}.npy", mmap_mode="r+")
    CORRUPTIONS[how](mapped)
    mapped.flush()
    del mapped
    try:
        again = load_dataset(str(data), options)
    except Exception as exc:
        record("traceback", repr(exc))
        return
    noted = any("damaged" in n for n in again.report.notes)
    record("worked" if _same_events(again, fresh) and noted else "silent wrong result")


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _garbage(path: Path) -> None:
    path.write_bytes(b"\x93NUMPY garbage" * 10)


def _delete(path: Path) -> None:
    path.unlink()


def _empty(path: Path) -> None:
    path.write_bytes(b"")


FILE_DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,
    "garbage": _garbage,
    "deleted": _delete,
    "empty": _empty,
}


@pytest.mark.parametrize("name", [*(f"{a}.npy" for a in ARRAYS), "ev_user_ids.npy", "meta.json"])
@pytest.mark.parametrize("how", sorted(FILE_DAMAGE))
def test_damaged_cache_file_is_reread(
    name: str, how: str, tmp_path: Path, private_cache: Path, record: Callable
) -> None:
    data, options, fresh = _cached_and_fresh(tmp_path)
    FILE_DAMAGE[how](_entry(private_cache) / name)
    try:
        again = load_dataset(str(data), options)
    except Exception as exc:
        record("traceback", repr(exc))
        return
    record("worked" if _same_events(again, fresh) else "silent wrong result")
