"""Fresh pseudonyms for a release, from the operating system's cryptographically secure generator."""

from __future__ import annotations

import secrets

import numpy as np

#: Random bytes per pseudonym: 64 bits, written as 16 hex digits.
PSEUDONYM_BYTES = 8


def draw_pseudonyms(n: int) -> np.ndarray:
    """``n`` distinct random ids in the order drawn; unrelated to the input ids and to any earlier release."""
    drawn: list[str] = []
    seen: set[str] = set()
    while len(drawn) < n:
        candidate = secrets.token_hex(PSEUDONYM_BYTES)
        if candidate not in seen:  # a repeat among 2^64 values is unlikely, but two people never share one
            seen.add(candidate)
            drawn.append(candidate)
    return np.asarray(drawn, dtype=f"<U{2 * PSEUDONYM_BYTES}")
