"""The columnar cache: a loaded dataset stored as memory-mappable .npy arrays plus a JSON description.

Entries are keyed by a fingerprint of every input file (size, modification time and a blake2b digest of
sixteen 64 KiB blocks spread over the file, so a 2 GB file is fingerprinted in milliseconds) and by the
reader options. They live in ``$PRIVACY_STUDIO_CACHE`` or ``~/.cache/privacy-studio``. Every array is
stored with its dtype, shape and digest, and what is loaded is checked against them and against the
invariants the kernels rely on (codes in range, rows sorted), so a damaged entry is read again, never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from privacy_studio.core.atomic import TEMP_PREFIX
from privacy_studio.core.events import EventTable, LocationTable
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io.dataset import Dataset
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.report import ImportReport, SourceFile
from privacy_studio.core.kernels.rows import is_sorted

#: Bump when the stored layout or the reading rules change, so old entries are not reused.
CACHE_VERSION = 5
_BLOCK = 1 << 16
#: Bytes read at a time when checking a stored column against its digest.
_READ_BLOCK = 1 << 22
_BLOCKS = 16
_LOCATION_FIELDS = ("ids", "lat", "lon", "x_km", "y_km")
#: A temporary entry folder older than this was left by a killed process (a live one finishes sooner).
_STALE_SECONDS = 6 * 3600


class DamagedEntry(Exception):
    """A cache entry whose content does not match what was written; the message says what is off."""


def cache_dir() -> Path:
    root = os.environ.get("PRIVACY_STUDIO_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "privacy-studio"
    )
    return Path(root)


def fingerprint(path: str) -> str:
    """Size, mtime and sampled blocks of a file (or of every file of a folder)."""
    digest = hashlib.blake2b(digest_size=16)
    paths = sorted(Path(path).iterdir()) if os.path.isdir(path) else [Path(path)]
    for p in paths:
        if not p.is_file():
            continue
        st = p.stat()
        digest.update(f"{p.name}|{st.st_size}|{st.st_mtime_ns}|".encode())
        with open(p, "rb") as fh:
            step = max(st.st_size // _BLOCKS, _BLOCK)
            for offset in range(0, st.st_size, step):
                fh.seek(offset)
                digest.update(fh.read(_BLOCK))
            fh.seek(max(st.st_size - _BLOCK, 0))
            digest.update(fh.read(_BLOCK))
    return digest.hexdigest()


def cache_key(path: str, options: ReaderOptions) -> str:
    """Key of a dataset read from ``path`` with ``options`` (side files enter by fingerprint, not name)."""
    opts = options.to_dict()
    opts.pop("use_cache")
    side = {
        k: (fingerprint(opts.pop(k)) if opts.get(k) else None) for k in ("antennas", "hierarchy", "locations")
    }
    blob = json.dumps([CACHE_VERSION, fingerprint(path), opts, side], sort_keys=True)
    return hashlib.blake2b(blob.encode(), digest_size=20).hexdigest()


def store(key: str, dataset: Dataset) -> None:
    """Write the entry atomically (a temporary folder renamed into place); failures only cost speed."""
    root = cache_dir()
    try:
        root.mkdir(parents=True, exist_ok=True)
        _remove_stale_entries(root)
        tmp = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{key}.", dir=root))
    except OSError:
        return
    try:
        _write(tmp, dataset)
        if (root / key).exists():  # an entry of an older layout: a folder cannot be renamed over it
            shutil.rmtree(root / key, ignore_errors=True)
        os.replace(tmp, root / key)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def _remove_stale_entries(root: Path) -> None:
    """Delete temporary entry folders left by processes killed while writing."""
    now = time.time()
    for entry in root.glob(f"{TEMP_PREFIX}*"):
        try:
            if now - entry.stat().st_mtime > _STALE_SECONDS:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


def _save(folder: Path, name: str, array: np.ndarray, meta: dict[str, Any]) -> None:
    """Store one array and remember its dtype, shape and digest for the check on loading."""
    array = np.ascontiguousarray(array)
    np.save(folder / f"{name}.npy", array)
    meta["checks"][name] = [array.dtype.str, list(array.shape), _digest(array)]


def _digest(array: np.ndarray) -> str:
    """SHA-256 of the array's bytes: twice blake2b's speed on CPUs with SHA instructions, and what re-opening
    an entry spends most of its time on."""
    if array.dtype.hasobject:
        return hashlib.sha256(repr(array.tolist()).encode()).hexdigest()
    return hashlib.sha256(memoryview(np.ascontiguousarray(array)).cast("B")).hexdigest()


def _file_digest(path: Path, offset: int, nbytes: int) -> str:
    """The digest of ``nbytes`` of a file from ``offset``, read in blocks: what :func:`_digest` gives for the
    array stored there, without bringing every page of a memory-mapped column into the process (a column
    the analysis never reads, such as per-event coordinates, then costs no resident memory)."""
    digest = hashlib.sha256()
    block = bytearray(min(nbytes, _READ_BLOCK))
    with open(path, "rb") as fh:
        fh.seek(offset)
        left = nbytes
        while left:
            got = fh.readinto(memoryview(block)[: min(left, len(block))])
            if not got:
                raise DamagedEntry(f"{path.name} is shorter than its header says")
            digest.update(memoryview(block)[:got])
            left -= got
    return digest.hexdigest()


def _write(folder: Path, dataset: Dataset) -> None:
    ev = dataset.events
    meta: dict[str, Any] = {"version": CACHE_VERSION, "scalars": {}, "arrays": [], "checks": {}}
    for f in fields(EventTable):
        value = getattr(ev, f.name)
        if f.name.startswith("_") or f.name == "locations":
            continue
        if isinstance(value, np.ndarray):
            _save(folder, f"ev_{f.name}", value, meta)
            meta["arrays"].append(f.name)
        elif value is not None:
            meta["scalars"][f.name] = list(value) if isinstance(value, tuple) else value
    if ev.locations is not None:
        for name in _LOCATION_FIELDS:
            _save(folder, f"loc_{name}", getattr(ev.locations, name), meta)
    meta["has_locations"] = ev.locations is not None
    h = dataset.hierarchy
    if h is not None:
        meta["hierarchy"] = {"location_level": h.location_level, "levels": list(h.levels)}
        for i, level in enumerate(h.levels):
            _save(folder, f"h{i}_codes", h.unit_codes[level], meta)
            _save(folder, f"h{i}_ids", h.unit_ids[level], meta)
    meta["report"] = dataset.report.to_dict()
    meta["sources"] = [vars(s) for s in dataset.sources]
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")


def load(key: str, options: ReaderOptions) -> Dataset | None:
    """The cached dataset (arrays memory-mapped read-only), or None when absent or of an older layout.

    Raises :class:`DamagedEntry` (after deleting the entry) when its content fails the checks."""
    folder = cache_dir() / key
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        _discard(folder)
        raise DamagedEntry(f"its description cannot be read ({exc})") from None
    if not isinstance(meta, dict) or meta.get("version") != CACHE_VERSION:
        return None
    try:
        dataset = _read(folder, meta, options)
        check_invariants(dataset)
    except DamagedEntry:
        _discard(folder)
        raise
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as exc:
        _discard(folder)
        raise DamagedEntry(f"it cannot be read ({exc})") from None
    return dataset


def _discard(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def check_invariants(dataset: Dataset) -> None:
    """DamagedEntry unless codes are within their dictionaries and rows are sorted by user, then time."""
    ev = dataset.events
    _within(ev.user, 0, ev.n_users, "user codes")
    _within(ev.location, -1, ev.n_locations, "location codes")
    if ev.merchant is not None and ev.merchant_ids is not None:
        _within(ev.merchant, -1, len(ev.merchant_ids), "shop codes")
    if ev.locations is not None and len(ev.locations) < ev.n_locations:
        raise DamagedEntry("fewer place coordinates than locations")
    if not is_sorted(ev.user, ev.time):  # one pass, no event-length temporaries
        raise DamagedEntry("its rows are not sorted by user and time")
    h = dataset.hierarchy
    if h is not None:
        for level in h.levels:
            _within(h.unit_codes[level], -1, len(h.unit_ids[level]), f"{level} codes")


def _within(codes: np.ndarray, low: int, high: int, what: str) -> None:
    if len(codes) and (int(codes.min()) < low or int(codes.max()) >= high):
        raise DamagedEntry(f"{what} outside {low}..{high - 1}")


def _verified(folder: Path, checks: dict[str, list]) -> dict[str, np.ndarray]:
    """Every stored array, memory-mapped, after checking its dtype, shape and digest.

    The digests are computed on as many threads as cores, largest files first (hashlib releases the GIL):
    re-opening a big entry costs about its size divided by the cores, not its whole read.
    """
    arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in checks}
    for name, (dtype, shape, _) in checks.items():
        if arrays[name].dtype.str != dtype or list(arrays[name].shape) != shape:
            raise DamagedEntry(f"{name} does not match the digest written with it")
    order = sorted(checks, key=lambda name: -arrays[name].nbytes)

    def digest_of(name: str) -> str:
        return _file_digest(folder / f"{name}.npy", arrays[name].offset, arrays[name].nbytes)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for name, found in zip(order, pool.map(digest_of, order), strict=True):
            if found != checks[name][2]:
                raise DamagedEntry(f"{name} does not match the digest written with it")
    return arrays


def _read(folder: Path, meta: dict[str, Any], options: ReaderOptions) -> Dataset:
    arrays = _verified(folder, meta["checks"])
    arr = arrays.__getitem__
    kwargs: dict[str, Any] = {name: arr(f"ev_{name}") for name in meta["arrays"]}
    for name, value in meta["scalars"].items():
        kwargs[name] = tuple(value) if name == "interaction_names" else value
    if meta["has_locations"]:
        kwargs["locations"] = LocationTable(*(arr(f"loc_{n}") for n in _LOCATION_FIELDS))
    hierarchy = None
    if "hierarchy" in meta:
        levels = meta["hierarchy"]["levels"]
        hierarchy = Hierarchy(
            meta["hierarchy"]["location_level"],
            tuple(levels),
            {lv: arr(f"h{i}_codes") for i, lv in enumerate(levels)},
            {lv: arr(f"h{i}_ids") for i, lv in enumerate(levels)},
        )
    report = ImportReport.from_dict(meta["report"])
    report.note("re-opened from the columnar cache")
    sources = [SourceFile(**s) for s in meta["sources"]]
    return Dataset(EventTable(**kwargs), hierarchy, report, sources, options)
