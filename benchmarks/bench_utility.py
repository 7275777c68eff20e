"""Benchmark of the computed information-loss scores (points lost, density map, OD matrix).

Synthetic events: N users over D days, each moving among a few antennas of their own, antennas nested in
districts. For the finest profile (antenna x 1 h) against (district x 6 h) and (district x 1 w) it times
  generalize      building both profiles' traces (not part of the scores, shown for scale)
  reference       the finest profile's side of every comparison, computed once per grid
  scores          information_loss() of one profile against that reference: all three scores
  python          the plain dict / set computation (the tests' reference) on a slice of the users, scaled
                  per event to the full size — the baseline, measured in the same run
and writes the ratio python / (scores + reference).

Usage: python benchmarks/bench_utility.py [--quick] [--users N] [--days D] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from collections import Counter, defaultdict
from itertools import pairwise
from pathlib import Path

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.utility import information_loss, reference

EVENTS_PER_DAY = 4
ANTENNAS_PER_DISTRICT = 40
MONDAY = 4 * 86400


def synthetic(n_users: int, days: int, seed: int = 1) -> tuple[EventTable, Hierarchy]:
    """Events sorted by (user, time) built straight as arrays (no id factorization: that is not timed)."""
    rng = np.random.default_rng(seed)
    n_antennas = max(ANTENNAS_PER_DISTRICT, n_users // 20)
    per_user = rng.poisson(EVENTS_PER_DAY * days, n_users) + 1
    user = np.repeat(np.arange(n_users, dtype=np.int32), per_user)
    n = len(user)
    places = rng.integers(0, n_antennas, (n_users, 5))
    favourite = np.minimum(rng.geometric(0.45, n) - 1, 4)
    location = places[user, favourite].astype(np.int32)
    time_ = rng.integers(0, days * 86400, n) + 1_709_510_400
    order = np.lexsort((time_, user))
    ids = np.arange(n_antennas).astype(str)
    events = EventTable(
        user=user[order], time=time_[order], location=location[order],
        user_ids=np.arange(n_users).astype(str), location_ids=ids,
    )  # fmt: skip
    district = (np.arange(n_antennas) // ANTENNAS_PER_DISTRICT).astype(str)
    return events, Hierarchy.from_mapping(ids, "antenna", {"district": district})


def python_scores(events: EventTable, district: list, coarse_w: int) -> tuple[float, float, float]:
    """The straightforward way, one event at a time with dicts and sets (fine = antenna x 1 h); like the
    vectorized code it visits only observed cells and adds the unobserved ones per coarse cell."""
    fine_pts, coarse_pts = defaultdict(set), defaultdict(set)
    flows_f, flows_c = Counter(), Counter()
    users, times, locs = events.user.tolist(), events.time.tolist(), events.location.tolist()
    for u, t, loc in zip(users, times, locs, strict=True):
        fine_pts[u].add((loc, (t - MONDAY) // 3600))
        coarse_pts[u].add((district[loc], (t - MONDAY) // coarse_w))
    for i, j in pairwise(range(len(users))):
        if users[i] == users[j]:
            flows_f[(locs[i], locs[j])] += 1
            flows_c[(district[locs[i]], district[locs[j]])] += 1
    m_f = Counter(x for s in fine_pts.values() for x in s)
    m_c = Counter(y for s in coarse_pts.values() for y in s)
    kids = Counter(district[a] for a in set(locs))
    bins = range(min(b for _, b in m_f), max(b for _, b in m_f) + 1)
    hours = Counter(b * 3600 // coarse_w for b in bins)
    density = _spread(
        m_f, m_c, lambda x: (district[x[0]], x[1] * 3600 // coarse_w), lambda y: kids[y[0]] * hours[y[1]]
    )
    od = _spread(
        flows_f, flows_c, lambda x: (district[x[0]], district[x[1]]), lambda y: kids[y[0]] * kids[y[1]]
    )
    lost = 1 - sum(map(len, coarse_pts.values())) / sum(map(len, fine_pts.values()))
    return lost, density, od


def _spread(fine: Counter, coarse: Counter, parent, n_children) -> float:
    error, seen = 0.0, Counter()
    for x, mass in fine.items():
        y = parent(x)
        seen[y] += 1
        error += abs(coarse[y] / n_children(y) - mass)
    error += sum(coarse[y] / n_children(y) * (n_children(y) - seen[y]) for y in coarse)
    return error / (fine.total() + coarse.total())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 users x 7 days")
    parser.add_argument("--users", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--baseline-users", type=int, default=2_000)
    parser.add_argument("--json", default="benchmarks/results/bench_utility.json")
    args = parser.parse_args()
    if args.quick:
        args.users, args.days = 100_000, 7
    events, hierarchy = synthetic(args.users, args.days)
    rows = []
    t = time.perf_counter()
    fine = generalize(events, Profile.parse("antenna", "1h"), hierarchy)
    rows.append(("generalize antenna × 1h", time.perf_counter() - t))
    t = time.perf_counter()
    ref = reference(events, fine, hierarchy)
    ref_seconds = time.perf_counter() - t
    rows.append(("finest-profile reference (once)", ref_seconds))
    small = events.subset_users(np.arange(min(args.baseline_users, args.users)))
    district = hierarchy.unit_codes["district"].tolist()
    for width in ("6h", "1w"):
        profile = Profile.parse("district", width)
        t = time.perf_counter()
        coarse = generalize(events, profile, hierarchy)
        rows.append((f"generalize {profile.label}", time.perf_counter() - t))
        t = time.perf_counter()
        loss = information_loss(events, ref, coarse, hierarchy)
        fast = time.perf_counter() - t
        # Check the baseline computes the same thing on the slice before timing it.
        t = time.perf_counter()
        expected = python_scores(small, district, 3600 * (6 if width == "6h" else 168))
        slow = (time.perf_counter() - t) * events.n_events / small.n_events
        s_fine = generalize(small, Profile.parse("antenna", "1h"), hierarchy)
        check = information_loss(small, s_fine, generalize(small, profile, hierarchy), hierarchy)
        assert np.allclose(expected, (check.points_lost, check.density_error, check.od_error), atol=1e-12)
        rows.append((f"scores vs {profile.label}", fast, slow, loss))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{events.n_events:,} events, {args.users:,} users, {args.days} days; peak memory {peak:,.0f} MB")
    print(f"{'stage':<32}{'seconds':>10}{'python (s, scaled)':>20}{'ratio':>9}")
    out = {"events": events.n_events, "users": args.users, "days": args.days, "peak_mb": peak, "stages": []}
    for row in rows:
        name, seconds = row[0], row[1]
        entry = {"stage": name, "seconds": seconds}
        line = f"{name:<32}{seconds:>10.2f}"
        if len(row) > 2:
            # Conservative: the reference is charged in full to every profile, as if scored alone.
            ratio = row[2] / (seconds + ref_seconds)
            entry |= {"python_seconds": row[2], "ratio_incl_reference": ratio, **row[3].__dict__}
            line += f"{row[2]:>20.1f}{ratio:>8.0f}x"
        print(line)
        out["stages"].append(entry)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(out, indent=2))
    print(f"wrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
