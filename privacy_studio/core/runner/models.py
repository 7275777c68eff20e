"""Knowledge models beyond the sampled kernels: explicit known points, scikit-mobility-style matching,
Python-drawn orders, and the sensitive attributes a run measures."""

from __future__ import annotations

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import (
    Profile,
    Traces,
    generalize,
)
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.index import PointIndex
from privacy_studio.core.knowledge import (
    Explicit,
    KnowledgeModel,
    MatchingModel,
    combined_table,
)
from privacy_studio.core.measures.attribute_sets import SetDraws
from privacy_studio.core.measures.attributes import Sensitive, read_attributes, sensitive_attributes
from privacy_studio.core.measures.knowledge_match import Matcher, UserPoints, match_sizes
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.catalogue import ATTRIBUTES, needs
from privacy_studio.core.risk.results import PResult
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner.sampled import per_user_details, presult, sampled_sets

# -- explicit knowledge ---------------------------------------------------------------------------------


def explicit_orders(
    model: Explicit, events: EventTable, profile: Profile, hierarchy: Hierarchy | None
) -> tuple[Traces, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Generalize data and known events together (same bins); the known points of each listed user."""
    combined = combined_table(events, model.table)
    traces_all = generalize(combined, profile, hierarchy)
    n = events.n_users
    traces = Traces(
        profile,
        traces_all.indptr[: n + 1].copy(),
        traces_all.points[: traces_all.indptr[n]],
        traces_all.counts[: traces_all.indptr[n]],
        traces_all.n_units,
        traces_all.n_bins,
        traces_all.n_price_bins,
        traces_all.unit_ids,
        traces_all.unit_xy,
        traces_all.bin_origin,
    )
    listed = np.flatnonzero(np.diff(traces_all.indptr[n:]) > 0)
    ptr = np.zeros(len(listed) + 1, dtype=np.int64)
    chunks = []
    missing = 0
    for i, k in enumerate(listed):
        pts = traces_all.trace(n + k)
        own = traces.trace(k)
        inside = np.isin(pts, own)
        missing += int((~inside).sum())
        chunks.append(pts)
        ptr[i + 1] = ptr[i] + len(pts)
    if missing:
        raise ValueError(
            f"the knowledge file lists {missing} point(s) under {profile.label} that the user never visits "
            "in the data: known points must be events of the user's own trace"
        )
    pts = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)
    return traces, listed.astype(np.int64), (ptr, pts)


def compact_given(
    index: PointIndex, given: tuple[np.ndarray, np.ndarray], shortest_first: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Known profile points -> compact index points; for whole known sets, shortest posting lists first."""
    ptr, pts = given
    compact = np.searchsorted(index.point_ids, pts).astype(np.int64)
    if not shortest_first:  # a model's order: its prefixes are the knowledge for each p
        return ptr, compact
    lengths = index.list_len[compact]
    out = compact.copy()
    for i in range(len(ptr) - 1):
        a, b = ptr[i], ptr[i + 1]
        out[a:b] = compact[a:b][np.argsort(lengths[a:b], kind="stable")]
    return ptr, out


# -- attribute disclosure ---------------------------------------------------------------------------------


def load_sensitive(settings: RiskSettings, events: EventTable) -> list[Sensitive]:
    """The sensitive attributes of ``settings`` per user of the data (none when not asked)."""
    if not settings.sensitive or not needs(settings.measures, ATTRIBUTES):
        return []
    if not settings.attributes:
        raise ValueError("--sensitive needs --attributes FILE: the user attributes that hold those columns")
    return sensitive_attributes(
        read_attributes(settings.attributes), events.user_ids, settings.sensitive, settings.ordered
    )


def set_draws(model: KnowledgeModel, users: np.ndarray, settings: RiskSettings) -> SetDraws | None:
    """The draws of the anonymity-set figures: the sampled people under the run's kernel model at the
    reference p, or every p-subset in exact mode; None for models without one (explicit and matching)."""
    if model.kind is None or isinstance(model, MatchingModel):
        return None
    all_points = settings.short_traces == "all-points"
    p, draws, seed, exact = settings.reference_p, settings.draws, settings.seed, settings.exact
    return SetDraws(users, model.kind, p, draws, seed, all_points, exact)


def knowledge_label(model: KnowledgeModel) -> str:
    """The model as the option that selects it (``explicit:FILE``, ``frequency:0.5``, ``top`` …)."""
    if isinstance(model, Explicit):
        return f"explicit:{model.path}"
    return model.label if isinstance(model, MatchingModel) else model.name


def one_row(model: KnowledgeModel) -> bool:
    """Models whose knowledge does not depend on p (homework): one result row with p = None."""
    return isinstance(model, MatchingModel) and model.name == "homework"


def evaluate_matching(
    events: EventTable,
    hierarchy: Hierarchy | None,
    profile: Profile,
    model: MatchingModel,
    users: np.ndarray,
    settings: RiskSettings,
    control: TaskControl,
) -> tuple[list[PResult], dict]:
    """Unicity, k-disclosure and worst case under a scikit-mobility-style model (no EM/KL: not defined)."""
    want = set(settings.measures) - {"em_disclosure", "kl_disclosure"}
    ps: list[int | None] = [None] if one_row(model) else list(settings.p_values)
    pmax = 1 if one_row(model) else max(max(settings.p_values), settings.reference_p)
    points = UserPoints.build(events, profile, hierarchy, model.spatial_only)
    all_points = settings.short_traces == "all-points"
    m = match_sizes(Matcher(model, points), users, pmax, settings.draws, settings.seed, all_points, control)
    nan = np.full(m.sizes.shape, np.nan)
    by_p = []
    for p in ps:
        k = 0 if p is None else p - 1
        sizes_k = m.sizes[:, :, k]
        sets, n_excluded = sampled_sets(p, sizes_k, nan[:, :, k], nan[:, :, k], m.worst[:, k], settings)
        row = presult(sets, len(users), n_excluded, want)
        included = m.sizes[:, 0, k] > 0
        row.worst_exact = "worst_case" in want and bool(m.enumerated[included, k].all())
        row.n_short = int(m.short[included, k].sum())
        by_p.append(row)
    ref_k = 0 if one_row(model) else settings.reference_p - 1
    per_user = per_user_details(m.sizes, nan, nan, m.worst, ref_k, events.user_ids[users], want)
    return by_p, per_user


def python_orders(
    model: KnowledgeModel, traces: Traces, users: np.ndarray, settings: RiskSettings
) -> tuple[np.ndarray, np.ndarray]:
    """Orders from a model's Python ``draw`` (models without a kernel fast path), one per user."""
    pmax = max(max(settings.p_values), settings.reference_p)
    ptr = np.zeros(len(users) + 1, dtype=np.int64)
    chunks = []
    for i, u in enumerate(users):
        pts, cnt = traces.trace(int(u)), traces.counts[traces.indptr[u] : traces.indptr[u + 1]]
        rng = np.random.default_rng([settings.seed, int(u)])
        chosen = np.asarray(model.draw(pts, cnt, min(pmax, len(pts)), rng), dtype=np.int64)
        chunks.append(chosen)
        ptr[i + 1] = ptr[i] + len(chosen)
    return ptr, (np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64))
