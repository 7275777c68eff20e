"""Slow, obviously-correct anonymity sets of the scikit-mobility-style knowledge models (metrics.md §2).

Each person is a list of points in time order. Everything is plain Python over every user: no index, no
pruning. ``skmob_*`` functions follow scikit-mobility's own code where it differs from the studio's
definitions (tolerance relative to the candidate, proportions of the most visited known place, home/work
from the two least visited places), so the docs can show both.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations


def is_subsequence(needle: list, hay: list) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


def matches(model: str, tol: float, known_events: list, owner: list, candidate: list) -> bool:
    """Does ``candidate`` (points in time order) match knowledge of ``owner`` under the studio's rules?

    ``known_events`` are the known items: events (records, sequence) in time order, or distinct points.
    """
    mine, theirs = Counter(owner), Counter(candidate)
    if model == "records":
        return all(theirs[x] >= m for x, m in Counter(known_events).items())
    if model == "sequence":
        return is_subsequence(known_events, candidate)
    if model in ("frequency", "proportion"):
        for x in known_events:
            if model == "frequency":
                want, got = mine[x], theirs[x]
            else:
                want, got = mine[x] / len(owner), theirs[x] / len(candidate)
            if theirs[x] == 0 or abs(got - want) > tol * want * (1 + 1e-9) + 1e-9 * want:
                return False
        return True
    raise ValueError(model)


def top_two(trace: list) -> frozenset:
    """The two most visited points (ties: lowest point)."""
    counts = Counter(trace)
    return frozenset(sorted(counts, key=lambda x: (-counts[x], x))[:2])


def size(model: str, tol: float, known: list, owner: list, traces: list[list]) -> int:
    """|E|: people matching the knowledge (homework: same top two as ``owner``)."""
    if model == "homework":
        return sum(top_two(t) == top_two(owner) for t in traces)
    return sum(matches(model, tol, known, owner, t) for t in traces)


def items(model: str, trace: list) -> list:
    """What the attacker may know of a trace: its events in order, or its distinct points."""
    return list(trace) if model in ("records", "sequence") else sorted(set(trace))


def worst(model: str, tol: float, p: int, u: int, traces: list[list], all_points: bool) -> float | None:
    """max 1/|E| over every choice of p items of person u (None: excluded, fewer than p items)."""
    owner = traces[u]
    if model == "homework":
        return 1 / size(model, tol, [], owner, traces)
    stuff = items(model, owner)
    if len(stuff) < p and not all_points:
        return None
    take = min(p, len(stuff))
    return max(
        1 / size(model, tol, [stuff[i] for i in chosen], owner, traces)
        for chosen in combinations(range(len(stuff)), take)
    )


# -- scikit-mobility's own semantics ------------------------------------------------------------------------


def skmob_risk(attack: str, k: int, u: int, traces: list[list], tol: float = 0.0) -> float:
    """What scikit-mobility's ``assess_risk`` reports for person u (worst case, all points when short)."""
    owner = traces[u]
    if attack == "homework":
        least = _skmob_order(owner)[:2]  # its frequency vector is sorted ascending: the least visited
        return 1 / sum(set(least) <= set(_skmob_order(t)[:2]) for t in traces)
    if attack in ("location", "sequence"):
        stuff = list(owner)
    else:
        counts = Counter(owner)
        stuff = [(x, counts[x]) for x in _skmob_order(owner)]
    take = min(k, len(stuff))
    best = 0.0
    for chosen in combinations(stuff, take):
        n = sum(_skmob_match(attack, list(chosen), t, tol) for t in traces)
        best = max(best, 1 / n)
    return best


def _skmob_order(trace: list) -> list:
    """A person's places by visit count ascending, ties by place (its stable sort after a groupby)."""
    counts = Counter(trace)
    return sorted(counts, key=lambda x: (counts[x], x))


def _skmob_match(attack: str, known: list, candidate: list, tol: float) -> bool:
    theirs = Counter(candidate)
    if attack == "location":
        return all(theirs[x] >= m for x, m in Counter(known).items())
    if attack == "sequence":
        return is_subsequence(known, candidate)
    if any(theirs[x] == 0 for x, _ in known):
        return False
    if attack == "frequency":  # the candidate's count decides the band
        return all(theirs[x] * (1 - tol) <= f <= theirs[x] * (1 + tol) for x, f in known)
    # proportion: each side's counts divided by its largest count among the known places
    top_known = max(f for _, f in known)
    top_theirs = max(theirs[x] for x, _ in known)
    return all(
        theirs[x] / top_theirs * (1 - tol) <= f / top_known <= theirs[x] / top_theirs * (1 + tol)
        for x, f in known
    )
