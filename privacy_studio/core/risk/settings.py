"""What a risk run computes: the grid of profiles, the p values, the knowledge model and the measures."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

import numpy as np

from privacy_studio.core.generalize import PriceLevel, Profile, price_label
from privacy_studio.core.knowledge import Explicit, parse_knowledge
from privacy_studio.core.risk.catalogue import MEASURE_NAMES, canonical

#: What happens to people with fewer than p points: left out (counted), or evaluated on all they have.
SHORT_TRACES = ("exclude", "all-points")


#: Largest number of known points: a trace long enough for more is far beyond any real attacker's
#: knowledge, and the kernels allocate per point.
MAX_P = 10_000


@dataclass
class RiskSettings:
    """What to compute: the grid (spatial x temporal, or checked cells, x price), p values, knowledge and
    measures."""

    spatial: list[str]
    temporal: list[str]
    cells: list[tuple[str, str]] | None = None
    p_values: list[int] = field(default_factory=lambda: list(range(1, 11)))
    knowledge: str = "uniform"
    measures: list[str] = field(default_factory=lambda: list(MEASURE_NAMES))
    samples: int = 10000
    draws: int = 1
    seed: int = 0
    exact: bool = False
    reference_p: int | None = None  # p of the per-user / per-location details; None: see __post_init__
    em_samples: int = 1000  # EM/KL are computed on the first em_samples sampled users
    short_traces: str = "exclude"  # or "all-points": fewer than p points -> evaluated on all they have
    records_at_risk_k: int = 5  # records at risk: anonymity sets smaller than this (risk above 1/k)
    # the third axis: "none" (amount not released) or price bins per factor of ten, e.g. ["none", "3", "1"]
    price: list[str] = field(default_factory=lambda: ["none"])
    sensitive: list[str] = field(default_factory=list)  # attribute disclosure: columns of the attributes
    attributes: str | None = None  # the attributes file (a project names it as a source instead)
    ordered: list[str] = field(default_factory=list)  # sensitive columns that must read as ordered bands
    l_diversity: int = 3  # l-diversity: the share of people in classes with fewer than l values
    t_closeness: float = 0.2  # t-closeness: the share of people in classes farther than t from the file
    # seconds of enumeration (at exact mode's assumed rate) a sampled run may spend per profile to compute
    # unicity, k-disclosure and the worst case exactly at the p values that fit; 0: always sample
    exact_budget: float = 10.0
    # seconds of targeted worst-case search (at its assumed rate) a profile may plan for, shared equally by
    # the sampled people before it starts; a person's search cut short says so (``worst_search_cut``)
    search_budget: float = 30.0

    def __post_init__(self) -> None:
        """Measures by their catalogue names (older names such as ``kdisc`` are read too); default details
        p: the largest requested p up to 4 (else the smallest), never an unasked one."""
        self.measures = [canonical(m) if isinstance(m, str) else m for m in self.measures]
        self.price = [_price_choice(x) for x in self.price]
        if self.reference_p is None:
            ps = [p for p in self.p_values if isinstance(p, int | np.integer) and not isinstance(p, bool)]
            self.reference_p = max((p for p in ps if p <= 4), default=min(ps, default=4))

    def validate(self, empty_grid_ok: bool = False) -> None:
        """Raise ``ValueError`` with a readable message for any impossible setting; with ``empty_grid_ok``
        a grid still being set up (no level or no cell ticked, as a saved project may hold) is accepted."""
        if not empty_grid_ok and not self.cells and (not self.spatial or not self.temporal):
            raise ValueError("the grid is empty: choose at least one spatial level and one time width")
        if not empty_grid_ok and self.cells is not None and not self.cells:
            raise ValueError("the grid is empty: no cell is checked")
        if not self.p_values:
            raise ValueError("no p value given: choose at least one number of known points (e.g. 1-10)")
        for p in self.p_values:
            if isinstance(p, bool) or not isinstance(p, int | np.integer) or p < 1:
                raise ValueError(f"p values must be whole numbers of known points ≥ 1, got {p!r}")
            if p > MAX_P:
                raise ValueError(
                    f"p = {p:,} known points is beyond what the studio computes (at most {MAX_P:,})"
                )
        for name in ("spatial", "temporal"):
            levels = getattr(self, name)
            if not isinstance(levels, list | tuple) or not all(isinstance(x, str) for x in levels):
                raise ValueError(
                    f"{name} levels must be a list of texts such as 'grid:1' or '1w', got {levels!r}"
                )
        unknown = [str(m) for m in self.measures if m not in MEASURE_NAMES]
        if unknown or not self.measures:
            raise ValueError(
                f"unknown measure(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(MEASURE_NAMES)}"
            )
        if self.cells is not None and not all(
            isinstance(c, list | tuple) and len(c) == 2 and all(isinstance(x, str) for x in c)
            for c in self.cells
        ):
            raise ValueError(f"cells must be pairs of texts (spatial level, time width), got {self.cells!r}")
        self.validate_attributes()
        for name in ("samples", "draws", "reference_p", "em_samples", "records_at_risk_k"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 1 <= value < 2**31:
                raise ValueError(f"{name} must be a whole number from 1 to {2**31 - 1}, got {value!r}")
        for name, budget in (("exact", self.exact_budget), ("search", self.search_budget)):
            if isinstance(budget, bool) or not isinstance(budget, int | float) or not 0 <= budget < 1e9:
                raise ValueError(f"the {name} budget must be a number of seconds ≥ 0, got {budget!r}")
        seed = self.seed
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be a whole number from 0 to {2**63 - 1}, got {seed!r}")
        model = parse_knowledge(self.knowledge)
        if self.short_traces not in SHORT_TRACES:
            raise ValueError(f"short traces must be exclude or all-points, got {self.short_traces!r}")
        if self.short_traces == "all-points" and isinstance(model, Explicit):
            raise ValueError(
                "--short-traces all-points does not apply to explicit knowledge (each person's known "
                "points are given)"
            )
        if self.exact and model.name != "uniform":
            raise ValueError(
                "exact mode averages over all p-subsets, which is the uniform knowledge model only"
            )
        if not self.price:
            raise ValueError("no price choice: give none (amount not released) or bins per factor of ten")
        for spatial, temporal in self.cell_labels():
            for price in self.price:
                Profile.parse(spatial, temporal, price)

    def validate_attributes(self) -> None:
        """``ValueError`` for attribute-disclosure settings that cannot be used (the file is read later)."""
        for name in ("sensitive", "ordered"):
            value = getattr(self, name)
            if not isinstance(value, list) or not all(isinstance(c, str) and c for c in value):
                raise ValueError(f"{name} must be a list of attribute column names, got {value!r}")
        stray = [c for c in self.ordered if c not in self.sensitive]
        if stray:
            raise ValueError(f"ordered column(s) {', '.join(stray)} are not among the sensitive attributes")
        if self.attributes is not None and not isinstance(self.attributes, str):
            raise ValueError(f"attributes must be the path of a CSV file, got {self.attributes!r}")
        l_div = self.l_diversity
        if isinstance(l_div, bool) or not isinstance(l_div, int | np.integer) or not 2 <= l_div < 2**31:
            raise ValueError(f"l of l-diversity must be a whole number of at least 2, got {l_div!r}")
        t = self.t_closeness
        if isinstance(t, bool) or not isinstance(t, int | float) or not 0.0 < float(t) < 1.0:
            raise ValueError(f"t of t-closeness must lie strictly between 0 and 1, got {t!r}")

    def cell_labels(self) -> list[tuple[str, str]]:
        if self.cells is not None:
            return [(str(s), str(t)) for s, t in self.cells]
        return [(s, t) for s in self.spatial for t in self.temporal]

    def profiles(self) -> list[Profile]:
        """The profiles to evaluate, in grid order (per price choice, the checked cells or the spatial-major
        cartesian product); a profile given twice (``grid:1`` and ``grid:1.0``) is evaluated once."""
        cells = self.cell_labels()
        return list(dict.fromkeys(Profile.parse(s, t, price) for price in self.price for s, t in cells))

    @property
    def priced(self) -> bool:
        """Whether some profile releases the amount (price bins)."""
        return any(PriceLevel.parse(x) is not None for x in self.price)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["cells"] = None if self.cells is None else [list(c) for c in self.cells]
        return d

    @classmethod
    def from_dict(cls, d: dict, empty_grid_ok: bool = False) -> RiskSettings:
        """Build and validate settings from a dict (e.g. a project file); unknown keys are an error."""
        names = {f.name for f in fields(cls)}
        extra = sorted(set(d) - names)
        if extra:
            raise ValueError(f"unknown risk setting(s): {', '.join(extra)}")
        missing = [k for k in ("spatial", "temporal") if k not in d]
        if missing:
            raise ValueError(f"risk settings need {' and '.join(missing)}")
        kwargs = dict(d)
        if kwargs.get("cells") is not None:
            kwargs["cells"] = [tuple(c) for c in kwargs["cells"]]
        if "price" in kwargs and not isinstance(kwargs["price"], list):
            raise ValueError(f"price must be a list (e.g. ['none', '3']), not {kwargs['price']!r}")
        settings = cls(**kwargs)
        settings.validate(empty_grid_ok)
        return settings


def p_values_of(text: str) -> list[int]:
    """``1-10``, ``1,2,4`` or a mix such as ``1-3,6`` as sorted p values (the commands' ``--p`` and the
    window's p field); ``ValueError`` saying what is expected otherwise."""
    values: list[int] = []
    for part in text.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            first, last = (int(lo), int(hi)) if dash else (int(lo), int(lo))
        except ValueError:
            raise ValueError("expected numbers of known points like 1-10 or 1,2,4") from None
        if last < first:
            raise ValueError("expected numbers of known points like 1-10 or 1,2,4")
        if dash and last > MAX_P:
            raise ValueError(f"at most {MAX_P:,} known points, got {last:,}")
        values.extend(range(first, last + 1))
    if any(p < 1 for p in values):
        raise ValueError("the number of known points must be at least 1")
    return sorted(set(values))


def _price_choice(value: object) -> str:
    """A price choice in its canonical spelling (``none`` or bins per factor of ten); unreadable values are
    kept as given for :meth:`RiskSettings.validate` to name."""
    try:
        return price_label(PriceLevel.parse(value))
    except ValueError:
        return str(value)
