"""The records a trade-off decision is derived from besides the risk results, as a project keeps them among
its analyses (``core.analyses`` reads and writes them with the others): computed utility, profile sizes,
seed spread, and the trade-off choices with the release criteria."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import number, share
from privacy_studio.core.records import (
    AnalysisError,
    check_version,
    finite_or_none,
    json_object,
    number_in,
    p_value,
    paired_lists,
    versioned,
    whole,
)
from privacy_studio.core.risk.catalogue import DEFAULT_RISK, RISK_FIELDS, risk_field
from privacy_studio.core.tradeoff.criteria import REASONS_KEY, ReleaseCriteria
from privacy_studio.core.tradeoff.grid import RISK_MEASURES


@dataclass
class ComputedUtility:
    """Computed 0-10 utility of every profile (``core.utility.computed_utilities``) and why a profile
    could not be scored."""

    KEY: ClassVar[str] = "information_loss"
    VERSION: ClassVar[int] = 1
    scores: dict[str, dict[str, float]]
    problems: dict[str, str] = field(default_factory=dict)

    def column(self, name: str, labels: list[str]) -> np.ndarray:
        """The score ``name`` of ``labels``; NaN where a profile has none."""
        return np.asarray([self.scores.get(label, {}).get(name, np.nan) for label in labels], np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.VERSION, "scores": self.scores, "problems": self.problems}

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> ComputedUtility:
        d = json_object(d, where)
        if "scores" not in d:  # studio 0.1 kept {label: {score: value}} without a version
            d = {"scores": d, "problems": {}}
        check_version(d, cls, where)
        scores = {
            str(label): {
                str(name): number_in(value, f"{where}: {label} / {name}", 0.0, 10.0)
                for name, value in json_object(row, f"{where}: {label}").items()
            }
            for label, row in json_object(d["scores"], f"{where}.scores").items()
        }
        problems = {
            str(k): str(v) for k, v in json_object(d.get("problems", {}), f"{where}.problems").items()
        }
        return cls(scores, problems)


@dataclass
class ProfileSizes:
    """Mean spatial unit area (km²) of every spatial level of the grid and the observation period: what
    the power law needs besides the risk results, measured on the data when the analysis ran."""

    KEY: ClassVar[str] = "profile_sizes"
    VERSION: ClassVar[int] = 1
    unit_areas: dict[str, float]
    period_seconds: float

    def to_dict(self) -> dict[str, Any]:
        areas = {k: finite_or_none(v) for k, v in self.unit_areas.items()}
        return {
            "version": self.VERSION,
            "unit_areas": areas,
            "period_seconds": finite_or_none(self.period_seconds),
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> ProfileSizes:
        d = json_object(d, where)
        check_version(d, cls, where)
        areas = {
            str(k): math.nan if v is None else number_in(v, f"{where}.unit_areas.{k}", 0.0)
            for k, v in json_object(d.get("unit_areas", {}), f"{where}.unit_areas").items()
        }
        period = d.get("period_seconds")
        return cls(areas, math.nan if period is None else number_in(period, f"{where}.period_seconds", 0.0))


@dataclass
class SeedSpread:
    """The headline risk of one profile recomputed with several seeds: how much it moves with the sample."""

    KEY: ClassVar[str] = "seed_spread"
    VERSION: ClassVar[int] = 1
    profile: str
    measure: str
    p: int | None
    seeds: list[int]
    values: list[float | None]  # None where the measure came out undefined for that seed
    exact: bool = False  # the run computed it exactly: no seed changes it, none was tried

    def sentence(self) -> str:
        """E.g. ``Over 5 seeds, unicity at p = 4 of district × 1w ranges from 2.1 % to 2.6 %.``"""
        known = [v for v in self.values if v is not None]
        field = RISK_FIELDS.get(self.measure)
        name = self.measure if field is None else field.label
        where = name if self.p is None else f"{name} at p = {self.p}"
        profile = label_words(self.profile)
        if self.exact:
            return (
                f"{where[0].upper()}{where[1:]} of {profile} was computed exactly, over every subset of "
                "every trace: it does not depend on a seed."
            )
        if not known:
            return f"Over {len(self.seeds)} seeds, {where} of {profile} was never defined."
        value = share if field is None or field.proportion else number
        return (
            f"Over {len(self.seeds)} seeds ({', '.join(map(str, self.seeds))}), {where} of {profile} "
            f"ranges from {value(min(known))} to {value(max(known))}."
        )

    def to_dict(self) -> dict[str, Any]:
        return versioned(self)

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> SeedSpread:
        d = json_object(d, where)
        check_version(d, cls, where)
        seeds, values = paired_lists(d, "seeds", "values", where)
        return cls(
            str(d.get("profile", "")),
            str(d.get("measure", DEFAULT_RISK)),
            p_value(d.get("p"), f"{where}.p"),
            [whole(s, f"{where}.seeds") for s in seeds],
            [None if v is None else number_in(v, f"{where}.values") for v in values],
            d.get("exact") is True,
        )


@dataclass
class TradeoffChoice:
    """The project's ``tradeoff`` section: the risk measure, p and utility the decision uses, and the
    release criteria (the ceiling and optional limits)."""

    risk_measure: str = DEFAULT_RISK
    risk_p: int | None = 4
    utility: str | None = None
    criteria: ReleaseCriteria = field(default_factory=ReleaseCriteria)

    def to_dict(self) -> dict[str, Any]:
        return {
            "risk_measure": self.risk_measure,
            "risk_p": self.risk_p,
            "utility": self.utility,
            **self.criteria.to_choices(),
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = "tradeoff") -> TradeoffChoice:
        d = json_object(d, where)
        known = {"risk_measure", "risk_p", "utility", REASONS_KEY, *ReleaseCriteria().to_choices()}
        unknown = sorted(set(d) - known)
        if unknown:
            raise AnalysisError(f"{where}: unknown choice(s) {', '.join(unknown)}")
        measure = d.get("risk_measure", DEFAULT_RISK)
        measure = risk_field(measure) if isinstance(measure, str) else measure  # any catalogue word
        if measure not in RISK_MEASURES:
            raise AnalysisError(f"{where}.risk_measure {measure!r} is not one of {', '.join(RISK_MEASURES)}")
        utility = d.get("utility")
        if utility is not None and not isinstance(utility, str):
            raise AnalysisError(f"{where}.utility must be a text or null, got {utility!r}")
        try:
            criteria = ReleaseCriteria.from_choices(d)
        except ValueError as exc:
            raise AnalysisError(f"{where}: {exc}") from None
        return cls(measure, p_value(d.get("risk_p", 4), f"{where}.risk_p"), utility, criteria)
