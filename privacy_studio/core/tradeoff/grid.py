"""The risk results of a grid as plain per-profile arrays, from ``ProfileResult`` objects or their JSON."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from privacy_studio.core.knowledge import MATCHING_MODELS
from privacy_studio.core.measures.attributes import AttributeFigures
from privacy_studio.core.numbers import share
from privacy_studio.core.risk.catalogue import RISK_FIELDS
from privacy_studio.core.risk.results import PResult, ProfileResult, results_of

#: Above this share of the file left out at p, the figure with them judged on all their points is shown too.
ALL_POINTS_ABOVE = 0.10
#: Risk measures of a ``by_p`` entry (higher = riskier, the catalogue's fields) and the key of their interval.
RISK_MEASURES: dict[str, str | None] = {name: f.interval for name, f in RISK_FIELDS.items()}


@dataclass(frozen=True)
class Population:
    """Who a figure at one p covers: the people evaluated (all, or the sample drawn), those excluded for
    having fewer than p points, and the people in the file; counts are None where the results lack them."""

    p: int | None
    evaluated: int | None
    excluded: int | None
    in_file: int | None
    short: int = 0  # people with fewer than p points evaluated on all their points (conservative figure)
    sampled: int | None = None  # people the estimate was drawn from, when fewer than the file's

    @property
    def eligible(self) -> int | None:
        """People the figure covers: evaluated minus excluded."""
        return None if self.evaluated is None or self.excluded is None else self.evaluated - self.excluded

    @property
    def excluded_share(self) -> float:
        """Share of the evaluated people left out; NaN when unknown."""
        if not self.evaluated or self.excluded is None:
            return float("nan")
        return self.excluded / self.evaluated

    def sentence(self) -> str:
        """E.g. ``covers 2,410 of 2,796 people (386 excluded, 13.8 %, with fewer than 4 points)``."""
        if self.eligible is None or self.evaluated is None:
            return "the people covered are not recorded in these results"
        if self.in_file is not None and self.in_file > self.evaluated:
            sampled = f" (a random sample of the {self.in_file:,} in the file)"
        elif self.sampled is not None and self.in_file is not None:
            sampled = f" in the file (figures estimated on a random sample of {self.sampled:,} of them)"
        else:
            sampled = " in the file" if self.in_file == self.evaluated else ""
        fewer = "" if self.p is None else f" with fewer than {self.p} points"
        short = (
            f", {self.short:,} of them{fewer} evaluated on all their points (the conservative figure)"
            if self.short
            else ""
        )
        return (
            f"covers {self.eligible:,} of {self.evaluated:,} people{sampled}{short}; {self.excluded:,} "
            f"excluded{fewer} ({share(self.excluded_share)})"
        )

    def to_dict(self) -> dict[str, Any]:
        share = self.excluded_share
        return {
            "p": self.p,
            "evaluated_people": self.evaluated,
            "eligible_people": self.eligible,
            "excluded_people": self.excluded,
            "excluded_share": share if math.isfinite(share) else None,
            "short_traces_included": self.short,
            "people_in_file": self.in_file,
            "sampled_people": self.sampled,
        }


@dataclass
class GridTable:
    """One row per profile: label, levels, and the ``by_p`` entries of the risk engine's results."""

    labels: list[str]
    spatial: list[str]
    temporal: list[str]
    n_users: np.ndarray
    by_p: list[dict[int | None, PResult]]  # per profile: its figures at each p
    kanon: list[dict | None] = field(default_factory=list)  # per profile: full-fingerprint k-anonymity
    d: np.ndarray = field(default_factory=lambda: np.zeros(0))  # distinct points per profile (NaN: unknown)
    price: list[str] = field(default_factory=list)  # per profile: "none" or price bins per factor of ten
    attributes: list[list[AttributeFigures]] = field(
        default_factory=list
    )  # per profile: attribute disclosure
    knowledge: list[str] = field(default_factory=list)  # per profile: the adversary-knowledge model

    def __post_init__(self) -> None:
        if not self.price:
            self.price = ["none"] * len(self.labels)

    def without_amount(self, i: int) -> int | None:
        """The profile of the same places and times as profile ``i`` with the amount not released (None
        when the grid has no such profile): the baseline of what the amount adds."""
        cell = (self.spatial[i], self.temporal[i])
        return next(
            (
                j
                for j in range(len(self.labels))
                if (self.spatial[j], self.temporal[j]) == cell and self.price[j] == "none"
            ),
            None,
        )

    def attribute_share(self, figure: str) -> np.ndarray:
        """Per profile, the largest attribute-disclosure share ``figure`` (e.g. ``homogeneous``) over the
        sensitive attributes and both kinds of class; NaN where none was computed."""
        out = np.full(len(self.labels), np.nan)
        for i, entries in enumerate(self.attributes[: len(self.labels)]):
            values = [_number(getattr(e, figure)) for e in entries]
            known = [v for v in values if math.isfinite(v)]
            out[i] = max(known) if known else np.nan
        return out

    def unique_traces(self) -> np.ndarray:
        """Share of people whose whole trace is unique (class size 1) per profile; NaN where not computed."""
        if len(self.kanon) != len(self.labels):
            return np.full(len(self.labels), np.nan)
        shares = [((k or {}).get("share_below") or {}).get("2") for k in self.kanon]
        return np.asarray([_number(v) for v in shares], dtype=np.float64)

    def worst_upper(self, p: int | None) -> list[tuple[float, str]]:
        """Per profile, an upper bound on the share at worst-case risk 1 at ``p``, or NaN and why there is
        none. Where knowledge is a set of points, only a person whose whole trace is unique can be singled out
        by some of its points (anyone sharing the whole trace holds every subset of it), so the bound is the
        people with a unique whole trace over the people covered, counted in the file. Models that match
        visit counts or order tell apart people whose traces are the same set: no bound."""
        unique = self.unique_traces()
        out = []
        for i, pop in enumerate(self.population(p)):
            model = self.knowledge[i] if i < len(self.knowledge) else "uniform"
            if model.partition(":")[0] in MATCHING_MODELS:
                out.append(
                    (math.nan, f"the {model} model matches visit counts or order, which whole traces do not")
                )
            elif not math.isfinite(unique[i]):
                out.append(
                    (math.nan, "the whole traces' k-anonymity, which bounds it from above, was not measured")
                )
            elif pop.in_file is None or pop.evaluated != pop.in_file or not pop.eligible:
                out.append((math.nan, "the people it covers were not counted in the file"))
            else:
                out.append((min(1.0, unique[i] * pop.in_file / pop.eligible), ""))
        return out

    def at(self, p: int | None) -> list[PResult | None]:
        """Per profile, its figures at ``p`` (None where that profile lacks that p)."""
        return [d.get(p) for d in self.by_p]

    def entry(self, i: int, p: int | None) -> PResult | None:
        """Profile ``i``'s figures at ``p``, None where it lacks that p."""
        return self.by_p[i].get(p)

    def methods(self, p: int | None) -> list[str]:
        """Per profile, how its figures at ``p`` were obtained: "exact" or "sampled" (older results)."""
        return [e.method if e is not None else "sampled" for e in self.at(p)]

    def worst_exact(self, p: int | None) -> list[bool]:
        """Per profile, whether its worst-case figures at ``p`` are exact (else a sampled lower bound)."""
        return [e is not None and e.worst_exact for e in self.at(p)]

    def search_cut(self, p: int | None) -> list[tuple[int, int]]:
        """Per profile at ``p``: (sampled people whose worst-case search its budget cut short, people
        sampled); (0, n) where every search ran to its end or the results predate the budget."""
        return [(0, 0) if e is None else (int(e.worst_search_cut or 0), int(e.n_sampled)) for e in self.at(p)]

    def population(self, p: int | None) -> list[Population]:
        """Who each profile's figures at ``p`` cover, counted in the file when the results say how many
        people of the file have fewer than p points (else among the people evaluated)."""
        out = []
        for n, entry in zip(self.n_users, self.at(p), strict=True):
            in_file = int(n) if math.isfinite(n) else None
            if entry is None:
                out.append(Population(p, None, None, in_file, 0, None))
                continue
            evaluated, excluded = _recorded(entry, "n_sampled"), _recorded(entry, "n_excluded")
            sampled = None
            if entry.n_excluded_in_file is not None and in_file is not None:
                sampled = int(evaluated) if evaluated is not None and evaluated < in_file else None
                evaluated, excluded = in_file, entry.n_excluded_in_file
            out.append(
                Population(
                    p,
                    None if evaluated is None else int(evaluated),
                    None if excluded is None or evaluated is None else int(excluded),
                    in_file,
                    int(entry.n_short or 0),
                    sampled,
                )
            )
        return out

    def p_values(self) -> list:
        """The p values present in every profile (``None`` for explicit knowledge), ascending."""
        if not self.by_p:
            return []
        common = set.intersection(*(set(d) for d in self.by_p))
        return sorted(common, key=lambda p: -1 if p is None else p)

    def values(self, measure: str, p: int | None) -> np.ndarray:
        """The measure's value per profile at ``p``; NaN where that profile lacks it."""
        _check_measure(measure)
        return np.asarray(
            [np.nan if e is None else _number(e.value(measure)) for e in self.at(p)], dtype=np.float64
        )

    def upper(self, measure: str, p: int | None) -> np.ndarray | None:
        """Upper ends of the measure's 95 % intervals per profile, or None if the measure has none."""
        key = RISK_MEASURES[_check_measure(measure)]
        if key is None:
            return None
        rows = [None if e is None else getattr(e, key) for e in self.at(p)]
        return np.asarray([_number(r[1]) if r else np.nan for r in rows], dtype=np.float64)

    def measures(self, p: int | None) -> dict[str, np.ndarray]:
        """Every risk measure that at least one profile has at ``p``."""
        out = {m: self.values(m, p) for m in RISK_MEASURES}
        return {m: v for m, v in out.items() if np.isfinite(v).any()}


def grid_table(profiles: Iterable) -> GridTable:
    """Build from ``ProfileResult`` objects or their ``to_dict()`` (the ``profiles`` list of the JSON)."""
    labels, spatial, temporal, n_users, by_p, kanon, d = [], [], [], [], [], [], []
    price: list[str] = []
    attributes: list[list[AttributeFigures]] = []
    knowledge: list[str] = []
    for i, row in enumerate(profiles):
        if isinstance(row, dict):
            if "spatial" not in row or "temporal" not in row:
                raise ValueError(
                    f"profile entry {i + 1} has no 'spatial' and 'temporal' keys: not a risk result"
                )
            row = results_of([row], f"profile entry {i + 1}")[0]
        spatial.append(str(row.spatial))
        temporal.append(str(row.temporal))
        labels.append(row.label or f"{row.spatial} × {row.temporal}")
        n_users.append(_number(_recorded(row, "n_users")))
        by_p.append({entry.p: entry for entry in row.by_p})
        kanon.append(row.kanon if isinstance(row.kanon, dict) else None)
        d.append(_number(_recorded(row, "d")))
        price.append(str(row.price or "none"))
        attributes.append(list(row.attributes or []))
        knowledge.append(str(row.knowledge or "uniform"))
    if len(set(labels)) != len(labels):
        raise ValueError("the results list the same profile twice")
    as_array = np.asarray
    return GridTable(
        labels, spatial, temporal, as_array(n_users, np.float64), by_p, kanon, as_array(d, np.float64),
        price, attributes, knowledge,
    )  # fmt: skip


def _recorded(record: ProfileResult | PResult, name: str) -> Any:
    """``record``'s count ``name``, None when the file it was read from did not give it (an older studio's
    result: the field then holds its default)."""
    value = getattr(record, name)
    unread = record.stored is not None and name not in record.stored.keys and not value
    return None if unread else value


def _check_measure(measure: str) -> str:
    if measure not in RISK_MEASURES:
        raise ValueError(f"unknown risk measure {measure!r}; use one of {', '.join(RISK_MEASURES)}")
    return measure


def _number(value: object) -> float:
    return np.nan if value is None else float(value)  # type: ignore[arg-type]
