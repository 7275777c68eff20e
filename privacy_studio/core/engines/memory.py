"""Memory sizes as the engines take them (8GB, 512MB, 1.5GiB): checked on entry, read by DuckDB."""

from __future__ import annotations

import re

#: A memory size as the engines take it: 8GB, 512MB, 1.5GiB, 2G.
MEMORY_PATTERN = r"\d+(\.\d+)?\s*([KMGT]i?B|[KMGT]|B)"


def is_memory_size(text: str) -> bool:
    """Whether ``text`` is a memory size the engines understand (:data:`MEMORY_PATTERN`)."""
    return re.fullmatch(rf"\s*{MEMORY_PATTERN}\s*", text, re.IGNORECASE) is not None


def memory_bytes(text: str) -> int:
    """Bytes of a memory size as DuckDB reads it: KB/MB/GB/TB (and K/M/G/T) in powers of 1000, KiB/MiB/…
    in powers of 1024, B bytes; ``ValueError`` for anything else."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(i?)B?\s*", text, re.IGNORECASE)
    if not m or not is_memory_size(text):
        raise ValueError(f"memory limit {text!r} not understood (use e.g. 8GB or 512MB)")
    base = 1024 if m.group(3) else 1000
    return int(float(m.group(1)) * base ** " KMGT".index(m.group(2).upper() or " "))
