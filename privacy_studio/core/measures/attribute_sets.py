"""Attribute disclosure of one profile: the figures over whole-trace classes and over the anonymity sets
of the sampled knowledge draws (the maths: ``measures.attributes``; the sets: ``kernels.attribute_sets``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.index import PointIndex
from privacy_studio.core.kernels.attribute_sets import set_value_counts
from privacy_studio.core.measures.attributes import (
    SET,
    TRACE,
    AttributeFigures,
    Sensitive,
    figures,
    trace_class_counts,
    trace_classes,
)


@dataclass(frozen=True)
class SetDraws:
    """The knowledge draws of the anonymity-set figures: the sampled people, the model and the p."""

    users: np.ndarray  # sampled user codes
    kind: int  # the knowledge model's kernel order (uniform, activity, top, rarest)
    p: int
    draws: int
    seed: int
    all_points: bool  # people with fewer than p points evaluated on all they have


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
    anonymity sets of ``draws`` when given (the sampled people, on ``index``)."""
    labels = trace_classes(indptr, points)
    out = []
    for attribute in sensitive:
        out.append(figures(attribute, attribute.codes, trace_class_counts(labels, attribute), 0, TRACE, l, t))
        if draws is not None and index is not None:
            counts, included = set_class_counts(index, draws, attribute)
            own = np.where(included, attribute.codes[draws.users], -1)
            out.append(
                figures(
                    attribute, own[included], counts[included], int((~included).sum()), SET, l, t, draws.p
                )
            )
    return out
