"""Sparse per-user vectors over a compact bin space, and their inverted index (bin -> users)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.generalize import Traces
from privacy_studio.core.kernels.gil_free import repeat

#: Largest score matrix the attacks build (float64 entries, about 3.2 GB); the assignment needs it dense.
MAX_PAIRS = 400_000_000


def check_pair_budget(n_first: int, n_second: int) -> None:
    """Refuse populations whose dense score matrix would not fit, with a message saying what to do."""
    if n_first * n_second > MAX_PAIRS:
        raise ValueError(
            f"{n_first:,} x {n_second:,} users need a {n_first * n_second * 8 / 1e9:.1f} GB score matrix; "
            f"the limit is {MAX_PAIRS * 8 / 1e9:.1f} GB: attack a sample of the users (e.g. 20,000 per side)"
        )


@dataclass
class UserVectors:
    """CSR rows: user ``u`` has values ``vals[indptr[u]:indptr[u+1]]`` at bins ``keys[...]`` (ascending)."""

    indptr: np.ndarray  # int64
    keys: np.ndarray  # int64 compact bin codes
    vals: np.ndarray  # float64
    n_bins: int

    @property
    def n_users(self) -> int:
        return len(self.indptr) - 1

    def row_of(self) -> np.ndarray:
        """User code of every stored entry."""
        return repeat(np.arange(self.n_users), np.diff(self.indptr))

    def by_bin(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Inverted index: ``(bin_indptr, users, vals)`` with the users of bin b in ascending order."""
        users = self.row_of()
        order = np.lexsort((users, self.keys))
        counts = np.bincount(self.keys, minlength=self.n_bins)
        bin_indptr = np.zeros(self.n_bins + 1, dtype=np.int64)
        np.cumsum(counts, out=bin_indptr[1:])
        return bin_indptr, users[order].astype(np.int64), self.vals[order]

    def normalized(self, order: int) -> UserVectors:
        """Rows scaled to unit L1 (``order=1``) or L2 (``order=2``) norm; empty rows stay empty."""
        sums = np.bincount(self.row_of(), weights=np.abs(self.vals) ** order, minlength=self.n_users)
        scale = np.where(sums > 0, sums ** (1.0 / order), 1.0)
        return UserVectors(
            self.indptr, self.keys, self.vals / repeat(scale, np.diff(self.indptr)), self.n_bins
        )

    def reordered(self, order: np.ndarray) -> UserVectors:
        """The same vectors with user ``order[i]`` as user ``i``."""
        lengths = np.diff(self.indptr)[order]
        indptr = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        take = repeat(self.indptr[order] - indptr[:-1], lengths) + np.arange(indptr[-1])
        return UserVectors(indptr, self.keys[take], self.vals[take], self.n_bins)


def shuffled(second: UserVectors, truth: np.ndarray, seed: int) -> tuple[UserVectors, np.ndarray, np.ndarray]:
    """The second population in a seeded random order, the truth in its new codes, and the order.

    The assignment solver breaks ties by position; with the truth on the diagonal (equal ids) an attack with
    no information would look perfect. Shuffling makes ties a fair guess.
    """
    order = np.random.default_rng(seed).permutation(second.n_users)
    new_code = np.empty_like(order)
    new_code[order] = np.arange(len(order))
    return second.reordered(order), np.where(truth >= 0, new_code[np.maximum(truth, 0)], -1), order


def split_on_shared_bins(
    indptr: np.ndarray, keys: np.ndarray, vals: np.ndarray, n_first: int
) -> tuple[UserVectors, UserVectors]:
    """Split merged CSR rows into the first ``n_first`` users and the rest, on compact common bin codes."""
    uniq, compact = np.unique(keys, return_inverse=True)
    compact = compact.astype(np.int64).ravel()
    cut = indptr[n_first]
    first = UserVectors(indptr[: n_first + 1].copy(), compact[:cut], vals[:cut].astype(np.float64), len(uniq))
    second = UserVectors(indptr[n_first:] - cut, compact[cut:], vals[cut:].astype(np.float64), len(uniq))
    return first, second


def split_traces(traces: Traces, n_first: int) -> tuple[UserVectors, UserVectors]:
    """Event counts per point of the two datasets generalized together."""
    return split_on_shared_bins(traces.indptr, traces.points, traces.counts, n_first)
