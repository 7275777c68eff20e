"""Slow, obviously correct suppression on plain dictionaries: person -> {point: events}."""

from __future__ import annotations

from collections import Counter

Traces = dict[int, dict[int, int]]


def cap(traces: Traces, n: int) -> Traces:
    """Each person's n points with most events; ties to the smaller point id."""
    return {u: dict(sorted(t.items(), key=lambda pc: (-pc[1], pc[0]))[:n]) for u, t in traces.items()}


def rare(traces: Traces, m: int) -> Traces:
    """Points held by fewer than m people removed."""
    people = Counter(p for t in traces.values() for p in t)
    return {u: {p: c for p, c in t.items() if people[p] >= m} for u, t in traces.items()}


def k_anonymous(traces: Traces, k: int, counts: bool = False) -> Traces:
    """People whose whole (non-empty) trace is shared by fewer than k people emptied; with ``counts`` a trace
    is its set of (point, events) pairs, as a file that publishes counts shows it."""

    def seen(t: dict[int, int]) -> frozenset:
        return frozenset(t.items()) if counts else frozenset(t)

    classes = Counter(seen(t) for t in traces.values())
    return {u: (t if classes[seen(t)] >= k else {}) for u, t in traces.items()}


def suppress(traces: Traces, m: int | None, k: int | None, n: int | None, counts: bool = False) -> Traces:
    if n is not None:
        traces = cap(traces, n)
    if m is not None:
        traces = rare(traces, m)
    if k is not None:
        traces = k_anonymous(traces, k, counts)
        if m is not None:
            traces = rare(traces, m)
    return traces
