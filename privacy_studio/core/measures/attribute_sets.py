"""Attribute disclosure of one profile: the figures over whole-trace classes and over the anonymity sets
of the sampled knowledge draws (the maths: ``measures.attributes``; the sets: ``kernels.attribute_sets``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.attribute_sets import set_value_counts, subset_value_counts
from privacy_studio.core.kernels.gil_free import repeat
from privacy_studio.core.measures.attributes import (
    SET,
    TRACE,
    AttributeFigures,
    PersonShares,
    Sensitive,
    figures,
    trace_class_counts,
    trace_classes,
)


@dataclass(frozen=True)
class SetDraws:
    """The knowledge of the anonymity-set figures: the sampled people's draws (model, p, draws, seed), or in
    exact mode every p-subset of everyone's trace."""

    users: np.ndarray  # sampled user codes (exact mode: unused, everyone with p points counts)
    kind: int  # the knowledge model's kernel order (uniform, activity, top, rarest)
    p: int
    draws: int
    seed: int
    all_points: bool  # people with fewer than p points evaluated on all they have (sampled draws only)
    exact: bool = False


#: Exact mode: p-subsets whose value counts are held at once (more only for one person with more).
EXACT_ROWS = 2_000_000


def set_class_counts(
    index: PointIndex, draws: SetDraws, sensitive: Sensitive
) -> tuple[np.ndarray, np.ndarray]:
    """(S, R, m) value counts of each sampled person's anonymity sets and (S,) whether they were included."""
    return set_value_counts(
        np.ascontiguousarray(draws.users, dtype=np.int64),
        index.arrays(),
        index.max_list,
        draws.draws,
        draws.p,
        draws.kind,
        draws.seed,
        draws.all_points,
        np.ascontiguousarray(sensitive.codes, dtype=np.int64),
        sensitive.n_values,
    )


def sampled_shares(
    index: PointIndex,
    draws: SetDraws,
    sensitive: Sensitive,
    l: int,  # noqa: E741
    t: float,
) -> tuple[np.ndarray, PersonShares | None, int]:
    """Own values and per-person shares of the sampled people's draws, and how many were left out."""
    counts, included = set_class_counts(index, draws, sensitive)
    own = sensitive.codes[draws.users[included]]
    k, r = len(own), draws.draws
    if not k:
        return own, None, len(included)
    rows = counts[included].reshape(k * r, -1)
    return own, PersonShares.of(rows, repeat(np.arange(k), r), k, sensitive, l, t), int((~included).sum())


def exact_shares(
    index: PointIndex,
    p: int,
    sensitive: Sensitive,
    l: int,  # noqa: E741
    t: float,
) -> tuple[np.ndarray, PersonShares | None, int]:
    """Own values and per-person shares over every p-subset of everyone with at least p points (a few
    people at a time), and how many had fewer."""
    lengths = np.diff(index.trace_ptr)
    users = np.flatnonzero(lengths >= p).astype(np.int64)
    subsets = np.asarray([math.comb(int(n), p) for n in lengths[users]], dtype=np.int64)
    parts, start = [], 0
    while start < len(users):
        stop = start + max(1, int(np.searchsorted(np.cumsum(subsets[start:]), EXACT_ROWS, side="right")))
        rows = np.concatenate([[0], np.cumsum(subsets[start:stop])]).astype(np.int64)
        counts = subset_value_counts(
            users[start:stop], index.arrays(), index.max_list, p,
            np.ascontiguousarray(sensitive.codes, dtype=np.int64), sensitive.n_values, rows,
        )  # fmt: skip
        owner = repeat(np.arange(stop - start), subsets[start:stop])
        parts.append(PersonShares.of(counts, owner, stop - start, sensitive, l, t))
        start = stop
    shares = PersonShares.joined(parts) if parts else None
    return sensitive.codes[users], shares, len(lengths) - len(users)


def attribute_disclosure(
    indptr: np.ndarray,
    points: np.ndarray,
    sensitive: list[Sensitive],
    index: PointIndex | None,
    draws: SetDraws | None,
    l: int,  # noqa: E741
    t: float,
) -> list[AttributeFigures]:
    """Per sensitive attribute: the figures over whole-trace classes (everyone in the data), then over the
    anonymity sets of ``draws`` when given (the sampled people, or everyone in exact mode, on ``index``)."""
    labels = trace_classes(indptr, points)
    everyone = np.arange(len(labels))
    out = []
    for attribute in sensitive:
        whole = PersonShares.of(trace_class_counts(labels, attribute), everyone, len(labels), attribute, l, t)
        out.append(figures(attribute, attribute.codes, whole, 0, TRACE, l, t))
        if draws is not None and index is not None:
            own, shares, left_out = (
                exact_shares(index, draws.p, attribute, l, t)
                if draws.exact
                else sampled_shares(index, draws, attribute, l, t)
            )
            out.append(figures(attribute, own, shares, left_out, SET, l, t, draws.p))
    return out
