"""Run a project's analysis: the risk grid on the project's engine, then the computed utility of every
profile, both kept in the project — what ``privacy-studio project run`` and the report do when results are
missing, and what the window stores after a run."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from privacy_studio.core.analyses import ComputedUtility, ProfileSizes, SeedSpread
from privacy_studio.core.generalize import Profile, Traces, generalize
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.project import Project, jsonable
from privacy_studio.core.tradeoff.powerlaw import unit_areas
from privacy_studio.core.utility import computed_utilities

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis


def computed_utility(
    dataset: Dataset, settings: RiskSettings, control: TaskControl | None = None
) -> ComputedUtility:
    """Information loss of every profile of ``settings`` against the finest one, as 0-10 scores; profiles
    that cannot be scored (not nested in the finest) keep their reason. On a grid with a price axis, places
    and times are compared without the amount, whose precision lost is scored on its own."""
    control = control or TaskControl()
    profiles = settings.profiles()
    place_time: dict[Profile, Traces] = {}
    traces = {}
    for i, profile in enumerate(profiles):
        control.report(i / len(profiles), f"information loss: generalizing {profile.label}")
        plain = Profile(profile.spatial, profile.temporal)
        if plain not in place_time:
            place_time[plain] = generalize(dataset.events, plain, dataset.hierarchy)
        traces[profile.label] = place_time[plain]
    prices = {p.label: p.price for p in profiles} if settings.priced else None
    scores, problems = computed_utilities(dataset.events, traces, dataset.hierarchy, prices)
    control.report(1.0, "information loss computed")
    return ComputedUtility(scores, problems)


def run_analysis(
    project: Project, dataset: Dataset, control: TaskControl | None = None
) -> TradeoffAnalysis | None:
    """Run the project's risk grid on its engine and compute every profile's information loss and the
    headline's seed spread; the results and the analyses derived from them replace those the project held
    (stale ones are removed). Returns the decision the seed spread was chosen by (None if none)."""
    from privacy_studio.core.risk.settings import RiskSettings

    control = control or TaskControl()
    if not project.settings:
        raise ValueError(f"{project.name}: the project has no grid yet (spatial and temporal levels)")
    settings = project.with_attributes(RiskSettings.from_dict(project.settings))
    choice = project.engine_choice()
    files = project.events_files() if choice.name != "numba" else None
    results = list(choice.run_grid(dataset, settings, files, control=control.sub(0.0, 0.8)))
    project.clear_results()
    project.results = results
    project.import_report = jsonable(dataset.report.to_dict())
    project.store(computed_utility(dataset, settings, control.sub(0.8, 0.85)))
    project.store(profile_sizes(dataset, settings.spatial + [s for s, _ in settings.cell_labels()]))
    analysis = project_decision(project)
    headline = None if analysis is None else headline_profile(analysis)
    if headline is not None:
        project.store(seed_spread(project, dataset, headline, control=control.sub(0.85, 1.0)))
    return analysis


def project_decision(project: Project) -> TradeoffAnalysis | None:
    """The project's decision on its saved choices; None when it cannot be derived (e.g. the chosen p was
    not computed, or no utility is known)."""
    from privacy_studio.core.tradeoff.decision import DecisionInputs, decide

    try:
        return decide(DecisionInputs.of_project(project))
    except ValueError:
        return None


def headline_profile(analysis: TradeoffAnalysis) -> str | None:
    """The profile the headline is about: the recommended one, else the least risky."""
    if analysis.recommendation.label is not None:
        return analysis.recommendation.label
    known = [i for i, r in enumerate(analysis.risk) if r == r]
    return analysis.labels[min(known, key=lambda i: analysis.risk[i])] if known else None


def seed_spread(
    project: Project, dataset: Dataset, label: str, n_seeds: int = 5, control: TaskControl | None = None
) -> SeedSpread:
    """The chosen risk of profile ``label`` at the chosen p recomputed with seeds seed … seed + n - 1."""
    from privacy_studio.core.risk.settings import RiskSettings

    control = control or TaskControl()
    choice = project.choice()
    base = RiskSettings.from_dict(project.settings)
    row = next(r for r in project.results if r.label == label)
    cell = (row.spatial, row.temporal)
    price = [row.price or "none"]
    ps = {} if choice.risk_p is None else {"p_values": [choice.risk_p], "reference_p": choice.risk_p}
    seeds = [base.seed + k for k in range(n_seeds)]
    engine = project.engine_choice()
    files = project.events_files() if engine.name != "numba" else None
    values: list[float | None] = []
    for k, seed in enumerate(seeds):
        settings = replace(
            base, cells=[cell], price=price, seed=seed, sensitive=[], ordered=[], **ps
        )  # the risk only
        result = next(
            iter(
                engine.run_grid(dataset, settings, files, control=control.sub(k / n_seeds, (k + 1) / n_seeds))
            )
        )
        entry = next((e for e in result.by_p if e.p == choice.risk_p), None)
        values.append(None if entry is None else entry.value(choice.risk_measure))
    return SeedSpread(label, choice.risk_measure, choice.risk_p, seeds, values)


def profile_sizes(dataset: Dataset, spatial: list[str]) -> ProfileSizes:
    """Mean unit area of every spatial level in ``spatial`` and the data's observation period."""
    start, end = dataset.events.period()
    levels = list(dict.fromkeys(spatial))
    return ProfileSizes(unit_areas(dataset.events, levels, dataset.hierarchy), float(end - start))
