"""Typed analyses kept in a project's ``analyses`` section and its ``tradeoff`` choices.

Each analysis is a dataclass with a ``version`` and ``to_dict`` / ``from_dict``; ``from_dict`` validates
(types, ranges) with one clear sentence per problem and reads the unversioned forms older studios wrote.
The window, the command line and the report read and write them only through :func:`read_analysis` and
:func:`store_analysis`, under the key each class names.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, TypeVar

import numpy as np

from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import number, share
from privacy_studio.core.release_error import ReleaseError
from privacy_studio.core.risk.catalogue import DEFAULT_RISK, RISK_FIELDS, risk_field
from privacy_studio.core.tradeoff.candidates import SearchResult
from privacy_studio.core.tradeoff.criteria import REASONS_KEY, ReleaseCriteria
from privacy_studio.core.tradeoff.grid import RISK_MEASURES
from privacy_studio.core.tradeoff.groups import GroupReport, GroupRow


class AnalysisError(ValueError):
    """A saved analysis that does not have the expected shape; the message names the field."""


def _number(value: Any, where: str, low: float = -math.inf, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not (low <= value <= high):
        raise AnalysisError(f"{where} must be a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _whole(value: Any, where: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise AnalysisError(f"{where} must be a whole number ≥ {low}, got {value!r}")
    return value


def _p(value: Any, where: str) -> int | None:
    return None if value is None else _whole(value, where, 1)


def _version(d: dict[str, Any], cls: type, where: str) -> None:
    version = d.get("version", 1)
    if version != cls.VERSION:
        raise AnalysisError(f"{where}: version {version!r} is not one this studio reads ({cls.VERSION})")


def _versioned(analysis: Any) -> dict[str, Any]:
    """A flat analysis dataclass as JSON, with its version first."""
    return {"version": analysis.VERSION, **asdict(analysis)}


def _paired_lists(d: dict[str, Any], a: str, b: str, where: str) -> tuple[list[Any], list[Any]]:
    """Two lists of ``d`` that go together, one entry per item: ``AnalysisError`` unless they do."""
    first, second = d.get(a), d.get(b)
    if not isinstance(first, list) or not isinstance(second, list) or len(first) != len(second):
        raise AnalysisError(f"{where}: {a!r} and {b!r} must be lists of the same length")
    return first, second


def _object(d: Any, where: str) -> dict[str, Any]:
    if not isinstance(d, dict):
        raise AnalysisError(f"{where} must be an object, got {type(d).__name__}")
    return d


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
        d = _object(d, where)
        if "scores" not in d:  # studio 0.1 kept {label: {score: value}} without a version
            d = {"scores": d, "problems": {}}
        _version(d, cls, where)
        scores = {
            str(label): {
                str(name): _number(value, f"{where}: {label} / {name}", 0.0, 10.0)
                for name, value in _object(row, f"{where}: {label}").items()
            }
            for label, row in _object(d["scores"], f"{where}.scores").items()
        }
        problems = {str(k): str(v) for k, v in _object(d.get("problems", {}), f"{where}.problems").items()}
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
        areas = {k: _finite(v) for k, v in self.unit_areas.items()}
        return {"version": self.VERSION, "unit_areas": areas, "period_seconds": _finite(self.period_seconds)}

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> ProfileSizes:
        d = _object(d, where)
        _version(d, cls, where)
        areas = {
            str(k): math.nan if v is None else _number(v, f"{where}.unit_areas.{k}", 0.0)
            for k, v in _object(d.get("unit_areas", {}), f"{where}.unit_areas").items()
        }
        period = d.get("period_seconds")
        return cls(areas, math.nan if period is None else _number(period, f"{where}.period_seconds", 0.0))


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

    def sentence(self) -> str:
        """E.g. ``Over 5 seeds, unicity at p = 4 of district × 1w ranges from 2.1 % to 2.6 %.``"""
        known = [v for v in self.values if v is not None]
        field = RISK_FIELDS.get(self.measure)
        name = self.measure if field is None else field.label
        where = name if self.p is None else f"{name} at p = {self.p}"
        profile = label_words(self.profile)
        if not known:
            return f"Over {len(self.seeds)} seeds, {where} of {profile} was never defined."
        value = share if field is None or field.proportion else number
        return (
            f"Over {len(self.seeds)} seeds ({', '.join(map(str, self.seeds))}), {where} of {profile} "
            f"ranges from {value(min(known))} to {value(max(known))}."
        )

    def to_dict(self) -> dict[str, Any]:
        return _versioned(self)

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> SeedSpread:
        d = _object(d, where)
        _version(d, cls, where)
        seeds, values = _paired_lists(d, "seeds", "values", where)
        return cls(
            str(d.get("profile", "")),
            str(d.get("measure", DEFAULT_RISK)),
            _p(d.get("p"), f"{where}.p"),
            [_whole(s, f"{where}.seeds") for s in seeds],
            [None if v is None else _number(v, f"{where}.values") for v in values],
        )


@dataclass
class PopulationExtrapolation:
    """Risk measured on random user subsets of one profile, and the population it is extrapolated to."""

    KEY: ClassVar[str] = "population_extrapolation"
    VERSION: ClassVar[int] = 1
    measure: str
    p: int | None
    profile: str
    n: list[float]
    risk: list[float]
    population: int
    model: str = "power"

    def to_dict(self) -> dict[str, Any]:
        return _versioned(self)

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> PopulationExtrapolation:
        from privacy_studio.core.tradeoff.extrapolation import MODELS

        d = _object(d, where)
        _version(d, cls, where)
        n, risk = _paired_lists(d, "n", "risk", where)
        if not n:
            raise AnalysisError(f"{where}: 'n' and 'risk' are empty: no subsample was measured")
        model = d.get("model", "power")
        if model not in MODELS:
            raise AnalysisError(f"{where}: unknown model {model!r}; use one of {', '.join(MODELS)}")
        return cls(
            measure=str(d.get("measure", DEFAULT_RISK)),
            p=_p(d.get("p"), f"{where}.p"),
            profile=str(d.get("profile", "")),
            n=[_number(v, f"{where}.n", 1.0) for v in n],
            risk=[_number(v, f"{where}.risk", 0.0, 1.0) for v in risk],
            population=_whole(d.get("population"), f"{where}.population", 1),
            model=model,
        )


@dataclass
class RiskByGroup:
    """Uniqueness by group of people at one profile, with odds ratios where they carry information."""

    KEY: ClassVar[str] = "risk_by_group"
    VERSION: ClassVar[int] = 1
    profile: str
    report: GroupReport

    def to_dict(self) -> dict[str, Any]:
        r = self.report
        return {
            "version": self.VERSION,
            "profile": self.profile,
            "n_matched": r.n_matched,
            "n_without_attributes": r.n_without_attributes,
            "n_without_risk": r.n_without_risk,
            "odds_note": r.odds_note,
            "groups": [{k: _finite(v) for k, v in asdict(row).items()} for row in r.rows],
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> RiskByGroup:
        d = _object(d, where)
        _version(d, cls, where)
        names = [f.name for f in fields(GroupRow)]
        rows = []
        for i, g in enumerate(d.get("groups") or []):
            g = _object(g, f"{where}.groups[{i}]")
            missing = [k for k in names if k not in g]
            if missing:
                raise AnalysisError(f"{where}.groups[{i}] lacks {', '.join(missing)}")
            rows.append(GroupRow(**{k: math.nan if g[k] is None else g[k] for k in names}))
        counts = [
            _whole(d.get(k, 0), f"{where}.{k}")
            for k in ("n_matched", "n_without_attributes", "n_without_risk")
        ]
        return cls(str(d.get("profile", "")), GroupReport(rows, *counts, str(d.get("odds_note", ""))))


def _finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


@dataclass
class StoredResults:
    """Results another page keeps as they came (attacks by kind, anonymizability by level, the release):
    checked for their container type, versioned, and handed back unchanged."""

    KEY: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    CONTAINER: ClassVar[type] = dict
    content: Any

    def to_dict(self) -> Any:
        return self.content

    @classmethod
    def from_dict(cls, d: Any, where: str = "") -> StoredResults:
        if not isinstance(d, cls.CONTAINER):
            kind = "an object" if cls.CONTAINER is dict else "a list"
            raise AnalysisError(f"{where or cls.KEY} must be {kind}, got {type(d).__name__}")
        return cls(d)


class AttackResults(StoredResults):
    """Linkage attacks by kind (``run_attack`` results)."""

    KEY = "attacks"


class AnonymizabilityResults(StoredResults):
    """The Anonymizability page's state: one result per level (or the CLI's JSON)."""

    KEY = "anonymizability"
    CONTAINER = (list, dict)  # type: ignore[assignment]


class AttackInputs(StoredResults):
    """The Attacks page's text inputs (file paths, columns), so a reopened project shows them again."""

    KEY = "attack_inputs"


class ReleaseRecord:
    """The manifest of the last release made from the project (``core.release``), read through its own
    versioned ``from_dict``."""

    KEY: ClassVar[str] = "release"

    @staticmethod
    def from_dict(d: Any, where: str = KEY) -> Any:
        try:
            return release_kind("rows").from_dict(_object(d, where))  # type: ignore[union-attr]
        except (ReleaseError, KeyError, TypeError) as exc:
            raise AnalysisError(f"{where}: not a release manifest ({exc})") from None


#: Kinds of release a project records -> (module, class) of their typed record, read lazily (the release
#: package builds on this module): ``rows``, the data at a profile; ``aggregate``, a differentially private
#: table. Records of a kind this studio does not know are kept as they are.
RELEASE_KINDS: dict[str, tuple[str, str]] = {
    "rows": ("privacy_studio.core.release.manifest", "ReleaseManifest"),
    "aggregate": ("privacy_studio.core.aggregate.manifest", "AggregateManifest"),
}


@dataclass(frozen=True)
class UnknownRelease:
    """A release record of a kind this studio does not read, kept unchanged."""

    kind: str
    content: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.content


def release_kind(kind: str) -> type | None:
    """The record class of a release kind, None when unknown."""

    where = RELEASE_KINDS.get(kind)
    return None if where is None else getattr(importlib.import_module(where[0]), where[1])


@dataclass
class ReleaseHistory:
    """Every release made from the project, oldest first, each under its kind (``rows``: the data at a
    profile, ``ReleaseManifest``). Projects that kept only their last release start from that one."""

    KEY: ClassVar[str] = "releases"
    VERSION: ClassVar[int] = 1
    entries: list[tuple[str, Any]] = field(default_factory=list)  # (kind, typed record)

    def of_kind(self, kind: str) -> list[Any]:
        return [record for k, record in self.entries if k == kind]

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.VERSION,
            "releases": [{"kind": kind, "record": record.to_dict()} for kind, record in self.entries],
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> ReleaseHistory:
        d = _object(d, where)
        _version(d, cls, where)
        entries = []
        for i, entry in enumerate(d.get("releases") or []):
            entry = _object(entry, f"{where}.releases[{i}]")
            kind, record = str(entry.get("kind", "")), _object(entry.get("record"), f"{where}.releases[{i}]")
            reader = release_kind(kind)
            if reader is None:
                entries.append((kind, UnknownRelease(kind, record)))
                continue
            try:
                entries.append((kind, reader.from_dict(record)))
            except (ReleaseError, ValueError, KeyError, TypeError) as exc:
                raise AnalysisError(f"{where}.releases[{i}]: not a {kind} release record ({exc})") from None
        return cls(entries)

    @classmethod
    def of(cls, analyses: dict[str, Any]) -> ReleaseHistory:
        """The project's releases. Older projects kept only their last rows release (``release``) and their
        aggregates apart (``aggregate_releases``): those join the history, in the order they were made."""
        saved = read_analysis(analyses, cls)
        if saved is not None:
            history = saved
        else:
            last = read_analysis(analyses, ReleaseRecord)
            history = cls([] if last is None else [("rows", last)])
        legacy = read_analysis(analyses, AggregateReleases)
        if legacy is not None and legacy.manifests:
            entries = history.entries + [("aggregate", m) for m in legacy.manifests]
            history = cls(sorted(entries, key=lambda e: str(getattr(e[1], "created", ""))))
        return history


def record_release(analyses: dict[str, Any], kind: str, record: Any) -> None:
    """Add a release to the project's history (an older project's separate aggregate list joins it); a
    ``rows`` release also becomes the last one the report describes (``analyses["release"]``)."""
    history = ReleaseHistory.of(analyses)
    history.entries.append((kind, record))
    store_analysis(analyses, history)
    analyses.pop(AggregateReleases.KEY, None)
    if kind == "rows":
        store_analysis(analyses, record)


@dataclass
class AggregateReleases:
    """How projects before the one release history kept their differentially private aggregates
    (``core.aggregate``): read, checked and moved into :class:`ReleaseHistory`, never written anew."""

    KEY: ClassVar[str] = "aggregate_releases"
    manifests: list[Any] = field(default_factory=list)

    def to_dict(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.manifests]

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> AggregateReleases:
        if not isinstance(d, list):
            raise AnalysisError(f"{where} must be a list, got {type(d).__name__}")
        # Read lazily, as every release kind (the aggregate package builds on this module); its errors
        # are release errors.
        manifest = release_kind("aggregate")
        try:
            return cls([manifest.from_dict(m) for m in d])  # type: ignore[union-attr]
        except ReleaseError as exc:
            raise AnalysisError(f"{where}: {exc}") from None


ANALYSES: dict[str, type] = {
    cls.KEY: cls
    for cls in (
        ComputedUtility,
        ProfileSizes,
        SeedSpread,
        PopulationExtrapolation,
        RiskByGroup,
        AttackResults,
        AttackInputs,
        AnonymizabilityResults,
        ReleaseRecord,
        ReleaseHistory,
        AggregateReleases,
        SearchResult,
    )
}

A = TypeVar("A")


#: Analyses derived from a run's results (or its profiles): stale once the results are replaced, the
#: protection search too (a new input with the same profiles would otherwise keep its verdicts). Profile
#: sizes, attacks, anonymizability and release records describe the data and the files written: kept.
DERIVED_FROM_RESULTS: tuple[type, ...] = (
    ComputedUtility,
    SeedSpread,
    PopulationExtrapolation,
    RiskByGroup,
    SearchResult,  # its candidates were measured on the data of those results
)


def read_analysis(analyses: dict[str, Any], cls: type[A]) -> A | None:
    """The analysis of type ``cls`` saved in a project's ``analyses``, or None when absent."""
    stored = analyses.get(cls.KEY)  # type: ignore[attr-defined]
    return None if stored is None else cls.from_dict(stored)  # type: ignore[attr-defined]


def store_analysis(analyses: dict[str, Any], analysis: Any) -> None:
    """Keep ``analysis`` in a project's ``analyses`` under its key (replacing the previous one)."""
    analyses[analysis.KEY] = analysis.to_dict()


def validate_analyses(analyses: dict[str, Any]) -> dict[str, Any]:
    """Check every known analysis and bring it to its current form (older unversioned forms are migrated);
    keys this studio does not know are kept untouched."""
    out = dict(analyses)
    for key, cls in ANALYSES.items():
        if analyses.get(key) is not None:
            analysis = cls.from_dict(analyses[key], f"analyses.{key}")
            out[key] = analysis.to_dict()
    return out


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
        d = _object(d, where)
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
        return cls(measure, _p(d.get("risk_p", 4), f"{where}.risk_p"), utility, criteria)
