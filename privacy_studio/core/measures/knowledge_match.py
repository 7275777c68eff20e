"""Anonymity sets under the knowledge models of scikit-mobility's attacks (metrics.md §2).

``records``, ``sequence``, ``frequency``, ``proportion`` and ``homework`` know more than a set of points
(repeated visits, order, counts, shares, the two most visited places), so a candidate must also pass the
model's rule. Candidates are first narrowed to the users visiting every known point (posting lists), then
the rule is checked on those few. The sizes feed the same unicity, k-disclosure and worst-case summaries as
the inclusion models.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import Profile, event_points
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.csr import dedupe_segments
from privacy_studio.core.kernels.gil_free import repeat
from privacy_studio.core.knowledge import MatchingModel, Proportion, Records, Sequence
from privacy_studio.core.progress import TaskControl

#: A user's worst case is enumerated over every knowledge instance when there are at most this many.
WORST_ENUMERATION_LIMIT = 64
#: Relative slack of the tolerance comparisons, so that 0.1 · 30 = 3 counts as within 3.
_SLACK = 1e-9


@dataclass
class UserPoints:
    """Every user's points under one profile: time-ordered per event, distinct with counts, and by point."""

    event_ptr: np.ndarray  # CSR offsets per user into event_points
    event_points: np.ndarray  # point of each event, users' events in time order
    trace_ptr: np.ndarray  # CSR offsets per user into trace_points
    trace_points: np.ndarray  # distinct points, ascending per user
    trace_counts: np.ndarray  # the user's events at each
    point_ids: np.ndarray  # every visited point, ascending
    post_ptr: np.ndarray  # CSR offsets per point into post_users
    post_users: np.ndarray  # users visiting the point, ascending
    post_counts: np.ndarray  # their events there

    @classmethod
    def build(
        cls, events: EventTable, profile: Profile, hierarchy: Hierarchy | None, spatial_only: bool
    ) -> UserPoints:
        """Points of ``profile`` (spatial units alone when ``spatial_only``) of every event and user."""
        mapped = event_points(events, profile, hierarchy)
        key = mapped.key // (mapped.n_bins * mapped.n_price_bins) if spatial_only else mapped.key.copy()
        event_ptr = events.user_offsets()
        trace_ptr, trace_points, trace_counts = dedupe_segments(event_ptr, key.copy(), overwrite_keys=True)
        owner = repeat(np.arange(len(trace_ptr) - 1, dtype=np.int64), np.diff(trace_ptr))
        order = np.lexsort((owner, trace_points))
        point_ids, starts = np.unique(trace_points[order], return_index=True)
        post_ptr = np.append(starts, len(order)).astype(np.int64)
        return cls(
            event_ptr,
            key,
            trace_ptr,
            trace_points,
            trace_counts,
            point_ids,
            post_ptr,
            owner[order],
            trace_counts[order],
        )

    @property
    def n_users(self) -> int:
        return len(self.trace_ptr) - 1

    def events_of(self, u: int) -> np.ndarray:
        return self.event_points[self.event_ptr[u] : self.event_ptr[u + 1]]

    def trace_of(self, u: int) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.trace_ptr[u], self.trace_ptr[u + 1]
        return self.trace_points[a:b], self.trace_counts[a:b]

    def visitors(self, point: int) -> tuple[np.ndarray, np.ndarray]:
        """Users visiting ``point`` (ascending) and their event counts there."""
        k = int(np.searchsorted(self.point_ids, point))
        a, b = self.post_ptr[k], self.post_ptr[k + 1]
        return self.post_users[a:b], self.post_counts[a:b]


@dataclass
class Known:
    """One knowledge instance: distinct known points with the value the rule compares, and an order."""

    points: np.ndarray  # distinct points
    values: np.ndarray  # times known (records), the user's count (frequency) or share (proportion)
    sequence: np.ndarray | None = None  # the known points in time order (sequence)


class Matcher:
    """Anonymity-set sizes of knowledge instances under one model, on one profile's points."""

    def __init__(self, model: MatchingModel, points: UserPoints) -> None:
        self.model = model
        self.points = points
        self.totals = np.add.reduceat(points.trace_counts, points.trace_ptr[:-1]) if points.n_users else None
        if self.totals is not None:
            self.totals[np.diff(points.trace_ptr) == 0] = 0
        self.top_two = _top_two_keys(points) if model.name == "homework" else None

    def items(self, u: int) -> int:
        """How many things of user ``u`` the attacker can know: events, distinct points, or one top two."""
        if self.model.name == "homework":
            return 1
        if self.model.on_events:
            return len(self.points.events_of(u))
        return len(self.points.trace_of(u)[0])

    def known(self, u: int, chosen: np.ndarray) -> Known:
        """The instance made of the user's items ``chosen`` (event or distinct-point indices)."""
        if self.model.on_events:
            seq = self.points.events_of(u)[np.sort(chosen)]
            pts, times = np.unique(seq, return_counts=True)
            return Known(pts, times.astype(np.float64), seq if isinstance(self.model, Sequence) else None)
        pts, counts = self.points.trace_of(u)
        pts, counts = pts[chosen], counts[chosen].astype(np.float64)
        if isinstance(self.model, Proportion):
            counts = counts / self.totals[u]
        order = np.argsort(pts)
        return Known(pts[order], counts[order])

    def size(self, u: int, known: Known | None = None) -> int:
        """|E|: the users matching ``known`` (for homework: the users with ``u``'s top two)."""
        if self.top_two is not None:
            return int(np.count_nonzero(self.top_two == self.top_two[u]))
        assert known is not None
        users, counts = self._visiting_all(known.points)
        ok = np.ones(len(users), dtype=bool)
        if isinstance(self.model, Records):
            ok = (counts >= known.values).all(axis=1)
        elif self.model.name in ("frequency", "proportion"):
            mine = counts / self.totals[users][:, None] if isinstance(self.model, Proportion) else counts
            room = self.model.tolerance * known.values * (1 + _SLACK) + _SLACK * known.values
            ok = (np.abs(mine - known.values) <= room).all(axis=1)
        elif known.sequence is not None:
            ok = np.fromiter(
                (_is_subsequence(known.sequence, self.points.events_of(int(v))) for v in users),
                bool,
                len(users),
            )
        return int(ok.sum())

    def _visiting_all(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Users visiting every point, and their counts there (users x points), rarest list first."""
        lists = [self.points.visitors(int(x)) for x in points]
        first = int(np.argmin([len(users) for users, _ in lists]))
        users = lists[first][0]
        keep = [np.arange(len(users))] * len(lists)
        for j, (other, _) in enumerate(lists):
            if j == first:
                continue
            users, mine, theirs = np.intersect1d(users, other, assume_unique=True, return_indices=True)
            keep = [k[mine] for k in keep]
            keep[j] = theirs
        counts = np.column_stack(
            [c[keep[j] if j != first else keep[first]] for j, (_, c) in enumerate(lists)]
        )
        return users, counts.astype(np.float64)


def _is_subsequence(needle: np.ndarray, hay: np.ndarray) -> bool:
    """``needle`` appears in ``hay`` in order, not necessarily contiguously (greedy earliest match)."""
    i = 0
    for x in hay.tolist():
        if i < len(needle) and x == needle[i]:
            i += 1
    return i == len(needle)


def _top_two_keys(points: UserPoints) -> np.ndarray:
    """Per user a key of the set of its two most visited points (ties: lowest point id); -1 for none."""
    n_points = int(points.point_ids.max()) + 2 if len(points.point_ids) else 2
    keys = np.full(points.n_users, -1, dtype=np.int64)
    for u in range(points.n_users):
        pts, counts = points.trace_of(u)
        if not len(pts):
            continue
        top = np.sort(pts[np.lexsort((pts, -counts))[:2]])
        keys[u] = int(top[0]) * n_points + (int(top[1]) + 1 if len(top) > 1 else 0)
    return keys


@dataclass
class MatchSizes:
    """Anonymity-set sizes of sampled users (S, R, pmax; 0 = excluded) with worst cases (S, pmax)."""

    sizes: np.ndarray
    worst: np.ndarray  # max 1/|E| over the draws, or over every instance where enumerated (NaN: excluded)
    enumerated: np.ndarray  # (S, pmax) bool: the worst case is exact
    short: np.ndarray  # (S, pmax) bool: evaluated on all of fewer than p items (short-traces all-points)


def match_sizes(
    matcher: Matcher,
    users: np.ndarray,
    pmax: int,
    draws: int,
    seed: int,
    all_points: bool,
    control: TaskControl,
) -> MatchSizes:
    """Sizes for every sampled user, draw and p = 1..pmax, nested draws: one random order per (user, draw).

    Users with fewer than p items are excluded at that p, or with ``all_points`` evaluated on all they have.
    """
    draws = draws if matcher.model.random else 1
    shape = (len(users), pmax)
    sizes = np.zeros((len(users), draws, pmax), dtype=np.int64)
    worst, enumerated, short = np.full(shape, np.nan), np.zeros(shape, bool), np.zeros(shape, bool)
    for i, u in enumerate(users.tolist()):
        if i % 200 == 0:
            control.report(i / max(1, len(users)), f"matching users {i + 1:,}–{len(users):,}")
        n_items = matcher.items(u)
        for r in range(draws):
            order = np.random.default_rng([seed, u, r]).permutation(n_items)
            for p in range(1, pmax + 1):
                if n_items == 0 or (p > n_items and not all_points):
                    continue
                known = None if matcher.top_two is not None else matcher.known(u, order[:p])
                sizes[i, r, p - 1] = matcher.size(u, known)
        for p in range(1, pmax + 1):
            got = sizes[i, :, p - 1]
            if got[0] == 0:
                continue
            short[i, p - 1] = p > n_items and matcher.top_two is None
            worst[i, p - 1] = float(np.max(1.0 / got))
            take = min(p, n_items)
            if matcher.top_two is not None or comb(n_items, take) <= WORST_ENUMERATION_LIMIT:
                worst[i, p - 1] = _enumerated_worst(matcher, u, n_items, take)
                enumerated[i, p - 1] = True
    return MatchSizes(sizes, worst, enumerated, short)


def _enumerated_worst(matcher: Matcher, u: int, n_items: int, take: int) -> float:
    """max 1/|E| over every instance of ``take`` of the user's items (stops at 1: it cannot grow)."""
    if matcher.top_two is not None:
        return 1.0 / matcher.size(u)
    best = 0.0
    for chosen in combinations(range(n_items), take):
        best = max(best, 1.0 / matcher.size(u, matcher.known(u, np.asarray(chosen, dtype=np.int64))))
        if best == 1.0:
            break
    return best
