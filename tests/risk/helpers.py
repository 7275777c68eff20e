"""Small datasets for the risk tests: traces as Python sets and the same data as an EventTable."""

from __future__ import annotations

import numpy as np

from privacy_studio.core.events import EventTable, LocationTable, build_event_table
from privacy_studio.core.generalize import Profile, Traces
from privacy_studio.core.kernels.rng import stream_key
from privacy_studio.core.kernels.sample_pass import order_trace


def traces_from_sets(sets: list[set[int]], d: int, counts: list[list[int]] | None = None) -> Traces:
    """Traces (profile raw x all) whose points are the given sets over d points."""
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(s) for s in sets])
    points = np.concatenate([np.asarray(sorted(s), dtype=np.int64) for s in sets]) if sets else np.zeros(0)
    cnt = np.ones(len(points), dtype=np.int64)
    if counts is not None:
        cnt = np.concatenate([np.asarray(c, dtype=np.int64) for c in counts])
    ids = np.asarray([f"x{j}" for j in range(d)])
    return Traces(Profile.parse("raw", "all"), indptr, points.astype(np.int64), cnt, d, 1, 1, ids, None, 0)


def table_from_sets(sets: list[set[int]], d: int, user_names: list[str] | None = None) -> EventTable:
    """One event per (user, point) at location x<point>, all at time 0; d locations exist."""
    names = user_names or [f"u{i:03d}" for i in range(len(sets))]
    users, locs = [], []
    for name, s in zip(names, sets, strict=True):
        for j in sorted(s):
            users.append(name)
            locs.append(f"x{j}")
    ids = np.asarray([f"x{j}" for j in range(d)])
    nan = np.full(d, np.nan)
    locations = LocationTable(ids, nan, nan, nan, nan)
    return build_event_table(
        np.asarray(users), np.zeros(len(users), dtype=np.int64), np.asarray(locs), locations=locations
    )


WORKED = [{0, 2}, {0, 2, 3}, {2, 3}, {1, 3}]  # metrics.md §4, bins 1..5 as points 0..4
WORKED_KNOWN = {"1": ["b3"], "2": ["b1"], "3": ["b4"], "4": ["b2", "b4"]}


def knowledge_orders(
    kind: int,
    ptr: np.ndarray,
    pts: np.ndarray,
    cnt: np.ndarray,
    list_len: np.ndarray,
    seed: int,
    draws: int,
    pmax: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Every user's knowledge orders (n, draws, pmax) and their lengths m, drawn point by point with the
    sampled pass's own order and random streams: the oracle of the knowledge draws the estimate makes."""
    n = len(ptr) - 1
    orders = np.zeros((n, draws, pmax), dtype=np.int64)
    m = np.minimum(pmax, np.diff(ptr)).astype(np.int64)
    keys = np.empty(max(1, int(np.diff(ptr).max(initial=1))))
    out = np.empty(pmax, dtype=np.int64)
    for u in range(n):
        a, b = ptr[u], ptr[u + 1]
        for r in range(draws):
            key = np.uint64(stream_key(seed, u, r))  # numba hands a uint64 back as a Python int
            order_trace(kind, pts[a:b], cnt[a:b], list_len, key, m[u], keys, out)
            orders[u, r, : m[u]] = out[: m[u]]
    return orders, m
