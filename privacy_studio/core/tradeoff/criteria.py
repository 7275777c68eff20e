"""Release criteria: the limits a profile must meet before it may be released, and each profile's checks.

A profile is judged against several attackers by default: the chosen risk at the reference p, judged on the
upper end of its 95 % interval (the estimate for measures without one), the share of people whose whole
trace is unique (an attacker who knows everything), and the share at worst-case risk 1 (an attacker who
knows the p most telling points), each at most its limit, which is the ceiling unless changed. A changed
limit needs a reason, which the decision record prints. The share of people excluded at the reference p
(fewer than p points) and the attribute-disclosure shares (homogeneous, below distinct or entropy l,
above t) of the worst sensitive attribute are optional criteria. Every limit is a share strictly between 0
and 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from privacy_studio.core.numbers import lower_bound, share
from privacy_studio.core.tradeoff.grid import GridTable

#: The limits besides the ceiling: key in a project's ``tradeoff`` section -> what the limit applies to.
OPTIONAL_CRITERIA: dict[str, str] = {
    "max_unique_traces": "share of people with a unique whole trace",
    "max_worst_share": "share of people at worst-case risk 1",
    "max_excluded": "share of people excluded (fewer than p points)",
    "max_homogeneous": "share of people whose class has one value of a sensitive attribute",
    "max_below_distinct_l": "share of people whose class has fewer than l values of a sensitive attribute",
    "max_below_entropy_l": "share of people whose class is below entropy l for a sensitive attribute",
    "max_above_t": "share of people whose class is farther than t from the file for a sensitive attribute",
}
#: The attribute-disclosure criteria: key -> the figure of ``AttributeFigures`` they limit.
ATTRIBUTE_CRITERIA: dict[str, str] = {
    "max_homogeneous": "homogeneous",
    "max_below_distinct_l": "below_distinct_l",
    "max_below_entropy_l": "below_entropy_l",
    "max_above_t": "above_t",
}
#: The criteria always checked besides the ceiling; their limit is the ceiling unless changed (None).
DEFAULT_CRITERIA: tuple[str, ...] = ("max_unique_traces", "max_worst_share")
#: Key of the reasons for changed limits in a project's ``tradeoff`` section.
REASONS_KEY = "limit_reasons"


def check_share_limit(value: Any, name: str) -> float:
    """A limit strictly between 0 and 1, or a ``ValueError`` that says why; a limit is never relaxed to 1."""
    try:
        limit = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"the {name} must be a number between 0 and 1, got {value!r}") from None
    if not (math.isfinite(limit) and 0.0 < limit < 1.0):
        raise ValueError(
            f"the {name} must lie strictly between 0 and 1 (e.g. 0.05 for 5 %), got {value!r}: "
            "a limit of 0 can never be met and a limit of 1 or more accepts every profile"
        )
    return limit


@dataclass(frozen=True)
class ReleaseCriteria:
    """What a release must meet: a ceiling on the chosen risk, limits on unique whole traces and on the
    worst case (None = the ceiling), an optional limit on the people excluded (None = not used), and the
    reason for every limit that differs from its default."""

    ceiling: float = 0.05
    max_unique_traces: float | None = None
    max_worst_share: float | None = None
    max_excluded: float | None = None
    reasons: dict[str, str] = field(default_factory=dict, compare=False)
    max_homogeneous: float | None = None  # attribute disclosure: judged on the worst attribute and class
    max_below_distinct_l: float | None = None
    max_below_entropy_l: float | None = None
    max_above_t: float | None = None

    def __post_init__(self) -> None:
        check_share_limit(self.ceiling, "risk ceiling")
        for key, what in OPTIONAL_CRITERIA.items():
            if getattr(self, key) is not None:
                check_share_limit(getattr(self, key), f"limit on the {what}")
        unknown = sorted(set(self.reasons) - set(OPTIONAL_CRITERIA))
        if unknown:
            raise ValueError(f"reasons given for unknown limit(s): {', '.join(unknown)}")
        for key in self.changed():
            if not str(self.reasons.get(key) or "").strip():
                raise ValueError(
                    f"the limit on the {OPTIONAL_CRITERIA[key]} differs from its default ("
                    f"{'the ceiling' if key in DEFAULT_CRITERIA else 'not used'}): give the reason for it, "
                    "which goes into the decision record"
                )

    def limit(self, key: str) -> float | None:
        """The limit in force for ``key``: its own, else the ceiling for a default criterion, else None."""
        own = getattr(self, key)
        return own if own is not None else (self.ceiling if key in DEFAULT_CRITERIA else None)

    def changed(self) -> list[str]:
        """The limits that differ from their default (the ceiling, or not used)."""
        return [
            key
            for key in OPTIONAL_CRITERIA
            if getattr(self, key) is not None
            and (key not in DEFAULT_CRITERIA or not math.isclose(getattr(self, key), self.ceiling))
        ]

    @classmethod
    def from_choices(cls, choices: dict[str, Any], ceiling: float | None = None) -> ReleaseCriteria:
        """The criteria saved in a project's ``tradeoff`` section; ``ceiling`` overrides the saved one."""
        limits = {key: choices.get(key) for key in OPTIONAL_CRITERIA}
        saved = choices.get("ceiling", 0.05)
        reasons = choices.get(REASONS_KEY) or {}
        if not isinstance(reasons, dict):
            raise ValueError(f"{REASONS_KEY} must map a limit to its reason, got {reasons!r}")
        return cls(
            ceiling=float(saved if ceiling is None else ceiling),
            **{k: None if v is None else float(v) for k, v in limits.items()},
            reasons={str(k): str(v) for k, v in reasons.items()},
        )

    def to_choices(self) -> dict[str, Any]:
        """The form kept in a project's ``tradeoff`` section."""
        reasons = {REASONS_KEY: dict(self.reasons)} if self.reasons else {}
        return {"ceiling": self.ceiling, **{key: getattr(self, key) for key in OPTIONAL_CRITERIA}, **reasons}

    def reason_lines(self) -> list[str]:
        """Each limit in force and where it comes from, for the decision record."""
        out = []
        for key, what in OPTIONAL_CRITERIA.items():
            limit = self.limit(key)
            if limit is None:
                continue
            why = self.reasons.get(key, "").strip() if key in self.changed() else "the default: the ceiling"
            out.append(f"Limit on the {what}: {100 * limit:.3g} % ({why}).")
        return out


@dataclass(frozen=True)
class CriterionCheck:
    """One criterion applied to one profile; an unknown value fails (nothing may pass unmeasured)."""

    name: str
    limit: float
    value: float | None
    passed: bool
    note: str = ""
    lower_bound: bool = False  # the value is a lower bound (a searched worst case): the truth may be higher
    upper: float | None = None  # with a lower bound: what the truth is proven not to exceed (None: unknown)

    def value_text(self) -> str:
        """The value as a percentage; ``≥`` before a lower bound, then ``≤`` its upper one if known."""
        if self.value is None:
            return "not measured"
        if not self.lower_bound:
            return share(self.value)
        return lower_bound(self.value) + ("" if self.upper is None else f", ≤ {share(self.upper)}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "limit": self.limit,
            "value": self.value,
            "passed": self.passed,
            "lower_bound": self.lower_bound,
            "upper": self.upper,
        }


def _check(name: str, limit: float, value: float, note: str = "") -> CriterionCheck:
    known = math.isfinite(value)
    if not known:
        return CriterionCheck(name, limit, None, False, "not measured")
    return CriterionCheck(name, limit, value, value <= limit, note)


def _worst_check(name: str, limit: float, value: float, how: str, bound: tuple[float, str]) -> CriterionCheck:
    """The worst-case criterion. An exact share is judged as it is. A searched share is only a lower bound:
    over the limit it fails; within it, it passes only when a proven upper bound (``bound``: the people with
    a unique whole trace, or NaN and why there is none) is within the limit too, since a bound below the
    limit cannot show the truth is."""
    if how == "exact" or not math.isfinite(value):
        return _check(name, limit, value, how)
    upper, why_none = bound
    known_upper = math.isfinite(upper)
    bounded = replace(
        _check(name, limit, value, f"a lower bound ({how})"),
        lower_bound=True,
        upper=upper if known_upper else None,
    )
    if value > limit:
        return bounded
    if known_upper and upper <= limit:
        return replace(bounded, note=f"{bounded.note}; at most the people with a unique whole trace")
    why = (
        f"up to {share(upper)} (the people with a unique whole trace) may be at risk 1"
        if known_upper
        else why_none
    )
    return replace(
        bounded, passed=False, note=f"{bounded.note}, which cannot show it is within the limit: {why}"
    )


def check_profiles(
    grid: GridTable, criteria: ReleaseCriteria, measure: str, p: int | None, risk_name: str
) -> list[list[CriterionCheck]]:
    """The checks of every profile (grid order): the ceiling first, then unique whole traces and the worst
    case (always), then the people excluded when that limit is used."""
    bound = grid.values(measure, p)
    upper = grid.upper(measure, p)
    judged_on = "estimate"
    if upper is not None:
        bound = np.where(np.isfinite(upper), upper, bound)
        judged_on = "upper end of the 95 % interval"
    no_notes = [""] * len(grid.labels)
    exact = ["exact: every choice of points of every person" if m == "exact" else "" for m in grid.methods(p)]
    columns: list[tuple[str, float, np.ndarray, list[str]]] = [
        (f"{risk_name} ({judged_on})", criteria.ceiling, bound, exact)
    ]
    unique = grid.unique_traces()
    columns.append(
        (OPTIONAL_CRITERIA["max_unique_traces"], criteria.limit("max_unique_traces"), unique, no_notes)
    )
    worst_name = f"{OPTIONAL_CRITERIA['max_worst_share']} at p = {p}"
    worst_limit = criteria.limit("max_worst_share")
    hows = [
        "exact" if is_exact else "limited search" if cut else "searched"
        for is_exact, (cut, _) in zip(grid.worst_exact(p), grid.search_cut(p), strict=True)
    ]
    values, bounds = grid.values("worst_share_at_1", p), grid.worst_upper(p)
    worst = [
        _worst_check(worst_name, worst_limit, float(values[i]), hows[i], bounds[i])  # type: ignore[arg-type]
        for i in range(len(grid.labels))
    ]
    if criteria.max_excluded is not None:
        population = grid.population(p)
        share = np.asarray([pop.excluded_share for pop in population], dtype=np.float64)
        columns.append((OPTIONAL_CRITERIA["max_excluded"], criteria.max_excluded, share, no_notes))
    for key, figure in ATTRIBUTE_CRITERIA.items():
        limit = getattr(criteria, key)
        if limit is not None:
            notes = ["the worst sensitive attribute and class"] * len(grid.labels)
            columns.append((OPTIONAL_CRITERIA[key], limit, grid.attribute_share(figure), notes))
    checks = [
        [_check(name, limit, float(values[i]), notes[i]) for name, limit, values, notes in columns]
        for i in range(len(grid.labels))
    ]
    return [[*row[:2], worst[i], *row[2:]] for i, row in enumerate(checks)]
