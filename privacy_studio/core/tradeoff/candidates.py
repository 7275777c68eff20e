"""Release candidates: a profile together with a suppression, measured as its release would be written.

The search over them lives in ``core.release.search``; these are the typed records it returns and the
project keeps (``analyses["protection_search"]``), which the command line, the report and the window read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.tradeoff.criteria import CriterionCheck

#: The suppression thresholds in the release's own fixed order, with the ``release`` flag of each.
SUPPRESSION_FLAGS: dict[str, str] = {
    "max_points_per_person": "--max-points-per-person",
    "min_people_per_point": "--min-people-per-point",
    "k_anonymity": "--k-anonymity",
}


def _threshold(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1 or null, got {value!r}")
    return value


@dataclass(frozen=True)
class Suppression:
    """The suppression a candidate applies (None = that step is not used): whole-trace k-anonymity K,
    points held by fewer than M people dropped, each person capped to their N most visited points."""

    k_anonymity: int | None = None
    min_people_per_point: int | None = None
    max_points_per_person: int | None = None

    def __post_init__(self) -> None:
        for name in SUPPRESSION_FLAGS:
            _threshold(getattr(self, name), name)

    @property
    def none(self) -> bool:
        """Whether nothing is suppressed."""
        return all(getattr(self, name) is None for name in SUPPRESSION_FLAGS)

    def describe(self) -> str:
        """The suppression in words, e.g. ``k-anonymity 5, points of fewer than 2 people dropped``."""
        parts = []
        if self.max_points_per_person is not None:
            parts.append(f"at most {self.max_points_per_person} points per person")
        if self.min_people_per_point is not None:
            parts.append(f"points of fewer than {self.min_people_per_point} people dropped")
        if self.k_anonymity is not None:
            parts.append(f"k-anonymity {self.k_anonymity}")
        return ", ".join(parts) if parts else "no suppression"

    def flags(self) -> list[str]:
        """The ``release`` flags that ask for this suppression."""
        out = []
        for name, flag in SUPPRESSION_FLAGS.items():
            if getattr(self, name) is not None:
                out += [flag, str(getattr(self, name))]
        return out

    def to_dict(self) -> dict[str, int | None]:
        return {
            "k_anonymity": self.k_anonymity,
            "min_people_per_point": self.min_people_per_point,
            "max_points_per_person": self.max_points_per_person,
        }

    @classmethod
    def from_dict(cls, d: Any) -> Suppression:
        """Inverse of :meth:`to_dict`; ``ValueError`` (one sentence) for anything else."""
        if not isinstance(d, dict) or set(d) - set(SUPPRESSION_FLAGS):
            raise ValueError(f"a suppression is an object with {', '.join(SUPPRESSION_FLAGS)}, got {d!r}")
        return cls(**{name: _threshold(d.get(name), name) for name in SUPPRESSION_FLAGS})


#: The ladder the search tries on every profile, weakest first (docs/tradeoff.md says why these): no
#: suppression; whole-trace k-anonymity K alone; K after dropping the points fewer than K people hold
#: (such a point can never be in a K-anonymous trace, so dropping it first keeps its owner); and the
#: same after capping each person to their 10 most visited points (shorter traces are shared more often).
DEFAULT_LADDER: tuple[Suppression, ...] = (
    Suppression(),
    *(Suppression(k) for k in (2, 3, 5, 10)),
    *(Suppression(k, k) for k in (2, 3, 5, 10)),
    *(Suppression(k, k, 10) for k in (2, 3, 5, 10)),
)


def check_from_dict(d: Any) -> CriterionCheck:
    """A :class:`CriterionCheck` from its ``to_dict`` form."""
    if not isinstance(d, dict) or not {"name", "limit", "value", "passed"} <= set(d):
        raise ValueError(f"a criterion check needs name, limit, value and passed, got {d!r}")
    value = d["value"]
    return CriterionCheck(
        str(d["name"]),
        float(d["limit"]),
        None if value is None else float(value),
        bool(d["passed"]),
        str(d.get("note", "")),
        bool(d.get("lower_bound", False)),
        None if d.get("upper") is None else float(d["upper"]),
    )


#: How a candidate's verdict was reached.
MEASURED = "measured"  # released rows built and measured as written, judged by the release criteria
FROM_RUN = "project run"  # no suppression and failing in the project's own run (the same criteria)
SKIPPED = "not measured"  # less useful than the recommended candidate: it could not have been chosen


@dataclass(frozen=True)
class Candidate:
    """One profile with one suppression: who its release keeps, its utility after suppression and, once
    measured, the release criteria checked on its rows as written."""

    profile: str  # as ``release --profile`` takes it, e.g. ``grid:5:1w``
    label: str  # the profile's label in the project's results, e.g. ``grid:5 × 1w``
    suppression: Suppression
    total_people: int  # people in the data at the profile, before suppression
    released_people: int
    released_rows: int  # rows of the release (one per person and point)
    released_events: int  # events those rows stand for
    utility: float  # the project's utility measure after suppression (NaN when it cannot be scored)
    verdict: str = SKIPPED  # MEASURED, FROM_RUN or SKIPPED
    checks: tuple[CriterionCheck, ...] = ()
    passes: bool = False
    p: int | None = None  # once measured: the p of the figures at p, the people they were drawn from and
    sampled_at_p: int | None = None  # those left out of them for having fewer than p points
    excluded_at_p: int | None = None

    @property
    def released_share(self) -> float:
        return self.released_people / self.total_people if self.total_people else 0.0

    def name(self) -> str:
        """The candidate in words, e.g. ``5 km squares × 1 week with k-anonymity 2``."""
        how = self.suppression.describe()
        return label_words(self.label) + ("" if self.suppression.none else f" with {how}")

    def why_failed(self) -> str:
        """The failing criteria in words, or why it was not measured."""
        if self.verdict == SKIPPED:
            return "not measured: less useful than the recommended candidate (or without a utility score)"
        failed = [c for c in self.checks if not c.passed]
        if not self.checks:
            return "nobody is left to release"
        return "; ".join(f"{c.name} is {c.value_text()} (limit {share(c.limit)})" for c in failed)

    def coverage(self) -> str:
        """Whom the figures at p cover, e.g. ``the figures at p = 4 cover 241 of the 3,451 released people
        (3,210 have fewer than 4 points)``; empty before it is measured."""
        if self.p is None or self.sampled_at_p is None or self.excluded_at_p is None:
            return ""
        covered = self.sampled_at_p - self.excluded_at_p
        sampled = (
            "" if self.sampled_at_p == self.released_people else f", a sample of {count(self.sampled_at_p)}"
        )
        return (
            f"the figures at p = {self.p} cover {count(covered)} of the {count(self.released_people)} "
            f"released people{sampled} ({count(self.excluded_at_p)} have fewer than {self.p} points)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "label": self.label,
            "suppression": self.suppression.to_dict(),
            "total_people": self.total_people,
            "released_people": self.released_people,
            "released_rows": self.released_rows,
            "released_events": self.released_events,
            "released_share": self.released_share,
            "utility": self.utility if math.isfinite(self.utility) else None,
            "verdict": self.verdict,
            "criteria": [{**c.to_dict(), "note": c.note} for c in self.checks],
            "passes": self.passes,
            "p": self.p,
            "sampled_at_p": self.sampled_at_p,
            "excluded_at_p": self.excluded_at_p,
        }

    @classmethod
    def from_dict(cls, d: Any) -> Candidate:
        if not isinstance(d, dict):
            raise ValueError(f"a candidate must be an object, got {type(d).__name__}")
        verdict = d.get("verdict", SKIPPED)
        if verdict not in (MEASURED, FROM_RUN, SKIPPED):
            raise ValueError(f"unknown candidate verdict {verdict!r}")
        counts = {}
        for key in ("total_people", "released_people", "released_rows", "released_events"):
            value = d.get(key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"candidate {key} must be a whole number ≥ 0, got {value!r}")
            counts[key] = value
        utility = d.get("utility")
        return cls(
            profile=str(d["profile"]),
            label=str(d["label"]),
            suppression=Suppression.from_dict(d["suppression"]),
            **counts,
            utility=math.nan if utility is None else float(utility),
            verdict=verdict,
            checks=tuple(check_from_dict(c) for c in d.get("criteria") or []),
            passes=bool(d.get("passes", False)),
            **{key: _threshold(d.get(key), key) for key in ("p", "sampled_at_p")},
            excluded_at_p=None if d.get("excluded_at_p") is None else int(d["excluded_at_p"]),
        )


@dataclass(frozen=True)
class SearchResult:
    """The candidates in the order they were evaluated, the recommended one (the most useful that passes
    every release criterion) or why there is none, the ladder used, the time taken, and what the search
    was judged by (so a later change of criteria, measure or utility shows it is out of date)."""

    KEY: ClassVar[str] = "protection_search"
    VERSION: ClassVar[int] = 1
    candidates: tuple[Candidate, ...]
    recommended: Candidate | None
    why_none: str
    ladder: tuple[Suppression, ...]
    seconds: float
    utility_name: str
    judged_by: dict[str, Any] = field(default_factory=dict)  # measure, p, criteria as the project saved them

    def lines(self, utility_title: str = "utility") -> list[str]:
        """The search in plain sentences: what was searched, the recommended candidate or why none, and
        the most useful candidates that failed, with why."""
        measured = self.measured()
        from_run = sum(c.verdict == FROM_RUN for c in measured)
        profiles = len(dict.fromkeys(c.profile for c in self.candidates))
        out = [
            f"Protection search: {count(len(self.candidates))} candidates ({count(profiles)} profiles × "
            f"{count(len(self.ladder))} suppression settings) in {number(self.seconds)} s; "
            f"{count(len(measured) - from_run)} measured on their rows as written, {count(from_run)} "
            "without suppression judged by the project's run, the rest not measured (less useful than "
            "the recommended candidate, so they could not have been chosen)."
        ]
        c = self.recommended
        if c is None:
            out.append(f"Recommended candidate: none ({self.why_none}).")
        else:
            out.append(
                f"Recommended candidate: {c.name()}, the most useful that meets every release criterion "
                f"on its rows as written: {count(c.released_people)} of {count(c.total_people)} people "
                f"released ({share(c.released_share)}), {count(c.released_rows)} rows for "
                f"{count(c.released_events)} events, {utility_title} {number(c.utility)} after suppression; "
                f"{c.coverage()}."
            )
            out += [f"  ✓ {k.name}: {k.value_text()} (limit {share(k.limit)})" for k in c.checks]
        failed = self.best_failing()
        if failed:
            out.append("More useful candidates that fail, and why:")
            out += [
                f"  {f.name()} ({utility_title} {number(f.utility)}, {count(f.released_people)} of "
                f"{count(f.total_people)} people): {f.why_failed()}"
                for f in failed
            ]
        return out

    def measured(self) -> list[Candidate]:
        return [c for c in self.candidates if c.verdict != SKIPPED]

    def best_failing(self, n: int = 5) -> list[Candidate]:
        """The ``n`` most useful candidates that were judged and failed."""
        failed = [c for c in self.measured() if not c.passes]
        return sorted(failed, key=lambda c: -c.utility if math.isfinite(c.utility) else math.inf)[:n]

    def to_dict(self) -> dict[str, Any]:
        index = None if self.recommended is None else self.candidates.index(self.recommended)
        return {
            "version": self.VERSION,
            "candidates": [c.to_dict() for c in self.candidates],
            "recommended": index,
            "why_none": self.why_none,
            "ladder": [s.to_dict() for s in self.ladder],
            "seconds": self.seconds,
            "utility": self.utility_name,
            "judged_by": self.judged_by,
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> SearchResult:
        """Inverse of :meth:`to_dict`; ``ValueError`` naming ``where`` for a damaged record."""
        try:
            if not isinstance(d, dict) or d.get("version") != cls.VERSION:
                raise ValueError(f"not a version {cls.VERSION} record")
            candidates = tuple(Candidate.from_dict(c) for c in d["candidates"])
            index = d.get("recommended")
            if index is not None and not (isinstance(index, int) and 0 <= index < len(candidates)):
                raise ValueError(f"recommended {index!r} is not a candidate's position")
            judged_by = d.get("judged_by") or {}
            if not isinstance(judged_by, dict):
                raise ValueError("judged_by must be an object")
            return cls(
                candidates,
                None if index is None else candidates[index],
                str(d.get("why_none", "")),
                tuple(Suppression.from_dict(s) for s in d.get("ladder") or []),
                float(d.get("seconds", 0.0)),
                str(d.get("utility", "")),
                judged_by,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{where}: not a protection search ({exc})") from None
