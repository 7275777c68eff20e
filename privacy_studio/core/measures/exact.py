"""Exact mode: every measure averaged over all p-subsets of every trace, per person (metrics.md §3).

The amount of work (the number of subsets) is known before anything runs, so it is estimated up front and
reported with an ETA while it runs; cancellation is honoured between chunks of about CHUNK_SUBSETS subsets.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from math import comb

import numpy as np

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.arrays import NO_PRIORS
from privacy_studio.core.kernels.exact import exact_items, intersection_work, item_bounds
from privacy_studio.core.measures.disclosure import point_priors
from privacy_studio.core.progress import TaskControl, as_control

#: Subsets per work item: a longer trace is cut into several items so threads share it.
ITEM_SUBSETS = 200_000
#: Subsets per kernel call: progress, ETA and cancellation happen between calls.
CHUNK_SUBSETS = 4_000_000
#: Subsets per second and core assumed by the estimate made before starting (measured on GeoLife and
#: Gowalla NYC at 2.7M-37M for sizes alone, about 1M with EM / KL; taken on the slow side).
RATE_SIZES = 3_000_000
RATE_WITH_EM = 300_000
#: Posting-list entries per second and core that intersecting a subset's lists walks (``intersection_work``):
#: sorted lists galloped at about 15M, bitmap filters faster (measured at 300k people, zip and district ×
#: 1w/12h, p = 2-3, under load; taken on the slow side). A coarse profile's p = 2 can cost 1,000 entries a
#: subset, so counting subsets alone planned minutes as seconds.
RATE_LIST = 15_000_000
#: More subsets than this cannot be counted in 64 bits: refused outright.
MAX_COUNTABLE = 2**62


def total_subsets(lengths: np.ndarray, p: int) -> int:
    """Σ_u C(|T_u|, p): the exact number of (person, p-subset) pairs."""
    return subsets_of(length_counts(lengths), p)


def length_counts(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct trace lengths and how many people have each: all :func:`subsets_of` needs (counted once
    for every p, not once per p: 78 ms for 10M people)."""
    return np.unique(np.asarray(lengths), return_counts=True)


def subsets_of(counted: tuple[np.ndarray, np.ndarray], p: int) -> int:
    """:func:`total_subsets` from the counted lengths."""
    values, counts = counted
    return sum(comb(int(m), p) * int(c) for m, c in zip(values, counts, strict=True))


def cheap_p_values(index: PointIndex, p_values: list[int], budget_seconds: float, threads: int) -> list[int]:
    """The p values whose enumeration (set sizes only) fits ``budget_seconds`` together, cheapest first: there
    unicity, k-disclosure and the worst case are computed exactly instead of sampled.

    A p costs its subsets at :data:`RATE_SIZES` plus the posting-list entries intersecting them walks at
    :data:`RATE_LIST` (counted only once the subsets alone fit: that count sorts every trace's lists)."""
    counted = length_counts(np.diff(index.trace_ptr))
    cores = max(1, threads)
    chosen, spent = [], 0.0
    for p in sorted(set(p_values), key=lambda p: (subsets_of(counted, p), p)):
        seconds = subsets_of(counted, p) / (RATE_SIZES * cores)
        if spent + seconds <= budget_seconds:
            work = intersection_work(index.trace_ptr, index.trace_pts, index.list_len, p)
            seconds += work / (RATE_LIST * cores)
        if spent + seconds > budget_seconds:
            break
        chosen.append(p)
        spent += seconds
    return sorted(chosen)


def work_items(
    lengths: np.ndarray, p: int, item_subsets: int = ITEM_SUBSETS
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Work items (user, first position from, to) covering every p-subset once, with their subset counts.

    A trace with more than ``item_subsets`` subsets is cut by the position of the subset's first point. In
    numba when every count and its product with a trace length fits 64 bits, else in Python.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    longest = int(lengths.max(initial=0))
    if longest >= p and comb(longest, p) * (longest + 1) < 2**62:
        return item_bounds(lengths, p, item_subsets)
    users, first, stop, size = [], [], [], []
    for u in np.flatnonzero(np.asarray(lengths) >= p):
        m = int(lengths[u])
        start, running = 0, 0
        for a in range(m - p + 1):
            running += comb(m - 1 - a, p - 1)  # subsets whose first point is position a
            if running >= item_subsets or a == m - p:
                users.append(u)
                first.append(start)
                stop.append(a + 1)
                size.append(running)
                start, running = a + 1, 0
    as64 = lambda xs: np.asarray(xs, dtype=np.int64)  # noqa: E731
    return as64(users), as64(first), as64(stop), as64(size)


@dataclass
class ExactPass:
    """One p's exact figures per person, over the people with at least p points (``users``, codes)."""

    p: int
    users: np.ndarray
    unique_rate: np.ndarray  # share of the person's p-subsets A with |E(A)| = 1
    k_disclosure: np.ndarray  # mean of 1 / |E(A)| over the person's subsets
    worst: np.ndarray  # max of 1 / |E(A)|
    em: np.ndarray | None  # mean EM_u over the subsets (None when not asked)
    kl: np.ndarray | None
    class_shares: np.ndarray | None  # [k]: Σ over people of the share of their subsets with |E(A)| = k
    em_acc: np.ndarray  # per compact point: Σ over people of the mean (EM_ux - q_x)
    subsets: int  # subsets evaluated (fewer than all when the worst case stopped early)
    stopped_early: bool  # only the worst case was asked: each person stopped at the first |E(A)| = 1


def _eta_text(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(1, round(seconds))} s left"
    if seconds < 5400:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"


class _Totals:
    """Per-person sums of one exact pass, added chunk by chunk from the kernel's per-item results."""

    def __init__(self, index: PointIndex) -> None:
        n = index.n_users
        self.n = n
        self.unique, self.inv_sum, self.em_sum, self.kl_sum = (np.zeros(n) for _ in range(4))
        self.min_size = np.full(n, np.iinfo(np.int64).max)
        self.class_shares = np.zeros(index.max_list + 1)
        self.em_acc = np.zeros(index.n_points)
        self.evaluated = 0

    def add(self, users: np.ndarray, items: tuple, with_em: bool) -> None:
        r_unique, r_inv, r_min, r_em, r_kl, r_done, hist, acc = items
        for total_of, part in (
            (self.unique, r_unique),
            (self.inv_sum, r_inv),
            (self.em_sum, r_em),
            (self.kl_sum, r_kl),
        ):
            total_of += np.bincount(users, weights=part, minlength=self.n)
        np.minimum.at(self.min_size, users, r_min)
        self.class_shares += hist
        if with_em:
            self.em_acc += acc
        self.evaluated += int(r_done.sum())


def exact_pass(
    index: PointIndex,
    p: int,
    with_em: bool,
    stop_at_one: bool = False,
    control: TaskControl | None = None,
    item_subsets: int = ITEM_SUBSETS,
    chunk_subsets: int = CHUNK_SUBSETS,
) -> ExactPass:
    """Enumerate every p-subset of every trace in chunks (progress with ETA, cancellation between chunks)."""
    control = as_control(control)
    lengths = np.diff(index.trace_ptr)
    total = total_subsets(lengths, p)
    if total > MAX_COUNTABLE:
        raise ValueError(f"exact mode at p = {p} would evaluate over 2^62 subsets: use the sampled mode")
    item_user, item_first, item_stop, item_size = work_items(lengths, p, item_subsets)
    chunk_of = (np.cumsum(item_size) - 1) // chunk_subsets
    bounds = np.concatenate([[0], np.flatnonzero(np.diff(chunk_of)) + 1, [len(item_user)]])
    priors = point_priors(index.list_len, index.n_users) if with_em else NO_PRIORS
    arrays = index.arrays()
    totals = _Totals(index)
    covered = 0
    t0 = time.perf_counter()
    for a, b in itertools.pairwise(bounds):
        elapsed = time.perf_counter() - t0
        eta = f", {_eta_text(elapsed * (total - covered) / covered)}" if covered else ""
        control.report(covered / max(total, 1), f"exact p = {p}: {covered:,} of {total:,} subsets{eta}")
        users = item_user[a:b]
        items = exact_items(p, users, item_first[a:b], item_stop[a:b], arrays, with_em, stop_at_one, priors,
                            index.max_list)  # fmt: skip
        totals.add(users, items, with_em)
        covered += int(item_size[a:b].sum())
    control.report(1.0, f"exact p = {p}: {total:,} subsets done")
    included = np.flatnonzero(lengths >= p)
    sizes, at = np.unique(lengths[included], return_inverse=True)
    n_sub = np.array([float(comb(int(m), p)) for m in sizes])[at.ravel()]  # C(|T_u|, p) per person
    d = float(index.d)
    return ExactPass(
        p=p,
        users=included,
        unique_rate=totals.unique[included] / n_sub,
        k_disclosure=totals.inv_sum[included] / n_sub,
        worst=1.0 / totals.min_size[included],
        em=totals.em_sum[included] / n_sub / d if with_em else None,
        kl=totals.kl_sum[included] / n_sub / d if with_em else None,
        class_shares=None if stop_at_one else totals.class_shares,
        em_acc=totals.em_acc,
        subsets=totals.evaluated,
        stopped_early=stop_at_one,
    )


@dataclass(frozen=True)
class ExactWork:
    """The subsets exact mode enumerates for one profile at one p."""

    profile: str
    p: int
    subsets: int


@dataclass(frozen=True)
class ExactEstimate:
    """The work of an exact run, known before it starts, and a (rough, deliberately slow-side) duration."""

    work: tuple[ExactWork, ...]
    seconds: float
    threads: int

    @property
    def subsets(self) -> int:
        return sum(w.subsets for w in self.work)

    def summary(self) -> str:
        """One sentence: how many subsets, the largest share, and the estimated time."""
        biggest = max(self.work, key=lambda w: w.subsets, default=None)
        where = f" (most at {biggest.profile}, p = {biggest.p}: {biggest.subsets:,})" if biggest else ""
        return (
            f"exact mode will evaluate {self.subsets:,} subsets{where}; estimated "
            f"{_eta_text(self.seconds).removeprefix('about ').removesuffix(' left')} on {self.threads} "
            "thread(s)"
        )


def estimate_exact(
    lengths_by_profile: dict[str, np.ndarray], p_values: list[int], with_em: bool, threads: int
) -> ExactEstimate:
    """Count the subsets of every profile at every p and turn them into a duration at the assumed rates."""
    work = tuple(
        ExactWork(label, p, total_subsets(lengths, p))
        for label, lengths in lengths_by_profile.items()
        for p in p_values
    )
    rate = (RATE_WITH_EM if with_em else RATE_SIZES) * max(1, threads)
    return ExactEstimate(work, sum(w.subsets for w in work) / rate, max(1, threads))
