"""What a risk run yields: every measure per p (:class:`PResult`) and per profile (:class:`ProfileResult`).

Every engine, the trade-off, the window, the command line and the report read these types; ``to_dict`` is
the command line's JSON (keys of issue #3) and the project file's stored results.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from privacy_studio.core.generalize import price_label
from privacy_studio.core.measures.attributes import AttributeFigures
from privacy_studio.core.risk.catalogue import RISK_FIELDS, risk_field

if TYPE_CHECKING:
    from privacy_studio.core.generalize import Profile
    from privacy_studio.core.risk.settings import RiskSettings


def float_or_none(x: float) -> float | None:
    """A JSON-safe float (None for NaN)."""
    x = float(x)
    return None if np.isnan(x) else x


def json_floats(a: np.ndarray) -> list[float | None]:
    """A JSON-safe list of floats (None for NaN); every engine writes per-unit values with it."""
    return [None if np.isnan(v) else float(v) for v in np.asarray(a, dtype=np.float64)]


@dataclass(frozen=True)
class Stored:
    """How a project file held a result: its keys in order and the values of keys no field reads (written
    by an older or newer studio), so a result read and saved again comes back unchanged, byte for byte."""

    keys: tuple[str, ...]
    extra: dict[str, Any]

    @classmethod
    def of(cls, d: dict, known: set[str]) -> Stored:
        return cls(tuple(d), {k: v for k, v in d.items() if k not in known})

    def restore(self, written: dict, defaults: dict[str, Any]) -> dict:
        """``written`` (a ``to_dict``) in the stored key order with the unread keys back; a field the file
        did not have is left out while it keeps its default (set since reading: written)."""
        out = {
            k: written[k] if k in written else self.extra[k]
            for k in self.keys
            if k in written or k in self.extra
        }
        for key, value in written.items():
            if key not in out and not (key in defaults and value == defaults[key]):
                out[key] = value
        return out


def _defaults(cls: type) -> dict[str, Any]:
    """The default of every field of dataclass ``cls`` that has one, as ``to_dict`` writes it."""
    out: dict[str, Any] = {}
    for f in fields(cls):
        if f.default is not MISSING:
            out[f.name] = f.default
        elif f.default_factory is not MISSING:
            out[f.name] = f.default_factory()
    return out


def _copy(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else value


def _known(cls: type) -> set[str]:
    return {f.name for f in fields(cls) if f.name != "stored"}


@dataclass
class PResult:
    """All measures at one p (p is None for explicit knowledge); None where a measure was not asked."""

    p: int | None = None
    unicity: float | None = None
    unicity_ci: tuple[float, float] | None = None
    k_disclosure: float | None = None
    records_at_risk: float | None = None  # share of draws with |E| < records_at_risk_k
    highest_risk: float | None = None  # largest 1/|E| over the draws
    records_at_highest_risk: float | None = None  # share of draws whose 1/|E| is the highest risk
    em: float | None = None
    kl: float | None = None
    n_sampled: int = 0
    n_excluded: int = 0
    n_short: int = 0  # evaluated on all of their fewer than p points (short traces: all-points)
    worst_mean: float | None = None
    worst_share_at_1: float | None = None
    worst_exact: bool = False
    # sampled people whose targeted worst-case search was cut short by its work budget at this p: their
    # figure is a lower bound from a limited search (0: every search ran to its end)
    worst_search_cut: int = 0
    # U_k: anonymity-set size -> number of draws; in exact mode, people (each person's subsets share one)
    class_sizes: dict[int, int] | dict[int, float] | None = None
    n_draws: int = 0  # draws that entered the estimate (included users x draws, or subsets in exact mode)
    em_users: int = 0  # users on whom EM / KL were computed
    # "exact": unicity, k-disclosure, records at risk, highest risk and the worst case over every p-subset of
    # every person in the file; "sampled": estimated on the sampled people's draws (worst case: a lower bound)
    method: str = "sampled"
    # people in the file with fewer than p distinct points (None where the model counts events instead)
    n_excluded_in_file: int | None = None
    # unicity with those people evaluated on all their points (short traces: all-points), so a figure that
    # leaves many out can be read beside the conservative one; None with short traces all-points itself
    unicity_all_points: float | None = None
    stored: Stored | None = field(default=None, compare=False, repr=False)  # read from a file: its shape

    def value(self, name: str) -> float | None:
        """The value of the catalogue's risk field ``name`` (a field such as ``em``, or a measure's name or
        alias such as ``em_disclosure``); None where it was not computed. ValueError for other names."""
        key = risk_field(name)
        if key not in RISK_FIELDS:
            raise ValueError(f"unknown risk measure {name!r}; use one of {', '.join(RISK_FIELDS)}")
        value = getattr(self, key)
        return None if value is None else float(value)

    def to_dict(self) -> dict:
        """Its JSON record: every field is a number but the interval and the class sizes, which are
        rebuilt here (``asdict``'s deep copy of each took the window's thread 1 ms per entry)."""
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "stored"}
        d["unicity_ci"] = None if self.unicity_ci is None else list(self.unicity_ci)
        d["class_sizes"] = (
            None if self.class_sizes is None else {str(k): v for k, v in self.class_sizes.items()}
        )
        return d if self.stored is None else self.stored.restore(d, _P_DEFAULTS)

    @classmethod
    def from_dict(cls, d: dict) -> PResult:
        known = _known(cls)
        kwargs = {k: v for k, v in d.items() if k in known}
        if kwargs.get("unicity_ci") is not None:
            kwargs["unicity_ci"] = tuple(kwargs["unicity_ci"])
        if kwargs.get("class_sizes") is not None:
            kwargs["class_sizes"] = {int(k): v for k, v in kwargs["class_sizes"].items()}
        return cls(**kwargs, stored=Stored.of(d, known))


@dataclass
class ProfileResult:
    """One profile's results over all p, plus detail arrays at the reference p for maps and histograms."""

    # every field has a default so that results of older studios, which lacked some, can be read
    spatial: str = ""
    temporal: str = ""
    label: str = ""
    n_users: int = 0
    d: int = 0
    nnz: int = 0
    fill_rate: float = 0.0
    n_events: int = 0
    by_p: list[PResult] = field(default_factory=list)
    kanon: dict | None = None
    per_user: dict = field(default_factory=dict)
    per_location: dict = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    index_bytes: int = 0
    knowledge: str = "uniform"
    short_traces: str = "exclude"
    exact: bool = False
    reference_p: int | None = None
    derived_from: str | None = None  # profile whose traces this one was coarsened from
    price: str = "none"  # price bins per factor of ten, or "none" (amount not released; older results)
    # attribute disclosure: per sensitive attribute, whole-trace classes then anonymity sets (None: not asked)
    attributes: list[AttributeFigures] | None = None
    stored: Stored | None = field(default=None, compare=False, repr=False)  # read from a file: its shape

    def at(self, p: int | None) -> PResult | None:
        """The entry for knowledge size ``p`` (or the only entry for explicit knowledge); None if absent."""
        return next((r for r in self.by_p if r.p == p or r.p is None), None)

    def value(self, name: str, p: int | None) -> float | None:
        """The catalogue risk field ``name`` at ``p`` (see :meth:`PResult.value`); None where absent."""
        entry = self.at(p)
        return None if entry is None else entry.value(name)

    def to_dict(self) -> dict:
        """Its JSON record; nested tables are copied one level deep, not element by element (per-user
        arrays of a large file would take the window's thread too long)."""
        d = {f.name: _copy(getattr(self, f.name)) for f in fields(self) if f.name != "stored"}
        d["by_p"] = [r.to_dict() for r in self.by_p]
        if self.attributes is None:
            del d["attributes"]  # results without attribute disclosure keep the keys they always had
        else:
            d["attributes"] = [a.to_dict() for a in self.attributes]
        return d if self.stored is None else self.stored.restore(d, _DEFAULTS)

    @classmethod
    def from_dict(cls, d: dict) -> ProfileResult:
        """Read a ``to_dict`` (or an older studio's result, whose missing keys take their defaults)."""
        known = _known(cls)
        kwargs = {k: v for k, v in d.items() if k in known}
        kwargs["by_p"] = [PResult.from_dict(r) for r in d.get("by_p") or []]
        if kwargs.get("attributes") is not None:
            kwargs["attributes"] = [AttributeFigures.from_dict(a) for a in kwargs["attributes"]]
        return cls(**kwargs, stored=Stored.of(d, known))


_P_DEFAULTS = _defaults(PResult)
_DEFAULTS = {**_defaults(ProfileResult), "attributes": None}


def results_of(profiles: list, origin: str) -> list[ProfileResult]:
    """Typed results from their JSON (a project's ``results``, a ``risk --json`` file's ``profiles``);
    ValueError naming ``origin`` and the entry when one is not a risk result."""
    out = []
    for i, d in enumerate(profiles):
        if not isinstance(d, dict) or not isinstance(d.get("by_p") or [], list):
            raise ValueError(f"{origin}: entry {i + 1} is not a risk result (an object with a by_p list)")
        try:
            out.append(ProfileResult.from_dict(d))
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            raise ValueError(f"{origin}: entry {i + 1} is not a risk result ({exc})") from None
    return out


def profile_result(
    profile: Profile,
    settings: RiskSettings,
    *,
    n_users: int,
    d: int,
    nnz: int,
    n_events: int,
    by_p: list[PResult],
    **details: Any,
) -> ProfileResult:
    """One profile's result with its labels, price, fill rate and run options (short traces, exact mode)
    taken from ``profile`` and ``settings``, so no engine can report other options than it ran with."""
    return ProfileResult(
        spatial=profile.spatial.label,
        temporal=profile.temporal.label,
        label=profile.label,
        n_users=int(n_users),
        d=int(d),
        nnz=int(nnz),
        fill_rate=float(nnz / (n_users * d)) if n_users and d else 0.0,
        n_events=int(n_events),
        by_p=by_p,
        short_traces=settings.short_traces,
        exact=settings.exact,
        price=price_label(profile.price),
        **details,
    )
