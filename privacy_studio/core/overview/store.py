"""The overview cache: one JSON file per input and reader options, in the columnar cache's folder.

Keyed like the columnar cache (size, modification time and sampled blocks of every input file, side files
and reader options); the file also carries its own key and a SHA-256 of its content, and the content must
pass ``DatasetOverview.check`` — an entry failing any of these is deleted and computed again, never shown.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from privacy_studio.core.atomic import WriteError, write_text
from privacy_studio.core.io.cache import cache_dir, cache_key
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.overview import BadOverview, DatasetOverview

#: Bump when the overview's content or the way it is computed changes, so old entries are not reused.
OVERVIEW_VERSION = 1


def overview_key(path: str, options: ReaderOptions) -> str:
    """Key of the overview of ``path`` read with ``options`` (the columnar cache's key, versioned apart)."""
    return f"overview-v{OVERVIEW_VERSION}-{cache_key(os.fspath(path), options)}"


def entry_path(key: str) -> Path:
    return cache_dir() / "overviews" / f"{key}.json"


def _digest(content: dict) -> str:
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def store_overview(key: str, overview: DatasetOverview) -> None:
    """Write the entry atomically; a cache that cannot be written only costs the next opening its time."""
    content = overview.to_dict()
    target = entry_path(key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text(target, json.dumps({"key": key, "sha256": _digest(content), "overview": content}))
    except (OSError, WriteError):
        return


def cached_overview(key: str) -> DatasetOverview | None:
    """The stored overview of ``key`` once its key, digest and aggregates check out; None otherwise (a
    damaged entry is deleted)."""
    target = entry_path(key)
    try:
        entry = json.loads(target.read_text(encoding="utf-8"))
        content = entry["overview"]
        if entry["key"] != key or entry["sha256"] != _digest(content):
            raise BadOverview("the entry does not match its key or digest")
        return DatasetOverview.from_dict(content)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError):  # BadOverview is a ValueError
        target.unlink(missing_ok=True)
        return None
