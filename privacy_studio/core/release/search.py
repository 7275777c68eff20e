"""The protection search: every grid profile with a ladder of suppression settings, best candidate first.

Suppressing and scoring a candidate is cheap (its traces and the share of points it keeps); measuring its
release as written (``prepare_release``: several attackers, exact where cheap, judged by the project's own
release criteria and against its earlier releases) is not. So every candidate is suppressed and scored
first, then measured in order of utility, most useful first, and the first that passes is the most useful
passing candidate: the recommendation. Whatever is less useful cannot be chosen and is not measured; this
prunes every stronger suppression of a profile once a weaker one passes (a stronger whole-trace K keeps a
subset of the rows, never more utility). Candidates without suppression that fail in the project's own run
(the same criteria on the same traces) are not measured again.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from privacy_studio.core.generalize import Traces, generalize
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.project_run import decision_inputs
from privacy_studio.core.records import AnalysisError
from privacy_studio.core.release.defaults import measure_settings, policy, profile_key, split_key
from privacy_studio.core.release.export import prepare_release
from privacy_studio.core.release.manifest import rows_releases
from privacy_studio.core.release.options import ReleaseError, ReleaseOptions
from privacy_studio.core.release.suppression import suppress
from privacy_studio.core.tradeoff.candidates import (
    DEFAULT_LADDER,
    FROM_RUN,
    MEASURED,
    Candidate,
    SearchResult,
    Suppression,
)
from privacy_studio.core.tradeoff.criteria import CriterionCheck
from privacy_studio.core.tradeoff.decision import decide
from privacy_studio.core.tradeoff.grid import grid_table

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.project import Project
    from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis

__all__ = [
    "DEFAULT_LADDER",
    "Candidate",
    "SearchResult",
    "Suppression",
    "grid_profiles",
    "is_current",
    "judged_by",
    "measure_candidate",
    "options_of",
    "recommended_candidate",
    "score_all",
    "search",
    "stored_search",
]


def options_of(candidate: Candidate | tuple[str, str, str], suppression: Suppression) -> ReleaseOptions:
    """The release options (per-point rows, no count column) that write a profile with ``suppression``."""
    spatial, temporal, price = split_key(candidate.profile) if isinstance(candidate, Candidate) else candidate
    return ReleaseOptions(spatial, temporal, price=price, **suppression.to_dict())


def judged_by(project: Project, analysis: TradeoffAnalysis) -> dict:
    """What a search is judged by: the measure, p, criteria, utility and the profiles of the results; a
    stored search whose record differs from the project's current one is out of date."""
    return {
        "measure": analysis.measure,
        "p": analysis.p,
        "criteria": analysis.criteria.to_choices(),
        "utility": analysis.utility_name,
        "profiles": list(analysis.labels),
        "seed": project.risk_settings().seed,
        "samples": project.risk_settings().samples,
        "releases": len(_earlier(project)),
    }


def is_current(project: Project, saved: SearchResult, analysis: TradeoffAnalysis) -> bool:
    """Whether a stored search still holds for ``analysis``: judged by the same choices and results, with
    no release made since other than its own recommendation (following a search does not undo it; any other
    release changes what later candidates are judged against). Not when the project's release records
    cannot be read: nothing then says which releases followed."""
    try:
        earlier = _earlier(project)
    except AnalysisError:
        return False
    current = judged_by(project, analysis)
    if saved.judged_by == current:
        return True
    same_choices = {k: v for k, v in saved.judged_by.items() if k != "releases"} == {
        k: v for k, v in current.items() if k != "releases"
    }
    rec = saved.recommended
    since = earlier[int(saved.judged_by.get("releases", 0)) :]
    if not (same_choices and rec is not None and since):
        return False
    wanted = options_of(rec, rec.suppression)
    return all(m.options == wanted for m in since)


def _earlier(project: Project) -> list:
    return rows_releases(project.analyses)


@dataclass(frozen=True)
class _Profile:
    """A grid profile as the search needs it: its keys, utility before suppression and its run's verdict."""

    key: str
    label: str
    parts: tuple[str, str, str]  # spatial, temporal, price
    utility: float
    passes_in_run: bool


def grid_profiles(project: Project, analysis: TradeoffAnalysis) -> list[_Profile]:

    grid = grid_table(project.results)
    out = []
    for i, label in enumerate(analysis.labels):
        parts = (str(grid.spatial[i]), str(grid.temporal[i]), str(grid.price[i] or "none"))
        passes = all(c.passed for c in analysis.checks[i])
        out.append(_Profile(profile_key(*parts), label, parts, float(analysis.utility[i]), passes))
    return out


def _suppressed(profile: _Profile, traces: Traces, suppression: Suppression) -> Candidate:
    """The candidate's counts after suppression and its utility: the profile's utility times the share of
    its (person, point) rows kept (for "points kept" exactly the score of the released rows)."""
    kept = suppress(traces, options_of(profile.parts, suppression)).traces if not suppression.none else traces
    share = kept.nnz / traces.nnz if traces.nnz else 0.0
    return Candidate(
        profile=profile.key,
        label=profile.label,
        suppression=suppression,
        total_people=int((traces.lengths() > 0).sum()),
        released_people=int((kept.lengths() > 0).sum()),
        released_rows=kept.nnz,
        released_events=int(kept.counts.sum()),
        utility=profile.utility * share if math.isfinite(profile.utility) else math.nan,
    )


def score_all(
    profiles: list[_Profile], dataset: Dataset, ladder: tuple[Suppression, ...], control: TaskControl
) -> list[Candidate]:
    """Every (profile, suppression) suppressed and scored, in grid order then ladder order."""
    out = []
    for i, profile in enumerate(profiles):
        control.report(i / len(profiles), f"suppressing at {profile.label}")
        try:
            traces = generalize(
                dataset.events, options_of(profile.parts, Suppression()).profile, dataset.hierarchy
            )
        except (ValueError, ReleaseError):
            continue  # a profile the data cannot be generalized to cannot be released either
        out += [_suppressed(profile, traces, s) for s in ladder]
    return out


def _ranked(candidates: list[Candidate]) -> list[int]:
    """Positions of the candidates with a utility, most useful first (ties: grid then ladder order)."""
    scored = [i for i, c in enumerate(candidates) if math.isfinite(c.utility)]
    return sorted(scored, key=lambda i: (-candidates[i].utility, i))


def measure_candidate(
    candidate: Candidate, project: Project, dataset: Dataset, control: TaskControl
) -> Candidate:
    """The candidate's release prepared and measured as written, judged by the project's criteria and
    against its earlier releases."""

    if candidate.released_people == 0:
        return replace(candidate, verdict=MEASURED, passes=False)
    options = options_of(candidate, candidate.suppression)
    prepared = prepare_release(
        dataset, options, measure_settings(project), control, policy(project), _earlier(project)
    )
    released = prepared.released
    ceiling = prepared.policy.criteria.ceiling
    linked = tuple(  # a file re-linked to an earlier release fails too: say so beside the criteria
        CriterionCheck(
            f"people re-linked to the earlier release {x.release_file}", ceiling, x.share, False, x.note
        )
        for x in prepared.linked_too_far
    )
    return replace(
        candidate,
        released_people=released.people,
        released_rows=prepared.rows.table.num_rows,
        released_events=released.events,
        verdict=MEASURED,
        checks=tuple(prepared.checks) + linked,
        passes=prepared.passes,
        p=prepared.measured.p,
        sampled_at_p=prepared.measured.n_sampled,
        excluded_at_p=prepared.measured.n_excluded,
    )


def search(
    project: Project,
    dataset: Dataset,
    ladder: tuple[Suppression, ...] = DEFAULT_LADDER,
    control: TaskControl | None = None,
    analysis: TradeoffAnalysis | None = None,
) -> SearchResult:
    """Search the project's grid × ``ladder`` for the most useful candidate whose release as written meets
    every release criterion; nothing in the project changes (the caller stores the result)."""

    start = time.perf_counter()
    control = as_control(control)
    if not ladder:
        raise ValueError("the suppression ladder is empty: give at least one setting to try")
    analysis = analysis or decide(decision_inputs(project, dataset))
    profiles = grid_profiles(project, analysis)
    by_key = {p.key: p for p in profiles}
    scored = score_all(profiles, dataset, tuple(ladder), control.sub(0.0, 0.15))
    order: list[Candidate] = []
    done: set[int] = set()
    recommended = None
    ranked = _ranked(scored)
    for n, i in enumerate(ranked):
        candidate = scored[i]
        if candidate.suppression.none and not by_key[candidate.profile].passes_in_run:
            judged = replace(candidate, verdict=FROM_RUN, checks=tuple(_run_checks(analysis, candidate)))
        else:
            step = control.sub(
                0.15 + 0.85 * n / len(ranked), 0.15 + 0.85 * (n + 1) / len(ranked), candidate.name()
            )
            judged = measure_candidate(candidate, project, dataset, step)
        order.append(judged)
        done.add(i)
        if judged.passes:
            recommended = judged
            break
    order += [c for i, c in enumerate(scored) if i not in done]
    control.report(1.0, "search done")
    return SearchResult(
        tuple(order),
        recommended,
        "" if recommended else _why_none(scored, analysis),
        tuple(ladder),
        time.perf_counter() - start,
        analysis.utility_name,
        judged_by(project, analysis),
    )


def _run_checks(analysis: TradeoffAnalysis, candidate: Candidate) -> list:
    return analysis.checks[analysis.labels.index(candidate.label)]


def _why_none(scored: list[Candidate], analysis: TradeoffAnalysis) -> str:
    if not scored:
        return "no profile of the grid could be prepared for release"
    if not any(math.isfinite(c.utility) for c in scored):
        return f"no profile has a {analysis.utility_name} score to weigh the candidates by"
    return (
        "no candidate meets every release criterion, even with the strongest suppression of the ladder; "
        "try a coarser grid, a longer ladder (stronger k-anonymity) or other protections"
    )


def stored_search(project: Project, analysis: TradeoffAnalysis | None = None) -> SearchResult | None:
    """The project's saved search, if it is still current (same criteria, measure, utility and results)
    for ``analysis``, the caller's decision (derived here when not given)."""
    from privacy_studio.core.analyses import read_analysis

    saved = read_analysis(project.analyses, SearchResult)
    if saved is None or not project.results:
        return None
    try:
        decided = analysis or decide(decision_inputs(project))
    except ValueError:
        return None
    return saved if is_current(project, saved, decided) else None


def recommended_candidate(project: Project) -> Candidate | None:
    """The candidate (profile and suppression) the project's protection search recommends, when the
    search is still current (same criteria, measure, utility and results)."""
    found = stored_search(project)
    return None if found is None else found.recommended
