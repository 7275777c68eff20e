"""What a project suggests for a release: its recommended profile (else its least risky one), the policy a
release is judged by, and the settings of its figures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from privacy_studio.core.release.judge import Policy
from privacy_studio.core.release.measure import MeasureSettings
from privacy_studio.core.release.options import ReleaseError
from privacy_studio.core.risk.catalogue import FIELD_MEASURE

if TYPE_CHECKING:
    from privacy_studio.core.project import Project

#: Catalogue measures whose results the release criteria read (the risk measure's own is added to them).
CRITERIA_MEASURES = ("unicity", "k_anonymity", "worst_case")


@dataclass(frozen=True)
class Candidates:
    """The grid's profiles as ``spatial:temporal``, the recommended one, the least risky one (judged as the
    criteria judge it) and those that meet every criterion on the data before any suppression."""

    profiles: list[str]
    recommended: str | None
    least_risky: str | None
    passing: list[str]
    why_none: str  # why nothing is recommended ("" when something is)

    @property
    def default(self) -> str | None:
        """The profile a release starts from: the recommendation, else the least risky profile."""
        return self.recommended or self.least_risky


def _key(spatial: str, temporal: str) -> str:
    return f"{spatial}:{temporal}"


def candidates(project: Project) -> Candidates:
    """The project's release candidates from the same decision the report and the trade-off derive."""
    from privacy_studio.core.report.inputs import resolve_inputs

    settings = project.settings
    cells = settings.get("cells") or [
        (s, t) for s in settings.get("spatial", []) for t in settings.get("temporal", [])
    ]
    profiles = [_key(s, t) for s, t in cells]
    inputs = resolve_inputs(project)
    grid, analysis = inputs.grid, inputs.analysis
    if grid is None:
        return Candidates(profiles, None, None, [], "it has no risk results yet")
    keys = [_key(s, t) for s, t in zip(grid.spatial, grid.temporal, strict=True)]
    if analysis is None:
        return Candidates(
            profiles, None, None, [], " ".join(inputs.notes) or "its trade-off cannot be derived"
        )
    bound = analysis.risk if analysis.risk_upper is None else analysis.risk_upper
    bound = np.where(np.isfinite(bound), bound, analysis.risk)
    known = np.flatnonzero(np.isfinite(bound))
    least = keys[int(min(known, key=lambda i: (bound[i], i)))] if len(known) else None
    passing = [keys[i] for i, checks in enumerate(analysis.checks) if all(c.passed for c in checks)]
    rec = analysis.recommendation
    recommended = keys[grid.labels.index(rec.label)] if rec.label is not None else None
    why = "" if recommended else (rec.warning or "no profile meets its criteria and utility").rstrip(".")
    return Candidates(profiles, recommended, least, passing, why)


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
    spatial, _, temporal = c.recommended.rpartition(":")
    return spatial, temporal


def policy(project: Project) -> Policy:
    """The project's risk measure, p and release criteria, as the trade-off uses them."""
    choice = project.choice()
    return Policy(choice.risk_measure, choice.risk_p, choice.criteria)


def measure_settings(project: Project) -> MeasureSettings:
    """The project's p (of its trade-off), sample size and seed, so release figures compare with its own,
    and the measures its release criteria read."""
    choice = project.choice()
    p = choice.risk_p or project.settings.get("reference_p") or 4
    return MeasureSettings(
        p=int(p),
        samples=int(project.settings.get("samples", 10000)),
        seed=int(project.settings.get("seed", 0)),
        measures=tuple(dict.fromkeys([*CRITERIA_MEASURES, FIELD_MEASURE[choice.risk_measure].name])),
    )
