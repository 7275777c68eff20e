"""Profiling attack (metrics.md §6): per-user location histograms of two periods, a distance between them,
minimum-cost assignment, and accuracy / top-k accuracy against the population size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from privacy_studio.core.choices import DEFAULT_SIZES, DEFAULT_TOP_K, PROFILING_DISTANCES
from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import MONDAY_EPOCH, SpatialLevel, spatial_units
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.attacks import TERM_DOT, TERM_JS, TERM_L1, pair_scores, rank_of_target
from privacy_studio.core.kernels.csr import dedupe_segments
from privacy_studio.core.measures.attacks.shared_space import merge_tables, truth_pairs
from privacy_studio.core.measures.attacks.sparse_users import (
    UserVectors,
    check_pair_budget,
    shuffled,
    split_on_shared_bins,
)
from privacy_studio.core.progress import TaskControl, as_control

DISTANCES = PROFILING_DISTANCES
HOURS_PER_WEEK = 168


@dataclass
class ProfilingResult:
    """Accuracy of the profiling attack for growing populations (the last entry is the whole population)."""

    distance: str
    spatial: str
    hour_of_week: bool
    n_identified: int
    n_anonymous: int
    n_true_pairs: int
    curve: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"attack": "profiling", **self.__dict__}


def location_histograms(
    events: EventTable, level: SpatialLevel, hierarchy: Hierarchy | None, hour_of_week: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR event counts per user over spatial units (or unit x hour-of-week cells)."""
    key = spatial_units(events, level, hierarchy).of_event
    if hour_of_week:
        how = ((events.local_time() - MONDAY_EPOCH) // 3600) % HOURS_PER_WEEK
        key = key * HOURS_PER_WEEK + how
    return dedupe_segments(events.user_offsets(), key)


def profiling_costs(first: UserVectors, second: UserVectors, distance: str = "js") -> np.ndarray:
    """Cost (lower = more alike) of every pair of histograms: JS divergence, cosine or L1 distance, -dot."""
    if distance not in DISTANCES:
        raise ValueError(f"unknown distance {distance!r}; use one of {', '.join(DISTANCES)}")
    check_pair_budget(first.n_users, second.n_users)
    norm = 2 if distance == "cosine" else 1
    p, q = first.normalized(norm), second.normalized(norm)
    base = {"js": np.log(2.0), "cosine": 1.0, "l1": 2.0, "dot": 0.0}[distance]
    kind = {"js": TERM_JS, "cosine": TERM_DOT, "l1": TERM_L1, "dot": TERM_DOT}[distance]
    bin_indptr, bin_users, bin_vals = q.by_bin()
    empty = np.zeros(p.n_bins)
    return pair_scores(
        p.indptr, p.keys, p.vals, bin_indptr, bin_users, bin_vals,
        np.full(p.n_users, base), np.zeros(q.n_users), kind, empty, empty, empty,
    )  # fmt: skip


def accuracy_at(costs: np.ndarray, truth: np.ndarray, top_k: tuple[int, ...]) -> dict:
    """Share of true pairs the minimum-cost assignment recovers, and share ranked within the k cheapest
    (a partner tied with t others counts by its chance to be among them under a random order of the tie)."""
    rows, cols = linear_sum_assignment(costs)
    paired = truth >= 0
    n_true = int(paired.sum())
    correct = int((truth[rows] == cols).sum())
    better, tied = (a[paired] for a in rank_of_target(costs, truth))
    out = {"accuracy": correct / n_true if n_true else None, "correct": correct}
    for k in top_k:
        # Chance that the true partner is among the k cheapest when ties are ordered at random.
        credit = np.clip(k - better, 0, tied + 1) / (tied + 1)
        out[f"top_{k}"] = float(credit.mean()) if n_true else None
    return out


def profiling_attack(
    first: UserVectors,
    second: UserVectors,
    truth: np.ndarray,
    distance: str = "js",
    sizes: tuple[int, ...] = DEFAULT_SIZES,
    top_k: tuple[int, ...] = DEFAULT_TOP_K,
    seed: int = 0,
    control: TaskControl | None = None,
) -> list[dict]:
    """Accuracy for random sub-populations of true pairs of each size, then for the whole population."""
    ctl = as_control(control)
    bad = [v for v in (*sizes, *top_k) if v < 1]
    if bad:
        raise ValueError(f"population sizes and top-k values must be at least 1, got {bad[0]}")
    ctl.report(0.0, "distances between histograms")
    second, truth, _ = shuffled(second, truth, seed)  # assignment ties become fair guesses
    costs = profiling_costs(first, second, distance)
    pairs_u = np.flatnonzero(truth >= 0)
    rng = np.random.default_rng(seed)
    steps = [s for s in sizes if s < len(pairs_u)]
    curve = []
    for i, size in enumerate(steps):
        ctl.report(0.2 + 0.8 * i / (len(steps) + 1), f"population {size}")
        pick = np.sort(rng.choice(pairs_u, size=size, replace=False))
        perm = rng.permutation(size)  # partners in random column order, not on the diagonal
        sub_truth = np.empty(size, dtype=np.int64)
        sub_truth[perm] = np.arange(size)
        sub = costs[np.ix_(pick, truth[pick][perm])]
        curve.append({"population": size, **accuracy_at(sub, sub_truth, top_k)})
    ctl.report(0.2 + 0.8 * len(steps) / (len(steps) + 1), "whole population")
    curve.append({"population": int(min(first.n_users, second.n_users)), **accuracy_at(costs, truth, top_k)})
    return curve


def run_profiling(
    identified: EventTable,
    anonymous: EventTable,
    spatial: SpatialLevel,
    *,
    distance: str = "js",
    hour_of_week: bool = False,
    hierarchy_identified: Hierarchy | None = None,
    hierarchy_anonymous: Hierarchy | None = None,
    links: list[tuple[str, str]] | None = None,
    sizes: tuple[int, ...] = DEFAULT_SIZES,
    top_k: tuple[int, ...] = DEFAULT_TOP_K,
    seed: int = 0,
    control: TaskControl | None = None,
) -> ProfilingResult:
    """The whole profiling attack: period 1 (identified) against period 2 (anonymous)."""
    ctl = as_control(control)
    check_pair_budget(identified.n_users, anonymous.n_users)  # refused before the merge, as matching
    ctl.report(0.0, "histograms of both periods")
    merged = merge_tables(identified, anonymous, hierarchy_identified, hierarchy_anonymous)
    indptr, keys, counts = location_histograms(merged.events, spatial, merged.hierarchy, hour_of_week)
    first, second = split_on_shared_bins(indptr, keys, counts, merged.n_first)
    truth = truth_pairs(identified.user_ids, anonymous.user_ids, links)
    curve = profiling_attack(first, second, truth, distance, sizes, top_k, seed, ctl.sub(0.1, 1.0))
    return ProfilingResult(
        distance, spatial.label, hour_of_week, first.n_users, second.n_users, int((truth >= 0).sum()), curve
    )
