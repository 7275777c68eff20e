"""What a project suggests for a release: the candidates of its results as the release criteria judge
them, the profile (and price) its decision recommends, and suppressions that would let a profile pass.
Above the report's inputs, whose decision (with its fallbacks for p and the measure) it reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.release.defaults import measure_settings, policy, profile_key, split_key
from privacy_studio.core.release.export import prepare_release
from privacy_studio.core.release.options import ReleaseError, ReleaseOptions
from privacy_studio.core.report.inputs import resolve_inputs
from privacy_studio.core.tradeoff.criteria import check_profiles

if TYPE_CHECKING:
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.project import Project


@dataclass(frozen=True)
class Candidates:
    """The grid's profiles as ``spatial:temporal``, the recommended one, the least risky one (judged as the
    criteria judge it) and those that meet every criterion on the data before any suppression."""

    profiles: list[str]
    recommended: str | None
    least_risky: str | None
    passing: list[str]
    why_none: str  # why nothing is recommended ("" when something is)
    by_risk: list[str] = field(default_factory=list)  # profiles with a risk bound, least risky first

    @property
    def default(self) -> str | None:
        """The profile a release starts from: the recommendation, else the least risky profile."""
        return self.recommended or self.least_risky


def candidates(project: Project) -> Candidates:
    """The project's release candidates: each profile of its results checked by the release criteria (as
    the trade-off checks them), and the recommendation of the decision the report and trade-off derive."""
    settings = project.risk_settings()
    profiles = [profile_key(s, t, price) for price in settings.price for s, t in settings.cell_labels()]
    inputs = resolve_inputs(project)
    grid = inputs.grid
    if grid is None:
        return Candidates(profiles, None, None, [], "it has no risk results yet")
    keys = [profile_key(*profile) for profile in zip(grid.spatial, grid.temporal, grid.price, strict=True)]
    judged = policy(project)
    checks = check_profiles(grid, judged.criteria, judged.measure, judged.p, judged.risk_name)
    bound = np.asarray([c[0].value if c[0].value is not None else np.nan for c in checks], np.float64)
    known = np.flatnonzero(np.isfinite(bound))
    order = [keys[i] for i in sorted(known, key=lambda i: (bound[i], i))]
    least = order[0] if order else None
    passing = [keys[i] for i, row in enumerate(checks) if all(c.passed for c in row)]
    rec = inputs.recommendation
    recommended = keys[grid.labels.index(rec.label)] if rec is not None and rec.label is not None else None
    if recommended:
        why = ""
    elif rec is not None:
        why = (rec.warning or "no profile meets its criteria and utility").rstrip(".")
    else:
        why = " ".join(inputs.notes).rstrip(".") or "it has no utility to weigh the risk against"
    return Candidates(profiles, recommended, least, passing, why, order)


@dataclass(frozen=True)
class Suggestion:
    """A profile that passes the release criteria as written with a given suppression."""

    profile: str
    k_anonymity: int
    people: int  # released
    of: int  # at the profile before suppression

    def text(self) -> str:
        return (
            f"--profile {self.profile} --k-anonymity {self.k_anonymity} "
            f"({self.people:,} of {self.of:,} people released)"
        )


def suggestions(
    project: Project, dataset: Dataset, tries: int = 3, k: int = 2, control: TaskControl | None = None
) -> list[Suggestion]:
    """Of the ``tries`` least risky profiles, those whose release with k-anonymity ``k`` passes the release
    criteria as written (linkage to earlier releases is judged when the release is made)."""

    control = as_control(control)
    tried = candidates(project).by_risk[:tries]
    found = []
    for i, profile in enumerate(tried):
        spatial, temporal, price = split_key(profile)
        options = ReleaseOptions(spatial, temporal, k_anonymity=k, price=price)
        step = control.sub(i / len(tried), (i + 1) / len(tried), f"trying {profile} with k = {k}")
        prepared = prepare_release(dataset, options, measure_settings(project), step, policy(project))
        if prepared.passes:
            found.append(Suggestion(profile, k, prepared.released.people, prepared.before.people))
    return found


def recommended_profile(project: Project) -> tuple[str, str]:
    """(spatial, temporal) of the profile the project recommends; :class:`ReleaseError` when there is none,
    naming what would pass (or the least risky profile, which needs suppression)."""
    c = candidates(project)
    if c.recommended is None:
        if c.passing:
            what = f"profiles that meet every criterion: {', '.join(c.passing)}"
        elif c.least_risky:
            what = (
                f"no profile meets the criteria without suppression; the least risky is {c.least_risky}: "
                f"release it with suppression (--profile {c.least_risky} with --k-anonymity or "
                "--min-people-per-point), and the file will be judged as written"
            )
        else:
            what = "run its risk analysis first, or name a profile with --profile SPATIAL:TEMPORAL"
        raise ReleaseError(f"the project recommends no profile ({c.why_none}); {what}")
    spatial, temporal, _price = split_key(c.recommended)
    return spatial, temporal


def recommended_price(project: Project) -> str:
    """The price choice (``none`` or bins per factor of ten) of the profile the project recommends."""
    inputs = resolve_inputs(project)
    rec = inputs.recommendation
    if inputs.grid is None or rec is None or rec.label is None:
        return "none"
    return inputs.grid.price[inputs.grid.labels.index(rec.label)]
