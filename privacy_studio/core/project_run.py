"""One run of a project, for the window and the command line alike: the risk grid on the project's engine
(each profile yielded as it finishes), the information loss of every profile, the profile sizes, the
decision on the project's choices and the seed spread of its headline profile.

:func:`run_steps` computes and never touches the project (the window runs it in its task runner while the
GUI thread reads the project); :func:`keep` puts one step into a project; :func:`run_analysis` is the two
together, what ``privacy-studio project run`` and ``report --rerun`` do."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from privacy_studio.core.analyses import ComputedUtility, ProfileSizes, SeedSpread, TradeoffChoice
from privacy_studio.core.engines.engine_choice import EngineChoice
from privacy_studio.core.generalize import Profile, Traces, generalize
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.project import Project, jsonable
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.tradeoff import decision as decisions
from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis
from privacy_studio.core.tradeoff.powerlaw import unit_areas
from privacy_studio.core.utility import UtilityGrid, computed_utilities

if TYPE_CHECKING:
    from privacy_studio.core.engines import EventFiles
    from privacy_studio.core.io import Dataset

#: What a run yields, in this order: every profile's result, the analyses derived from them, and the
#: decision on the project's choices the seed spread's profile was chosen by (not kept: derived again).
RunStep = ProfileResult | ComputedUtility | ProfileSizes | SeedSpread | TradeoffAnalysis

#: Seeds the headline risk is recomputed with (seed … seed + n - 1).
SPREAD_SEEDS = 5


@dataclass(frozen=True)
class RunPlan:
    """Everything a run reads from its project, taken on the caller's thread so the run never reads the
    project while the window edits it."""

    settings: RiskSettings
    engine: EngineChoice
    files: EventFiles | None
    experts: UtilityGrid
    choice: TradeoffChoice

    @classmethod
    def of_project(cls, project: Project, files: EventFiles | None) -> RunPlan:
        """The plan of ``project``'s grid and choices; ``files`` the events files an engine reads itself
        (None: the data in memory). ValueError when there is no grid."""
        if not project.settings:
            raise ValueError(f"{project.name}: the project has no grid yet (spatial and temporal levels)")
        settings = project.with_attributes(RiskSettings.from_dict(project.settings))
        experts = UtilityGrid.from_dict(project.utility)
        return cls(settings, project.engine_choice(), files, experts, project.choice())


def project_files(project: Project) -> EventFiles | None:
    """The project's events files when its engine reads files itself (None for numba, which reads the data
    in memory); ProjectError when they are missing."""
    return None if project.engine_choice().name == "numba" else project.events_files()


def run_steps(
    plan: RunPlan, dataset: Dataset | None, control: TaskControl | None = None
) -> Iterator[RunStep]:
    """Run ``plan``: yield each profile's result as it finishes, then its information loss, the profile
    sizes and, when one can be derived, the decision and the seed spread of its headline profile. Without
    ``dataset`` (data that exceed memory, the plan's engine reading its files) only the profiles. A
    cancelled run stops between chunks; what was yielded stays valid."""
    control = control or TaskControl()
    results: list[ProfileResult] = []
    for result in plan.engine.run_grid(dataset, plan.settings, plan.files, control=control.sub(0.0, 0.8)):
        results.append(result)
        yield result
    if dataset is None:  # data that exceed memory: information loss on a sample (core.overview.run)
        control.report(1.0, "grid done")
        return
    utility = computed_utility(dataset, plan.settings, control.sub(0.8, 0.85), results)
    yield utility
    sizes = profile_sizes(dataset, plan.settings.spatial + [s for s, _ in plan.settings.cell_labels()])
    yield sizes
    analysis = decision_of(decisions.DecisionInputs(results, plan.experts, plan.choice, utility, sizes))
    if analysis is None:
        return
    yield analysis
    headline = headline_profile(analysis)
    if headline is not None:
        row = next(r for r in results if r.label == headline)
        yield seed_spread(plan, dataset, row, control=control.sub(0.85, 1.0))
    control.report(1.0, "run done")


def keep(project: Project, step: RunStep) -> None:
    """Put one step of a run into ``project``: a result in place of that of the same profile (appended if
    new), an analysis in place of the one of its kind; the decision is not kept (it is derived on demand)."""
    if isinstance(step, ProfileResult):
        project.results = replace_result(project.results, step)
    elif not isinstance(step, TradeoffAnalysis):
        project.store(step)


def replace_result(results: list[ProfileResult], new: ProfileResult) -> list[ProfileResult]:
    """``results`` with ``new`` in place of the result of the same profile (appended if new)."""
    key = (new.spatial, new.temporal, new.price or "none")
    for i, old in enumerate(results):
        if (old.spatial, old.temporal, old.price or "none") == key:
            return [*results[:i], new, *results[i + 1 :]]
    return [*results, new]


def run_analysis(
    project: Project, dataset: Dataset, control: TaskControl | None = None
) -> TradeoffAnalysis | None:
    """Run the project (:func:`run_steps`) and replace its results and the analyses derived from them with
    the new ones; the project is unchanged when the run is cancelled or fails. Returns the decision on the
    new results (None if none can be derived), with the seed spread when it is about its measure and p."""
    plan = RunPlan.of_project(project, project_files(project))
    steps = list(run_steps(plan, dataset, control))
    project.clear_results()
    for step in steps:
        keep(project, step)
    project.import_report = jsonable(dataset.report.to_dict())
    analysis = next((s for s in steps if isinstance(s, TradeoffAnalysis)), None)
    return None if analysis is None else decisions.with_spread(analysis, project.analysis(SeedSpread))


def decision_inputs(project: Project, dataset: Dataset | None = None) -> decisions.DecisionInputs:
    """Everything the project's decision is derived from; the profile sizes saved with its results, else
    measured on ``dataset``."""
    sizes = project.analysis(ProfileSizes)
    if sizes is None and dataset is not None and project.results:
        sizes = profile_sizes(dataset, [r.spatial for r in project.results])
    return decisions.DecisionInputs(
        project.results,
        UtilityGrid.from_dict(project.utility),
        project.choice(),
        project.analysis(ComputedUtility),
        sizes,
        project.analysis(SeedSpread),
    )


def decision_of(inputs: decisions.DecisionInputs) -> TradeoffAnalysis | None:
    """The decision on ``inputs``; None when it cannot be derived (e.g. the chosen p was not computed, or
    no utility is known)."""
    try:
        return decisions.decide(inputs)
    except ValueError:
        return None


def headline_profile(analysis: TradeoffAnalysis) -> str | None:
    """The profile the headline is about: the recommended one, else the least risky."""
    if analysis.recommendation.label is not None:
        return analysis.recommendation.label
    known = [i for i, r in enumerate(analysis.risk) if r == r]
    return analysis.labels[min(known, key=lambda i: analysis.risk[i])] if known else None


def computed_utility(
    dataset: Dataset,
    settings: RiskSettings,
    control: TaskControl | None = None,
    results: list[ProfileResult] | None = None,
) -> ComputedUtility:
    """Information loss of every profile of ``settings`` against the finest one, as 0-10 scores; profiles
    that cannot be scored (not nested in the finest) keep their reason. On a grid with a price axis, places
    and times are compared without the amount, whose precision lost is scored on its own. The grid's
    ``results``, when given, name the finest profile (their points counted), so no profile is generalized
    twice to find it."""
    control = control or TaskControl()
    profiles = settings.profiles()
    traces = _PlaceTimeTraces(dataset, profiles, control)
    finest = None
    if results and not settings.priced:  # a priced result counts price bins: not the places-and-times'
        counted = {r.label: r.nnz for r in results}
        if all(p.label in counted for p in profiles):
            finest = max(traces, key=counted.__getitem__)
    prices = {p.label: p.price for p in profiles} if settings.priced else None
    scores, problems = computed_utilities(dataset.events, traces, dataset.hierarchy, prices, finest)
    control.report(1.0, "information loss computed")
    return ComputedUtility(scores, problems)


class _PlaceTimeTraces(Mapping[str, Traces]):
    """Each profile's places and times (no price bins) by label, generalized when asked and kept only until
    another is asked for: a 12-profile grid's traces held at once took a 1M-person window from the run's
    1.8 GB to 6-8 GB."""

    def __init__(self, dataset: Dataset, profiles: list[Profile], control: TaskControl) -> None:
        self._dataset, self._control = dataset, control
        self._plain = {p.label: Profile(p.spatial, p.temporal) for p in profiles}
        self._kept: tuple[Profile, Traces] | None = None
        self._made = 0

    def __getitem__(self, label: str) -> Traces:
        plain = self._plain[label]
        if self._kept is None or self._kept[0] != plain:
            self._kept = None  # freed before the next one is made
            self._made += 1  # each profile once or twice (to count its points), and the finest once more
            self._control.report(min(0.95, self._made / (2 * len(self) + 1)), f"information loss: {label}")
            self._kept = (plain, generalize(self._dataset.events, plain, self._dataset.hierarchy))
        return self._kept[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._plain)

    def __len__(self) -> int:
        return len(self._plain)


def seed_spread(
    plan: RunPlan,
    dataset: Dataset,
    row: ProfileResult,
    n_seeds: int = SPREAD_SEEDS,
    control: TaskControl | None = None,
) -> SeedSpread:
    """The chosen risk of profile ``row`` at the chosen p recomputed with seeds seed … seed + n - 1, sampled
    as the run sampled it (a lone p could otherwise be cheap enough to count exactly, which measures no
    spread); none when the run computed it exactly."""
    control = control or TaskControl()
    choice = plan.choice
    entry = None if choice.risk_p is None else row.at(choice.risk_p)
    if entry is not None and entry.method == "exact":
        return SeedSpread(row.label, choice.risk_measure, choice.risk_p, [], [], exact=True)
    ps = {} if choice.risk_p is None else {"p_values": [choice.risk_p], "reference_p": choice.risk_p}
    seeds = [plan.settings.seed + k for k in range(n_seeds)]
    values: list[float | None] = []
    for k, seed in enumerate(seeds):
        settings = replace(
            plan.settings,
            cells=[(row.spatial, row.temporal)],
            price=[row.price or "none"],
            seed=seed,
            sensitive=[],
            ordered=[],
            exact=False,
            exact_budget=0.0,
            **ps,
        )  # the risk only, sampled
        step = control.sub(k / n_seeds, (k + 1) / n_seeds)
        result = next(iter(plan.engine.run_grid(dataset, settings, plan.files, control=step)))
        entry = next((e for e in result.by_p if e.p == choice.risk_p), None)
        values.append(None if entry is None else entry.value(choice.risk_measure))
    return SeedSpread(row.label, choice.risk_measure, choice.risk_p, seeds, values)


def profile_sizes(dataset: Dataset, spatial: list[str]) -> ProfileSizes:
    """Mean unit area of every spatial level in ``spatial`` and the data's observation period."""
    start, end = dataset.events.period()
    levels = list(dict.fromkeys(spatial))
    return ProfileSizes(unit_areas(dataset.events, levels, dataset.hierarchy), float(end - start))
