"""The columnar cache: a loaded dataset stored as memory-mappable .npy arrays plus a JSON description.

Entries are keyed by a fingerprint of every input file (size, modification time and a blake2b digest of
sixteen 64 KiB blocks spread over the file, so a 2 GB file is fingerprinted in milliseconds) and by the
reader options. They live in ``$PRIVACY_STUDIO_CACHE`` or ``~/.cache/privacy-studio``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from privacy_studio.core.events import EventTable, LocationTable
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io.dataset import Dataset
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.report import ImportReport, SourceFile

#: Bump when the stored layout or the reading rules change, so old entries are not reused.
CACHE_VERSION = 1
_BLOCK = 1 << 16
_BLOCKS = 16
_LOCATION_FIELDS = ("ids", "lat", "lon", "x_km", "y_km")


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
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=root))
    except OSError:
        return
    try:
        _write(tmp, dataset)
        os.replace(tmp, root / key)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)


def _write(folder: Path, dataset: Dataset) -> None:
    ev = dataset.events
    meta: dict[str, Any] = {"version": CACHE_VERSION, "scalars": {}, "arrays": []}
    for f in fields(EventTable):
        value = getattr(ev, f.name)
        if f.name.startswith("_") or f.name == "locations":
            continue
        if isinstance(value, np.ndarray):
            np.save(folder / f"ev_{f.name}.npy", value)
            meta["arrays"].append(f.name)
        elif value is not None:
            meta["scalars"][f.name] = list(value) if isinstance(value, tuple) else value
    if ev.locations is not None:
        for name in _LOCATION_FIELDS:
            np.save(folder / f"loc_{name}.npy", getattr(ev.locations, name))
    meta["has_locations"] = ev.locations is not None
    h = dataset.hierarchy
    if h is not None:
        meta["hierarchy"] = {"location_level": h.location_level, "levels": list(h.levels)}
        for i, level in enumerate(h.levels):
            np.save(folder / f"h{i}_codes.npy", h.unit_codes[level])
            np.save(folder / f"h{i}_ids.npy", h.unit_ids[level])
    meta["report"] = dataset.report.to_dict()
    meta["sources"] = [vars(s) for s in dataset.sources]
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")


def load(key: str, options: ReaderOptions) -> Dataset | None:
    """The cached dataset (arrays memory-mapped read-only), or None when absent or unreadable."""
    folder = cache_dir() / key
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if meta.get("version") != CACHE_VERSION:
            return None
        return _read(folder, meta, options)
    except (OSError, ValueError, KeyError):
        return None


def _read(folder: Path, meta: dict[str, Any], options: ReaderOptions) -> Dataset:
    def arr(name: str) -> np.ndarray:
        return np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)

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
