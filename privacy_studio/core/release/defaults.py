"""What a project suggests for a release: its recommended profile and the settings of its unicity figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from privacy_studio.core.release.measure import MeasureSettings
from privacy_studio.core.release.options import ReleaseError

if TYPE_CHECKING:
    from privacy_studio.core.project import Project


def recommended_profile(project: Project) -> tuple[str, str]:
    """(spatial, temporal) of the profile the project recommends; :class:`ReleaseError` when there is none."""
    from privacy_studio.core.report.inputs import resolve_inputs

    inputs = resolve_inputs(project)
    rec = inputs.recommendation
    if inputs.grid is None or rec is None or rec.label is None:
        why = (
            "it has no risk results yet"
            if inputs.grid is None
            else "no profile meets its ceiling and utility"
        )
        if rec is not None and rec.warning and inputs.grid is not None:
            why = rec.warning.rstrip(".")
        raise ReleaseError(f"the project recommends no profile ({why}): choose one, e.g. district:1w")
    i = inputs.grid.labels.index(rec.label)
    return inputs.grid.spatial[i], inputs.grid.temporal[i]


def recommended_price(project: Project) -> str:
    """The price choice (``none`` or bins per factor of ten) of the profile the project recommends."""
    from privacy_studio.core.report.inputs import resolve_inputs

    inputs = resolve_inputs(project)
    rec = inputs.recommendation
    if inputs.grid is None or rec is None or rec.label is None:
        return "none"
    return inputs.grid.price[inputs.grid.labels.index(rec.label)]


def measure_settings(project: Project) -> MeasureSettings:
    """The project's p (of its trade-off), sample size and seed, so release figures compare with its own."""
    p = project.choice().risk_p or project.settings.get("reference_p") or 4
    return MeasureSettings(
        p=int(p),
        samples=int(project.settings.get("samples", 10000)),
        seed=int(project.settings.get("seed", 0)),
    )
