"""The policy a project's releases are judged by, the settings of their figures, and profile keys
(``district:1w:none``); what the project recommends is ``core/release_advice.py``."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from privacy_studio.core.release.judge import Policy
from privacy_studio.core.release.measure import MeasureSettings
from privacy_studio.core.release.options import ReleaseError
from privacy_studio.core.risk.catalogue import FIELD_MEASURE, UNICITY
from privacy_studio.core.tradeoff.criteria import ATTRIBUTE_CRITERIA

if TYPE_CHECKING:
    from privacy_studio.core.project import Project

#: Catalogue measures whose results the release criteria read (the risk measure's own is added to them).
CRITERIA_MEASURES = (UNICITY, "k_anonymity", "worst_case")


def profile_key(spatial: str, temporal: str, price: str = "none") -> str:
    """A profile as ``--profile`` takes it: ``district:1w``, ``shop:1d:price/3`` with the amount in bins."""
    return f"{spatial}:{temporal}" + ("" if price == "none" else f":price/{price}")


def split_key(key: str) -> tuple[str, str, str]:
    """(spatial, temporal, price) of a :func:`profile_key` (``grid:5`` has a colon too)."""
    place_time, _, price = key.partition(":price/") if ":price/" in key else (key, "", "none")
    spatial, _, temporal = place_time.rpartition(":")
    return spatial, temporal, price


def policy(project: Project) -> Policy:
    """The project's risk measure, p and release criteria, as the trade-off uses them."""
    choice = project.choice()
    return Policy(choice.risk_measure, choice.risk_p, choice.criteria)


def measure_settings(project: Project) -> MeasureSettings:
    """The project's p (of its trade-off), sample size and seed, so release figures compare with its own,
    and the measures its release criteria read."""
    choice, risk = project.choice(), project.risk_settings()
    settings = MeasureSettings(
        p=int(choice.risk_p or risk.reference_p or 4),
        samples=risk.samples,
        seed=risk.seed,
        measures=tuple(dict.fromkeys([*CRITERIA_MEASURES, FIELD_MEASURE[choice.risk_measure].name])),
    )
    limited = any(choice.criteria.limit(key) is not None for key in ATTRIBUTE_CRITERIA)
    if not (limited and risk.sensitive):
        return settings

    try:
        risk = project.with_attributes(risk)
    except ValueError as exc:  # sensitive columns and an attribute limit, but no attributes file
        raise ReleaseError(str(exc)) from None
    return replace(
        settings,
        attributes=risk.attributes,
        sensitive=tuple(risk.sensitive),
        ordered=tuple(risk.ordered),
        l_diversity=risk.l_diversity,
        t_closeness=risk.t_closeness,
    )
