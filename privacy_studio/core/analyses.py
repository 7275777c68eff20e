"""Typed analyses kept in a project's ``analyses`` section and its ``tradeoff`` choices.

Each analysis is a dataclass with a ``version`` and ``to_dict`` / ``from_dict``; ``from_dict`` validates
(types, ranges) with one clear sentence per problem and reads the unversioned forms older studios wrote.
The window, the command line and the report read and write them only through :func:`read_analysis` and
:func:`store_analysis`, under the key each class names.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, TypeVar

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
from privacy_studio.core.release_error import ReleaseError
from privacy_studio.core.risk.catalogue import DEFAULT_RISK
from privacy_studio.core.tradeoff.candidates import SearchResult
from privacy_studio.core.tradeoff.groups import GroupReport, GroupRow
from privacy_studio.core.tradeoff.records import ComputedUtility, ProfileSizes, SeedSpread, TradeoffChoice

#: Also read from here: the trade-off's records are analyses of a project like the others.
__all__ = ["AnalysisError", "ComputedUtility", "ProfileSizes", "SeedSpread", "TradeoffChoice"]

A = TypeVar("A")  # an analysis class
R = TypeVar("R")  # a release record class of a layer above (a manifest)


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
        return versioned(self)

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> PopulationExtrapolation:
        from privacy_studio.core.tradeoff.extrapolation import MODELS

        d = json_object(d, where)
        check_version(d, cls, where)
        n, risk = paired_lists(d, "n", "risk", where)
        if not n:
            raise AnalysisError(f"{where}: 'n' and 'risk' are empty: no subsample was measured")
        model = d.get("model", "power")
        if model not in MODELS:
            raise AnalysisError(f"{where}: unknown model {model!r}; use one of {', '.join(MODELS)}")
        return cls(
            measure=str(d.get("measure", DEFAULT_RISK)),
            p=p_value(d.get("p"), f"{where}.p"),
            profile=str(d.get("profile", "")),
            n=[number_in(v, f"{where}.n", 1.0) for v in n],
            risk=[number_in(v, f"{where}.risk", 0.0, 1.0) for v in risk],
            population=whole(d.get("population"), f"{where}.population", 1),
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
            "groups": [{k: finite_or_none(v) for k, v in asdict(row).items()} for row in r.rows],
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> RiskByGroup:
        d = json_object(d, where)
        check_version(d, cls, where)
        names = [f.name for f in fields(GroupRow)]
        rows = []
        for i, g in enumerate(d.get("groups") or []):
            g = json_object(g, f"{where}.groups[{i}]")
            missing = [k for k in names if k not in g]
            if missing:
                raise AnalysisError(f"{where}.groups[{i}] lacks {', '.join(missing)}")
            rows.append(GroupRow(**{k: math.nan if g[k] is None else g[k] for k in names}))
        counts = [
            whole(d.get(k, 0), f"{where}.{k}")
            for k in ("n_matched", "n_without_attributes", "n_without_risk")
        ]
        return cls(str(d.get("profile", "")), GroupReport(rows, *counts, str(d.get("odds_note", ""))))


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


@dataclass
class ReleaseRecord:
    """The manifest of the last release of the data at a profile, as stored. Its meaning belongs to the
    release layer, above this one: ``core.release.manifest.last_release`` reads it as a manifest."""

    KEY: ClassVar[str] = "release"
    content: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.content

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> ReleaseRecord:
        return cls(json_object(d, where))

    def read(self, record_type: type[R], where: str = KEY) -> R:
        """This record as ``record_type`` (a manifest class with ``from_dict``), one sentence if it is not."""
        return read_record(record_type, self.content, where, "release manifest")


def read_record(record_type: type[R], content: dict[str, Any], where: str, what: str) -> R:
    """``record_type.from_dict(content)``, its failures turned into one :class:`AnalysisError` sentence."""
    try:
        return record_type.from_dict(content)  # type: ignore[attr-defined]
    except (ReleaseError, AnalysisError, ValueError, KeyError, TypeError) as exc:
        raise AnalysisError(f"{where}: not a {what} ({exc})") from None


@dataclass
class ReleaseHistory:
    """Every release made from the project, oldest first, each as (kind, stored record): ``rows``, the data
    at a profile; ``aggregate``, a differentially private table. Records are read by the layer that knows
    their kind (:meth:`of_kind` with its class); kinds this studio does not know are kept as they are.
    Projects that kept only their last release start from that one."""

    KEY: ClassVar[str] = "releases"
    VERSION: ClassVar[int] = 1
    entries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # where each entry was read in the project file (an older project's records lie under other keys), so a
    # damaged one is named where the officer can find it; entries added since read are named by position
    origins: list[str] = field(default_factory=list, compare=False, repr=False)

    def of_kind(self, kind: str, record_type: type[R]) -> list[R]:
        """The releases of one kind, oldest first, read as ``record_type``."""
        return [
            read_record(record_type, record, self._origin(i), f"{kind} release record")
            for i, (k, record) in enumerate(self.entries)
            if k == kind
        ]

    def _origin(self, i: int) -> str:
        return self.origins[i] if i < len(self.origins) else f"{self.KEY}.releases[{i}]"

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.VERSION,
            "releases": [{"kind": kind, "record": record} for kind, record in self.entries],
        }

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> ReleaseHistory:
        d = json_object(d, where)
        check_version(d, cls, where)
        entries, origins = [], []
        for i, entry in enumerate(d.get("releases") or []):
            origins.append(f"{where}.releases[{i}]")
            entry = json_object(entry, origins[-1])
            record = json_object(entry.get("record"), f"{origins[-1]}.record")
            entries.append((str(entry.get("kind", "")), record))
        return cls(entries, origins)

    @classmethod
    def of(cls, analyses: dict[str, Any]) -> ReleaseHistory:
        """The project's releases. Older projects kept only their last rows release (``release``) and their
        aggregates apart (``aggregate_releases``): those join the history, in the order they were made."""
        saved = read_analysis(analyses, cls)
        if saved is not None:
            history = saved
        else:
            last = read_analysis(analyses, ReleaseRecord)
            history = cls(*([], []) if last is None else ([("rows", last.content)], [ReleaseRecord.KEY]))
        legacy = read_analysis(analyses, AggregateReleases)
        if legacy is not None and legacy.manifests:
            kept = [(entry, history._origin(i)) for i, entry in enumerate(history.entries)]
            where = AggregateReleases.KEY
            kept += [(("aggregate", m), f"{where}[{i}]") for i, m in enumerate(legacy.manifests)]
            kept.sort(key=lambda e: str(e[0][1].get("created", "")))
            history = cls([entry for entry, _ in kept], [origin for _, origin in kept])
        return history


def record_release(analyses: dict[str, Any], kind: str, record: Any) -> None:
    """Add a release to the project's history (an older project's separate aggregate list joins it); a
    ``rows`` release also becomes the last one the report describes (``analyses["release"]``)."""
    history = ReleaseHistory.of(analyses)
    history.entries.append((kind, record.to_dict()))
    store_analysis(analyses, history)
    analyses.pop(AggregateReleases.KEY, None)
    if kind == "rows":
        store_analysis(analyses, record)


@dataclass
class AggregateReleases:
    """How projects before the one release history kept their differentially private aggregates
    (``core.aggregate``): checked as a list of records and moved into :class:`ReleaseHistory`, never
    written anew."""

    KEY: ClassVar[str] = "aggregate_releases"
    manifests: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> list[dict[str, Any]]:
        return self.manifests

    @classmethod
    def from_dict(cls, d: Any, where: str = KEY) -> AggregateReleases:
        if not isinstance(d, list):
            raise AnalysisError(f"{where} must be a list, got {type(d).__name__}")
        return cls([json_object(m, f"{where}[{i}]") for i, m in enumerate(d)])


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
