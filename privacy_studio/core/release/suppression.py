"""Optional suppression on a profile's traces: rare points, people with too many points, unique traces.

Each step keeps the users (codes stay aligned with the events) and removes points from their traces; a
person whose trace becomes empty is not released. The order is fixed so every guarantee holds on the
result: cap points per person, drop rare points, keep k-anonymous people, then drop points that became
rare because people left (that last pass can only merge classes, never split them); each step is
reported on its own. When the file publishes event counts, k-anonymity compares (point, count) pairs,
since that is what a reader of the file sees.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from privacy_studio.core.generalize import Traces
from privacy_studio.core.kernels.gil_free import cumsum64, repeat
from privacy_studio.core.measures.kanonymity import class_sizes
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.release.options import ReleaseOptions

#: What each step does, in words (the threshold goes in the braces).
STEP_TEXT = {
    "max_points_per_person": "at most {} points per person (the most visited kept)",
    "min_people_per_point": "place-time points of fewer than {} people dropped",
    "k_anonymity": "people whose whole trace is shared by fewer than {} people dropped",
}


@dataclass(frozen=True)
class Removal:
    """What one suppression step took out: people no longer released, their events and (person, point)s.

    ``again`` marks the second pass over rare points, made after k-anonymity removed people.
    """

    step: str
    people: int
    events: int
    points: int
    again: bool = False

    def describe(self, threshold: int) -> str:
        """The step in words, e.g. "place-time points of fewer than 5 people dropped (again, …)"."""
        text = STEP_TEXT[self.step].format(threshold)
        return f"{text} (again, after k-anonymity)" if self.again else text


def keep_rows(traces: Traces, keep: np.ndarray) -> Traces:
    """The traces with only the (person, point) rows where ``keep`` is true; users keep their codes."""
    kept_before = np.concatenate([[0], cumsum64(keep)])
    lengths = kept_before[traces.indptr[1:]] - kept_before[traces.indptr[:-1]]
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return replace(traces, indptr=indptr, points=traces.points[keep], counts=traces.counts[keep])


def _removal(step: str, before: Traces, after: Traces, again: bool = False) -> Removal:
    people = int(((before.lengths() > 0) & (after.lengths() == 0)).sum())
    events = int(before.counts.sum() - after.counts.sum())
    return Removal(step, people, events, int(before.nnz - after.nnz), again)


#: Point ids are counted with a sort instead of an array per id when the largest is this many times the rows.
SPARSE_IDS = 8


def row_users(traces: Traces) -> np.ndarray:
    """The user code of every (person, point) row."""
    return repeat(np.arange(traces.n_users, dtype=np.int64), traces.lengths())


def cap_points(traces: Traces, n: int) -> Traces:
    """Keep each person's ``n`` most visited points (most events first; ties go to the earlier point)."""
    users = row_users(traces)
    order = np.lexsort((traces.points, -traces.counts, users))
    rank = np.empty(traces.nnz, dtype=np.int64)
    rank[order] = np.arange(traces.nnz) - traces.indptr[users[order]]
    return keep_rows(traces, rank < n)


def people_per_row_point(traces: Traces) -> np.ndarray:
    """For each (person, point) row, the number of people whose trace holds its point (a person lists a
    point at most once). A count per point id (``bincount``, fast) when the ids are dense; over the distinct
    points, sorted, when they are sparse: Gowalla at raw × 1 hour has ids up to 282 million, a 2.2 GB count
    array (7 s) for a few million rows."""
    largest = int(traces.points.max())
    if largest < SPARSE_IDS * traces.nnz:
        return np.bincount(traces.points, minlength=largest + 1)[traces.points]
    _, inverse, counts = np.unique(traces.points, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)]


def drop_rare_points(traces: Traces, m: int) -> Traces:
    """Remove the points held by fewer than ``m`` people."""
    if traces.nnz == 0:
        return traces
    return keep_rows(traces, people_per_row_point(traces) >= m)


def with_counts(traces: Traces) -> Traces:
    """The traces with each point made a (point, event count) pair, still ascending within each person."""
    width = int(traces.counts.max()) + 1 if traces.nnz else 1
    pairs = traces.points.astype(np.int64) * width + traces.counts
    return replace(traces, points=pairs)


def keep_k_anonymous(traces: Traces, k: int, counts: bool = False) -> Traces:
    """Keep only the people whose whole trace (with ``counts``: set of (point, event count) pairs, as a file
    that publishes counts shows it) is shared by at least ``k`` released people."""
    # people with empty traces form their own class: they never join others
    sizes = class_sizes(with_counts(traces) if counts else traces)
    keep_user = sizes >= k
    return keep_rows(traces, keep_user[row_users(traces)])


#: The steps in the order they are applied: option name and the function applying it.
STEPS = (
    ("max_points_per_person", cap_points),
    ("min_people_per_point", drop_rare_points),
    ("k_anonymity", keep_k_anonymous),
)


@dataclass
class Suppressed:
    """The traces after every chosen step, what each step removed and the traces right after each one."""

    traces: Traces
    removals: list[Removal]
    after_step: list[Traces]


def suppress(traces: Traces, options: ReleaseOptions, control: TaskControl | None = None) -> Suppressed:
    """Apply the chosen steps in the fixed order; rare points get a second pass after k-anonymity."""
    control = as_control(control)
    chosen = [
        (name, step, getattr(options, name)) for name, step in STEPS if getattr(options, name) is not None
    ]
    if options.k_anonymity is not None and options.min_people_per_point is not None:
        chosen.append(("min_people_per_point", drop_rare_points, options.min_people_per_point))
    result = Suppressed(traces, [], [])
    for i, (name, step, value) in enumerate(chosen):
        control.report(i / len(chosen), name.replace("_", " "))
        if step is keep_k_anonymous:
            kept = keep_k_anonymous(result.traces, value, options.publishes_counts)
        else:
            kept = step(result.traces, value)
        again = any(r.step == name for r in result.removals)
        result.removals.append(_removal(name, result.traces, kept, again))
        result.after_step.append(kept)
        result.traces = kept
    control.report(1.0, "suppression done")
    return result
