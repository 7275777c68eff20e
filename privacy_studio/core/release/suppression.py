"""Optional suppression on a profile's traces: rare points, people with too many points, unique traces.

Each step keeps the users (codes stay aligned with the events) and removes points from their traces; a
person whose trace becomes empty is not released. The order is fixed so every guarantee holds on the
result: cap points per person, drop rare points, keep k-anonymous people, then drop points that became
rare because people left (that last pass can only merge classes, never split them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from privacy_studio.core.generalize import Traces
from privacy_studio.core.measures.kanonymity import class_sizes
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.release.options import ReleaseOptions


@dataclass(frozen=True)
class Removal:
    """What one suppression step took out: people no longer released, their events and (person, point)s."""

    step: str
    people: int
    events: int
    points: int

    def merged(self, other: Removal) -> Removal:
        return Removal(
            self.step, self.people + other.people, self.events + other.events, self.points + other.points
        )


def keep_rows(traces: Traces, keep: np.ndarray) -> Traces:
    """The traces with only the (person, point) rows where ``keep`` is true; users keep their codes."""
    kept_before = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
    lengths = kept_before[traces.indptr[1:]] - kept_before[traces.indptr[:-1]]
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return replace(traces, indptr=indptr, points=traces.points[keep], counts=traces.counts[keep])


def _removal(step: str, before: Traces, after: Traces) -> Removal:
    people = int(((before.lengths() > 0) & (after.lengths() == 0)).sum())
    return Removal(step, people, int(before.counts.sum() - after.counts.sum()), int(before.nnz - after.nnz))


def row_users(traces: Traces) -> np.ndarray:
    """The user code of every (person, point) row."""
    return np.repeat(np.arange(traces.n_users, dtype=np.int64), traces.lengths())


def cap_points(traces: Traces, n: int) -> Traces:
    """Keep each person's ``n`` most visited points (most events first; ties go to the earlier point)."""
    users = row_users(traces)
    order = np.lexsort((traces.points, -traces.counts, users))
    rank = np.empty(traces.nnz, dtype=np.int64)
    rank[order] = np.arange(traces.nnz) - traces.indptr[users[order]]
    return keep_rows(traces, rank < n)


def people_per_point(traces: Traces) -> np.ndarray:
    """Number of people whose trace holds each point id (a person lists a point at most once)."""
    return np.bincount(traces.points, minlength=int(traces.points.max()) + 1 if traces.nnz else 0)


def drop_rare_points(traces: Traces, m: int) -> Traces:
    """Remove the points held by fewer than ``m`` people."""
    if traces.nnz == 0:
        return traces
    return keep_rows(traces, people_per_point(traces)[traces.points] >= m)


def keep_k_anonymous(traces: Traces, k: int) -> Traces:
    """Keep only the people whose whole trace is shared by at least ``k`` released people."""
    sizes = class_sizes(traces)  # people with empty traces form their own class: they never join others
    keep_user = sizes >= k
    return keep_rows(traces, keep_user[row_users(traces)])


def suppress(
    traces: Traces, options: ReleaseOptions, control: TaskControl | None = None
) -> tuple[Traces, list[Removal]]:
    """Apply the chosen steps in the fixed order; return the traces and what each step removed."""
    control = as_control(control)
    removals: list[Removal] = []
    if options.max_points_per_person is not None:
        control.report(0.0, "capping points per person")
        capped = cap_points(traces, options.max_points_per_person)
        removals.append(_removal("max_points_per_person", traces, capped))
        traces = capped
    if options.min_people_per_point is not None:
        control.report(0.3, "dropping rare points")
        kept = drop_rare_points(traces, options.min_people_per_point)
        removals.append(_removal("min_people_per_point", traces, kept))
        traces = kept
    if options.k_anonymity is not None:
        control.report(0.6, "keeping k-anonymous people")
        kept = keep_k_anonymous(traces, options.k_anonymity)
        removals.append(_removal("k_anonymity", traces, kept))
        traces = kept
        if options.min_people_per_point is not None:
            again = drop_rare_points(traces, options.min_people_per_point)
            second = _removal("min_people_per_point", traces, again)
            removals = [r.merged(second) if r.step == second.step else r for r in removals]
            traces = again
    control.report(1.0, "suppression done")
    return traces, removals
