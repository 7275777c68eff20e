"""Utility of each generalization profile: expert scores (0-10 per domain) and computed information loss.

Expert scores are what field experts say a profile is worth for their work (thesis ch. 5). Computed scores
measure, against the finest profile, what the coarser release no longer shows: distinct points that merge,
the population-density map and the origin-destination matrix (definitions in ``docs/tradeoff.md``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import PriceLevel, Traces, price_bins, spatial_units
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.flows import count_flows
from privacy_studio.core.kernels.gil_free import distinct, repeat
from privacy_studio.core.naming import label_words

SCORE_MIN, SCORE_MAX = 0.0, 10.0

#: Plain-words explanation of every computed score, shown next to it in the studio and the report.
COMPUTED_SCORES: dict[str, str] = {
    "points_kept": (
        "Share of each person's distinct places-and-times that stay distinct: when two points of the finest "
        "profile fall into one coarse point, one of them is lost. 10 = nothing merges."
    ),
    "density_map": (
        "How well a map of people per place and time period, drawn from this profile and spread evenly back "
        "to the finest places and periods, matches the map drawn from the finest profile. 10 = identical."
    ),
    "od_matrix": (
        "How well the flows between places (consecutive events of a person), spread evenly back to the "
        "finest places, match the flows seen at the finest places. 10 = identical."
    ),
    "amount_kept": (
        "Card transactions: how close the amounts a reader can take from the release (the middle of each "
        "amount's bin on a log scale) come to the true amounts. 10 = exact amounts, 0 = amount not released."
    ),
}

#: The computed utility scores' names in words, for every table, axis and sentence a person reads.
COMPUTED_TITLES: dict[str, str] = {
    "points_kept": "points kept",
    "density_map": "density map",
    "od_matrix": "origin-destination flows",
    "amount_kept": "amounts kept",
}


def utility_title(name: str) -> str:
    """A utility's name as people read it: a computed score in words, an expert domain as named."""
    return COMPUTED_TITLES.get(name, name)


@dataclass
class UtilityGrid:
    """Expert scores 0-10 per profile label and application domain; ``None`` where nobody scored yet."""

    domains: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.domains:
            _check_domain_name(name)
        if len(set(self.domains)) != len(self.domains):
            raise ValueError(f"utility domains must have distinct names, got {self.domains}")
        for label, row in self.scores.items():
            for domain, value in row.items():
                if domain not in self.domains:
                    raise ValueError(f"score for profile {label!r} names unknown domain {domain!r}")
                row[domain] = check_score(value, f"{label} / {domain}")

    @classmethod
    def from_dict(cls, data: dict) -> UtilityGrid:
        """Read the project's ``utility``: ``{"domains": [...], "scores": {label: {domain: score}}}``."""
        if not isinstance(data, dict):
            raise ValueError("the utility entry must be an object with 'domains' and 'scores'")
        domains = data.get("domains", [])
        scores = data.get("scores", {})
        if not isinstance(domains, list) or not isinstance(scores, dict):
            raise ValueError("utility 'domains' must be a list and 'scores' an object")
        return cls([str(d) for d in domains], {str(k): dict(v) for k, v in scores.items()})

    def to_dict(self) -> dict:
        return {"domains": list(self.domains), "scores": {k: dict(v) for k, v in self.scores.items()}}

    def set_score(self, label: str, domain: str, value: float | None) -> None:
        """Set one expert score (validated 0-10); ``None`` clears it."""
        if domain not in self.domains:
            raise ValueError(f"unknown utility domain {domain!r}; the domains are {self.domains}")
        self.scores.setdefault(label, {})[domain] = check_score(value, f"{label} / {domain}")

    def add_domain(self, name: str) -> None:
        _check_domain_name(name)
        if name in self.domains:
            raise ValueError(f"a utility domain named {name!r} already exists")
        self.domains.append(name)

    def rename_domain(self, old: str, new: str) -> None:
        """Rename a domain everywhere, keeping its scores."""
        if old not in self.domains:
            raise ValueError(f"unknown utility domain {old!r}")
        if new == old:
            return
        self.add_domain(new)
        self.domains.remove(new)
        self.domains[self.domains.index(old)] = new
        for row in self.scores.values():
            if old in row:
                row[new] = row.pop(old)

    def remove_domain(self, name: str) -> None:
        if name not in self.domains:
            raise ValueError(f"unknown utility domain {name!r}")
        self.domains.remove(name)
        for row in self.scores.values():
            row.pop(name, None)

    def column(self, domain: str, labels: list[str]) -> np.ndarray:
        """Scores of ``labels`` in ``domain`` as floats, NaN where missing."""
        if domain not in self.domains:
            raise ValueError(f"unknown utility domain {domain!r}; the domains are {self.domains}")
        values = [self.scores.get(label, {}).get(domain) for label in labels]
        return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)


def check_score(value: object, where: str) -> float | None:
    """A valid expert score (a number in 0..10) or ``None``; anything else is a readable ``ValueError``."""
    if value is None or value == "":
        return None
    try:
        score = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"utility score for {where} must be a number from 0 to 10, got {value!r}") from None
    if not (math.isfinite(score) and SCORE_MIN <= score <= SCORE_MAX):
        raise ValueError(f"utility score for {where} must be from 0 to 10, got {value!r}")
    return score


def _check_domain_name(name: str) -> None:
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a utility domain needs a non-empty name")


# -- computed information loss --------------------------------------------------------------------------


@dataclass(frozen=True)
class InformationLoss:
    """Losses in [0, 1] of a profile against the finest one, and the matching utilities 10 x (1 - loss)."""

    points_lost: float
    density_error: float
    od_error: float
    amount_error: float | None = None  # card transactions on a grid with a price axis, else None

    def utilities(self) -> dict[str, float]:
        """The computed scores on the experts' 0-10 scale (higher is more useful)."""
        losses = {
            "points_kept": self.points_lost,
            "density_map": self.density_error,
            "od_matrix": self.od_error,
        }
        if self.amount_error is not None:
            losses["amount_kept"] = self.amount_error
        return {name: 10.0 * (1.0 - loss) for name, loss in losses.items()}


@dataclass(frozen=True)
class Reference:
    """What the finest profile brings to every comparison, computed once per grid."""

    traces: Traces
    units: np.ndarray  # spatial unit of every event
    point_keys: np.ndarray  # distinct points, ascending
    point_users: np.ndarray  # users at each
    flow_keys: np.ndarray  # distinct origin * n_units + destination of consecutive events
    flow_counts: np.ndarray


def reference(events: EventTable, fine: Traces, hierarchy: Hierarchy | None = None) -> Reference:
    """Prepare ``fine`` (the finest profile) for :func:`information_loss` against several profiles."""
    _check_place_time(fine)
    units = spatial_units(events, fine.profile.spatial, hierarchy).of_event
    keys, users = key_counts(fine.points, fine.d)
    return Reference(fine, units, keys, users, *flow_counts(events.user, units, fine.n_units))


def _check_place_time(traces: Traces) -> None:
    if traces.n_price_bins != 1:
        raise ValueError(f"information loss is defined for place x time profiles, not {traces.profile.label}")


def information_loss(
    events: EventTable,
    fine: Traces | Reference,
    coarse: Traces,
    hierarchy: Hierarchy | None = None,
) -> InformationLoss:
    """All three computed losses of ``coarse`` against ``fine`` (both generalized from ``events``)."""
    ref = fine if isinstance(fine, Reference) else reference(events, fine, hierarchy)
    _check_place_time(coarse)
    coarse_units = spatial_units(events, coarse.profile.spatial, hierarchy).of_event
    links = UnitLinks.of_events(ref.units, coarse_units, ref.traces.n_units, coarse.n_units)
    return InformationLoss(
        points_lost(ref.traces, coarse),
        density_error(ref, coarse, links),
        od_error(ref, events.user, coarse_units, links, coarse.n_units),
    )


def points_lost(fine: Traces, coarse: Traces) -> float:
    """Share of the (user, fine point) pairs that merge with another of the user's points in ``coarse``."""
    if fine.nnz == 0:
        return 0.0
    return 1.0 - coarse.nnz / fine.nnz


def nested_unit_map(
    fine_units: np.ndarray,
    coarse_units: np.ndarray,
    n_fine: int,
    fine_label: str = "fine",
    coarse_label: str = "coarse",
) -> np.ndarray:
    """Coarse unit of every fine unit (-1 if never visited); ``ValueError`` if a fine unit straddles two."""
    unit_map = np.full(n_fine, -1, dtype=np.int64)
    unit_map[fine_units] = coarse_units
    if not np.array_equal(unit_map[fine_units], coarse_units):
        raise ValueError(
            f"the places of {label_words(coarse_label)} do not nest within those of "
            f"{label_words(fine_label)} (a unit of the finer profile falls into several coarser units): "
            "information loss needs nested profiles"
        )
    return unit_map


@dataclass(frozen=True)
class UnitLinks:
    """Which coarse units each fine unit's events fall in (one when places nest, several when a fine place
    straddles coarse ones, e.g. a venue recorded at two coordinates), as CSR over fine units."""

    ptr: np.ndarray  # int64, n_fine + 1
    coarse: np.ndarray  # coarse unit of each link, grouped by fine unit

    @classmethod
    def of_events(
        cls, fine_units: np.ndarray, coarse_units: np.ndarray, n_fine: int, n_coarse: int
    ) -> UnitLinks:
        """The distinct (fine unit, coarse unit) pairs of the events."""
        keys = distinct(np.asarray(fine_units, np.int64) * n_coarse + np.asarray(coarse_units, np.int64))
        ptr = np.zeros(n_fine + 1, dtype=np.int64)
        ptr[1:] = np.cumsum(np.bincount(keys // n_coarse, minlength=n_fine))
        return cls(ptr, keys % n_coarse)

    def children(self, n_coarse: int) -> np.ndarray:
        """Fine units linked to each coarse unit."""
        return np.bincount(self.coarse, minlength=n_coarse)

    def expand(self, fine: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every link of every entry of ``fine``: (entry index, coarse unit) per link."""
        start, count = self.ptr[fine], np.diff(self.ptr)[fine]
        entry = repeat(np.arange(len(fine)), count)
        offset = np.arange(len(entry)) - repeat(np.cumsum(count) - count, count)
        return entry, self.coarse[start[entry] + offset]


def bin_map(fine: Traces, coarse: Traces) -> np.ndarray:
    """Coarse time bin of every fine time bin; ``ValueError`` unless coarse bins hold whole fine bins."""
    fine_s, coarse_s = fine.profile.temporal.seconds, coarse.profile.temporal.seconds
    if coarse_s is None:
        return np.zeros(fine.n_bins, dtype=np.int64)
    if fine_s is None or coarse_s % fine_s:
        raise ValueError(
            f"time bins of {coarse.profile.temporal.label} do not contain whole "
            f"{fine.profile.temporal.label} bins: information loss needs nested time widths"
        )
    starts = fine.bin_origin + np.arange(fine.n_bins, dtype=np.int64) * fine_s
    return (starts - coarse.bin_origin) // coarse_s


def density_error(ref: Reference, coarse: Traces, links: UnitLinks) -> float:
    """Normalized L1 distance between the fine map of users per point and the coarse map spread evenly back.

    Each coarse point's user count is shared equally among the fine points it contains (the fine units whose
    events fall in its place x the fine time bins in its bin); a fine point in several coarse points (a
    place straddling two) receives a share from each. The distance is divided by the total of both maps, so
    it lies in [0, 1].
    """
    fine = ref.traces
    times = bin_map(fine, coarse)
    coarse_points, coarse_users = key_counts(coarse.points, coarse.d)
    entry, unit = links.expand(fine.point_unit(ref.point_keys))
    parent = unit * coarse.n_bins + times[fine.point_bin(ref.point_keys)][entry]
    children_bins = np.bincount(times, minlength=coarse.n_bins)
    n_children = links.children(coarse.n_units)[coarse_points // coarse.n_bins]
    return _spread_error(
        ref.point_users, entry, lookup(coarse_points, parent), coarse_users,
        n_children * children_bins[coarse_points % coarse.n_bins],
    )  # fmt: skip


def od_error(
    ref: Reference, user: np.ndarray, coarse_units: np.ndarray, links: UnitLinks, n_coarse: int
) -> float:
    """Normalized L1 distance between the fine origin-destination matrix and the coarse one spread back.

    A flow is a pair of consecutive events of one user (staying put included), counted between their units;
    a coarse flow is shared equally among the pairs of fine units linked to its two places.
    """
    n_fine = len(links.ptr) - 1
    coarse_keys, coarse_flows = flow_counts(user, coarse_units, n_coarse)
    order = np.argsort(coarse_keys)
    coarse_keys, coarse_flows = coarse_keys[order], coarse_flows[order]
    flow, origin = links.expand(ref.flow_keys // n_fine)
    half, destination = links.expand((ref.flow_keys % n_fine)[flow])
    children = links.children(n_coarse)
    return _spread_error(
        ref.flow_counts, flow[half], lookup(coarse_keys, origin[half] * n_coarse + destination),
        coarse_flows, children[coarse_keys // n_coarse] * children[coarse_keys % n_coarse],
    )  # fmt: skip


def key_counts(keys: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys (ascending) in ``[0, n_keys)`` and how often each occurs: a bincount when the key space
    is not much larger than the data (no sort), else ``np.unique``."""
    if n_keys <= 16 * len(keys) + (1 << 20):
        counts = np.bincount(keys, minlength=n_keys)
        present = np.flatnonzero(counts)
        return present, counts[present]
    return np.unique(keys, return_counts=True)


def lookup(keys: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Index in ascending ``keys`` of every query, -1 where absent (a coarse cell nobody visits)."""
    at = np.minimum(np.searchsorted(keys, queries), max(len(keys) - 1, 0))
    found = (at < len(keys)) & (keys[at] == queries) if len(keys) else np.zeros(len(queries), bool)
    return np.where(found, at, -1)


def flow_counts(user: np.ndarray, units: np.ndarray, n_units: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct ``origin * n_units + destination`` keys of consecutive events of one user, and their counts
    (grouped by origin, in no particular order within)."""
    return count_flows(np.ascontiguousarray(user), np.ascontiguousarray(units, np.int64), n_units)


def _spread_error(
    fine_mass: np.ndarray,
    edge_fine: np.ndarray,
    edge_coarse: np.ndarray,
    coarse_mass: np.ndarray,
    n_children: np.ndarray,
) -> float:
    """Σ|spread - fine| / (Σ spread + Σ fine) over all fine cells, unvisited children summed in closed form.

    Edge i links visited fine cell ``edge_fine[i]`` to coarse cell ``edge_coarse[i]`` (-1: a coarse cell
    with no mass); coarse cell j has ``n_children[j]`` fine cells, and its mass is spread equally over them.
    """
    total = fine_mass.sum() + coarse_mass.sum()
    if total == 0:
        return 0.0
    share = coarse_mass / n_children
    present = edge_coarse >= 0
    spread = np.bincount(edge_fine[present], weights=share[edge_coarse[present]], minlength=len(fine_mass))
    visited = np.bincount(edge_coarse[present], minlength=len(coarse_mass))
    seen = np.abs(spread - fine_mass).sum()
    unseen = (share * (n_children - visited)).sum()
    return float((seen + unseen) / total)


def amount_error(amount: np.ndarray, level: PriceLevel | None) -> float:
    """The amount's precision lost in [0, 1]: Σ|a - m(a)| / Σ(|a| + |m(a)|) over the events, m(a) being what
    a reader takes from the release: the log-scale middle ±√(lo·hi) of the amount's bin (0 for 0), and
    nothing (m = 0, a loss of 1) when the amount is not released."""
    amount = np.asarray(amount, dtype=np.float64)
    total = np.abs(amount).sum()
    if total == 0:
        return 0.0
    if level is None:
        return 1.0
    priced = price_bins(amount, level)
    ranges = np.asarray([priced.layout.bin_range(b) for b in range(priced.n_bins)])
    middle = np.sign(ranges[:, 0] + ranges[:, 1]) * np.sqrt(ranges[:, 0] * ranges[:, 1])
    read = middle[priced.bins]
    return float(np.abs(amount - read).sum() / (total + np.abs(read).sum()))


def computed_utilities(
    events: EventTable,
    traces: Mapping[str, Traces],
    hierarchy: Hierarchy | None = None,
    prices: dict[str, PriceLevel | None] | None = None,
    finest: str | None = None,
) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Computed 0-10 scores of every profile against the finest one (the most distinct points; ``finest``
    names it when known).

    ``traces`` are each profile's places-and-times (without price bins), read one profile at a time (a
    mapping that generalizes on demand keeps one profile besides the finest in memory); ``prices`` gives
    the price level of the profiles of a grid with a price axis, whose amount precision is scored too
    (``amount_kept``). Places need not nest (events are mapped, not units); returns the scores by profile
    label, and for profiles that could not be scored (time bins that do not hold whole finest bins) the
    reason, so none is dropped silently.
    """
    if not traces:
        return {}, {}
    prices = prices or {}
    if finest is None:
        finest = max(traces, key=lambda label: traces[label].nnz)
    ref = reference(events, traces[finest], hierarchy)
    amounts: dict[PriceLevel | None, float] = {}
    scores: dict[str, dict[str, float]] = {}
    problems: dict[str, str] = {}
    for label in traces:
        try:
            loss = information_loss(events, ref, ref.traces if label == finest else traces[label], hierarchy)
            if label in prices and events.amount is not None:
                level = prices[label]
                if level not in amounts:
                    amounts[level] = amount_error(events.amount, level)
                loss = replace(loss, amount_error=amounts[level])
            scores[label] = loss.utilities()
        except ValueError as exc:
            problems[label] = str(exc)
    return scores, problems
