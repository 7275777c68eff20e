"""Exact figures in a grid run: exact mode over every p-subset, the p values enumerated where cheap inside a
sampled run, the file's short traces, and the estimate of an exact run before it starts."""

from __future__ import annotations

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import (
    Traces,
    generalize,
)
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.index import PointIndex
from privacy_studio.core.knowledge import (
    KnowledgeModel,
)
from privacy_studio.core.measures.exact import (
    ExactEstimate,
    cheap_p_values,
    estimate_exact,
    exact_pass,
    length_counts,
    subsets_of,
)
from privacy_studio.core.measures.setsizes import SetsAtP
from privacy_studio.core.measures.unicity import whole_trace_sizes
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.catalogue import EM_KL, needs
from privacy_studio.core.risk.results import PResult, json_floats
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner.derivation import check_levels
from privacy_studio.core.runner.sampled import em_by_location, presult


def evaluate_exact(
    index: PointIndex, traces: Traces, events: EventTable, settings: RiskSettings, control: TaskControl
) -> tuple[list[PResult], dict, dict]:
    """Every measure over all p-subsets, per person; class sizes U_k count people (each person's subsets
    share one unit), so U_1 / n is the unicity and Σ_k U_k / (n k) the k-disclosure, as in the sampled mode.
    """
    want = set(settings.measures)
    with_em = needs(want, EM_KL)
    worst_only = want <= {"worst_case", "k_anonymity"}  # each person can stop at the first |E(A)| = 1
    by_p: list[PResult] = []
    per_user: dict = {}
    per_location: dict = {}
    ps = exact_p_values(settings)
    counted = length_counts(np.diff(index.trace_ptr))
    sizes = [subsets_of(counted, p) for p in ps]
    done = 0
    for p, size in zip(ps, sizes, strict=True):
        step = control.sub(done / max(1, sum(sizes)), (done + size) / max(1, sum(sizes)))
        r = exact_pass(index, p, with_em, stop_at_one=worst_only, control=step)
        done += size
        n = len(r.users)
        if p in settings.p_values:
            sets = SetsAtP(
                p,
                True,
                None,
                r.unique_rate,
                r.k_disclosure,
                r.class_shares,
                r.em,
                r.kl,
                r.worst,
                settings.records_at_risk_k,
            )
            by_p.append(presult(sets, index.n_users, index.n_users - n, want))
        if p == settings.reference_p:
            per_user = {
                "user_ids": [str(x) for x in events.user_ids[r.users]],
                "unique_rate": json_floats(r.unique_rate),
                "em": json_floats(r.em) if r.em is not None else None,
                "kl": json_floats(r.kl) if r.kl is not None else None,
                "worst": json_floats(r.worst) if "worst_case" in want else None,
            }
            if "em_disclosure" in want:
                per_location = em_by_location(index, traces, r.em_acc, n)
    control.report(1.0, "done")
    return by_p, per_user, per_location


def exact_rows_where_cheap(
    index: PointIndex, by_p: list[PResult], settings: RiskSettings, control: TaskControl
) -> list[PResult]:
    """``by_p`` with every p whose enumeration fits the exact budget replaced by its exact figures over all
    the people in the file (EM / KL stay those of the sampled people: they are not enumerated)."""
    import numba

    cheap = cheap_p_values(index, settings.p_values, settings.exact_budget, numba.get_num_threads())
    want = set(settings.measures) - {"em_disclosure", "kl_disclosure"}
    out = []
    for row in by_p:
        if row.p not in cheap:
            out.append(row)
            continue
        step = control.sub(cheap.index(row.p) / len(cheap), (cheap.index(row.p) + 1) / len(cheap))
        r = exact_pass(index, row.p, with_em=False, control=step)
        sets = SetsAtP(row.p, True, None, r.unique_rate, r.k_disclosure, r.class_shares, None, None, r.worst,
                       settings.records_at_risk_k)  # fmt: skip
        exact = presult(sets, index.n_users, index.n_users - len(r.users), want)
        exact.em, exact.kl, exact.em_users = row.em, row.kl, row.em_users
        out.append(exact)
    return out


def add_file_populations(index: PointIndex, by_p: list[PResult], with_unicity: bool) -> None:
    """Give every row the people in the file with fewer than p points and, for exact rows, the unicity with
    them evaluated on all their points, from everyone's whole-trace sets (sampled rows have theirs from the
    sampled draws: :func:`all_points_unicity`). Only exact rows read those sets, so only the people shorter
    than the largest exact p are walked: on a national file the sampled rows' p would walk millions."""
    lengths = np.diff(index.trace_ptr)
    exact_p = [r.p for r in by_p if r.p is not None and r.method == "exact"] if with_unicity else []
    short_people = np.flatnonzero((lengths > 0) & (lengths < max(exact_p, default=0)))
    unique_whole = whole_trace_sizes(index, short_people) == 1
    for row in by_p:
        if row.p is None:
            continue
        row.n_excluded_in_file = int((lengths < row.p).sum())
        included = index.n_users - row.n_excluded_in_file
        if row.method == "exact" and with_unicity:
            short = lengths[short_people] < row.p
            total = (row.unicity or 0.0) * included + int(unique_whole[short].sum())  # None: nobody included
            row.unicity_all_points = total / max(1, included + int(short.sum()))


def exact_when_cheap(model: KnowledgeModel, settings: RiskSettings) -> bool:
    """Whether a sampled run may enumerate its cheap p values: uniform knowledge (the one exact mode
    averages over), people with fewer than p points left out, and a budget above zero."""
    return (
        not settings.exact
        and settings.exact_budget > 0
        and model.name == "uniform"
        and settings.short_traces == "exclude"
    )


def exact_p_values(settings: RiskSettings) -> list[int]:
    """The p values exact mode evaluates: the requested ones and the reference p of the details."""
    return sorted(set(settings.p_values) | {settings.reference_p})


def estimate_exact_run(
    dataset_or_events: object, settings: RiskSettings, hierarchy: Hierarchy | None = None
) -> ExactEstimate:
    """The subsets an exact run of ``settings`` will enumerate and a rough duration, before it starts."""
    import numba

    events = getattr(dataset_or_events, "events", dataset_or_events)
    hierarchy = hierarchy if hierarchy is not None else getattr(dataset_or_events, "hierarchy", None)
    settings.validate()
    profiles = settings.profiles()
    check_levels(profiles, events, hierarchy)
    lengths = {pr.label: np.diff(generalize(events, pr, hierarchy).indptr) for pr in profiles}
    with_em = needs(settings.measures, EM_KL)
    return estimate_exact(lengths, exact_p_values(settings), with_em, numba.get_num_threads())
