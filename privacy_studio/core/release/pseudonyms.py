"""Fresh pseudonyms for a release, from the operating system's cryptographically secure generator."""

from __future__ import annotations

import secrets

import numpy as np

#: Random bytes per pseudonym: 64 bits, written as 16 hex digits.
PSEUDONYM_BYTES = 8


def draw_pseudonyms(n: int) -> np.ndarray:
    """``n`` distinct random ids; unrelated to the input ids and to any earlier release."""
    seen: set[str] = set()
    while len(seen) < n:
        seen.add(secrets.token_hex(PSEUDONYM_BYTES))
    drawn = list(seen)
    # A set's order depends on the strings' hashes; shuffle so the order carries no information either.
    order = [secrets.randbelow(1 << 62) for _ in range(n)]
    return np.asarray(drawn, dtype=str)[np.argsort(order, kind="stable")] if n else np.asarray([], dtype=str)
