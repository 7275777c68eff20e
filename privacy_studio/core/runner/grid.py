"""Grid runs of the risk engine: every profile x p value, yielded profile by profile as each is done.

Work is reused across the grid: the finest requested profile is generalized from the events once and the
others are derived from its traces when the hierarchy nests and the time widths divide; one index per
profile serves every p; the same users are sampled for every profile. Progress is reported and
cancellation honoured between chunks of sampled users.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import (
    Profile,
    TemporalLevel,
    Traces,
    coarsen,
    generalize,
)
from privacy_studio.core.heap import return_freed_memory
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.index import PointIndex, build_index
from privacy_studio.core.knowledge import (
    GIVEN,
    Activity,
    Explicit,
    KnowledgeModel,
    MatchingModel,
    TopLocations,
    Uniform,
    parse_knowledge,
    read_known_events,
)
from privacy_studio.core.measures.attribute_sets import attribute_disclosure
from privacy_studio.core.measures.attributes import Sensitive
from privacy_studio.core.measures.kanonymity import class_sizes, kanonymity_summary
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.risk.catalogue import TRACES, UNICITY, needs
from privacy_studio.core.risk.results import PResult, ProfileResult, profile_result
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner.derivation import DerivationPlan, base_profile, check_levels, from_pool
from privacy_studio.core.runner.exact_runs import (
    add_file_populations,
    evaluate_exact,
    exact_rows_where_cheap,
    exact_when_cheap,
)
from privacy_studio.core.runner.models import (
    compact_given,
    evaluate_matching,
    explicit_orders,
    knowledge_label,
    load_sensitive,
    one_row,
    python_orders,
    set_draws,
)
from privacy_studio.core.runner.sampled import evaluate_sampled, sample_users

# -- the grid -------------------------------------------------------------------------------------------


def _profile_traces(
    events: EventTable, hierarchy: Hierarchy | None, profile: Profile, pool: list[Traces]
) -> tuple[Traces, str | None]:
    """The profile's traces, coarsened from the smallest kept traces that allow it, else from the events."""
    traces, derived_from = from_pool(pool, profile, events, hierarchy)
    return (generalize(events, profile, hierarchy), None) if traces is None else (traces, derived_from)


def run_profile(
    events: EventTable,
    hierarchy: Hierarchy | None,
    profile: Profile,
    traces: Traces,
    derived_from: str | None,
    settings: RiskSettings,
    model: KnowledgeModel,
    users: np.ndarray,
    control: TaskControl,
    timings: dict[str, float],
    sensitive: tuple[Sensitive, ...] | list[Sensitive] = (),
) -> ProfileResult:
    """Index one profile's traces and compute every requested measure for every p."""
    kanon = None
    if needs(set(settings.measures), TRACES):  # between stages a cancellation takes effect
        control.report(0.0, "k-anonymity")
        t0 = time.perf_counter()
        kanon = kanonymity_summary(class_sizes(traces))
        timings["kanon"] = time.perf_counter() - t0
    given = None
    if isinstance(model, Explicit):
        traces, users, given = explicit_orders(model, events, profile, hierarchy)
    work = traces
    if model.spatial_only:  # top locations: anonymity sets over spatial units, time ignored
        all_time = Profile(profile.spatial, TemporalLevel(None))
        work = coarsen(
            traces, all_time, np.arange(traces.n_units), traces.n_units, traces.unit_ids, traces.unit_xy
        )
    control.report(0.0, "indexing")
    t0 = time.perf_counter()
    index = build_index(work)
    timings["index"] = time.perf_counter() - t0
    control.check()
    t0 = time.perf_counter()
    by_p, per_user, per_location = _estimate(events, hierarchy, profile, work, index, model, users, given,
                                             settings, control, timings)  # fmt: skip
    timings["estimate"] = time.perf_counter() - t0
    attributes = None
    if sensitive:
        control.report(1.0, "attribute disclosure")
        t0 = time.perf_counter()
        draws = set_draws(model, users, settings)
        l_div, t_close = settings.l_diversity, settings.t_closeness
        attributes = attribute_disclosure(
            traces.indptr, traces.points, sensitive, index, draws, l_div, t_close
        )
        timings["attributes"] = time.perf_counter() - t0
    return profile_result(
        profile, settings, n_users=traces.n_users, d=traces.d, nnz=traces.nnz, n_events=events.n_events,
        by_p=by_p, kanon=kanon, per_user=per_user, per_location=per_location,
        timings={k: float(v) for k, v in timings.items()}, index_bytes=int(index.nbytes()),
        knowledge=knowledge_label(model), derived_from=derived_from, attributes=attributes,
        reference_p=None if isinstance(model, Explicit) or one_row(model) else settings.reference_p,
    )  # fmt: skip


def _estimate(
    events: EventTable,
    hierarchy: Hierarchy | None,
    profile: Profile,
    work: Traces,
    index: PointIndex,
    model: KnowledgeModel,
    users: np.ndarray,
    given: tuple[np.ndarray, np.ndarray] | None,
    settings: RiskSettings,
    control: TaskControl,
    timings: dict[str, float],
) -> tuple[list[PResult], dict, dict]:
    """Every p's figures, the per-user and the per-location details: exact mode, matching models, or the
    sampled estimate (with the p values that are cheap enough enumerated exactly); the seconds of its
    stages go to ``timings`` (draws, search, exact where cheap, file populations)."""
    if isinstance(model, MatchingModel):
        by_p, per_user = evaluate_matching(events, hierarchy, profile, model, users, settings, control)
        return by_p, per_user, {}
    explicit = isinstance(model, Explicit)
    if settings.exact:
        by_p, per_user, per_location = evaluate_exact(index, work, events, settings, control)
    else:
        if given is None and model.kind is None:
            given = python_orders(model, work, users, settings)
        if given is not None:
            given = compact_given(index, given, shortest_first=explicit)
        kind = model.kind if model.kind is not None else GIVEN
        cheap = exact_when_cheap(model, settings) and not explicit
        sampled = control.sub(0.0, 0.5) if cheap else control
        by_p, per_user, per_location = evaluate_sampled(
            index, work, events, users, kind, settings, sampled, given, explicit, timings
        )
        t0 = time.perf_counter()
        if cheap:
            by_p = exact_rows_where_cheap(index, by_p, settings, control.sub(0.5, 1.0))
        timings["exact_where_cheap"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if settings.short_traces == "exclude" and not explicit:
        add_file_populations(index, by_p, UNICITY in settings.measures)
    timings["file_populations"] = time.perf_counter() - t0
    return by_p, per_user, per_location


def rows_not_needed(
    events: EventTable,
    model: KnowledgeModel,
    settings: RiskSettings,
    plan: DerivationPlan,
    base: Profile,
    profiles: list[Profile],
) -> bool:
    """Whether a compact table's rows may be freed once ``base`` is generalized: sampled inclusion models
    (uniform, activity, top locations) only read traces, and every profile derives from ``base``."""
    if not events.coordinates_at_places or settings.exact or events.rows_dropped:
        return False
    if not isinstance(model, Uniform | Activity | TopLocations):
        return False
    return all(plan.derivable(base, profile) for profile in profiles)


def run_grid(
    dataset_or_events: object,
    settings: RiskSettings,
    hierarchy: Hierarchy | None = None,
    control: TaskControl | None = None,
    sensitive: list[Sensitive] | None = None,
) -> Iterator[ProfileResult]:
    """Evaluate every profile of ``settings``; yield each :class:`ProfileResult` as soon as it is done.
    ``sensitive`` (per user of the events) replaces the settings' attributes file, e.g. for a release whose
    people carry pseudonyms.

    Accepts a ``core.io`` Dataset (``.events``, ``.hierarchy``) or an EventTable plus ``hierarchy``.
    Raises ``ValueError`` for impossible settings before any heavy work; ``Cancelled`` between chunks.
    """
    events = getattr(dataset_or_events, "events", dataset_or_events)
    if hierarchy is None:
        hierarchy = getattr(dataset_or_events, "hierarchy", None)
    if not isinstance(events, EventTable):
        raise ValueError("run_grid needs a Dataset or an EventTable")
    settings.validate()
    control = as_control(control)
    profiles = settings.profiles()
    check_levels(profiles, events, hierarchy)
    if events.n_users == 0:
        raise ValueError("the dataset has no users: nothing to measure")
    model = parse_knowledge(settings.knowledge)
    if isinstance(model, Explicit):
        model = Explicit(path=model.path, table=read_known_events(model.path, events))
    sensitive = load_sensitive(settings, events) if sensitive is None else sensitive
    users = sample_users(events.n_users, settings.samples, settings.seed)
    plan = DerivationPlan(events, hierarchy)
    pool: list[Traces] = []  # traces kept for later profiles to derive from (none with explicit knowledge)
    for i, profile in enumerate(profiles):
        step = control.sub(i / len(profiles), (i + 1) / len(profiles), label=profile.label)
        step.report(0.0, "generalizing")
        t0 = time.perf_counter()
        if i == 0 and not isinstance(model, Explicit):
            pool.append(generalize(events, base_profile(profiles, hierarchy), hierarchy))
            if rows_not_needed(events, model, settings, plan, pool[0].profile, profiles):
                events.drop_rows()  # every later profile derives from these traces (issue #30)
                return_freed_memory()
            step.check()
        traces, derived_from = _profile_traces(events, hierarchy, profile, pool)
        if not isinstance(model, Explicit):
            pool = plan.keep(pool, traces, profiles[i + 1 :])
        timings = {"generalize": time.perf_counter() - t0}
        yield run_profile(
            events, hierarchy, profile, traces, derived_from, settings, model, users, step, timings, sensitive
        )
        del traces  # the pool keeps what later profiles need; the rest is freed now
        return_freed_memory()
    control.report(1.0, "grid done")
