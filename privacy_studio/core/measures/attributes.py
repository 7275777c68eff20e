"""Attribute disclosure (docs/measures.md "Attribute disclosure"): what the people who share a person's
trace, or fit the points an attacker knows, reveal about the person's sensitive attribute.

A class is a group of people an attacker cannot tell apart: the people with the same whole trace, or the
anonymity set of p known points. For each person, the values of the class members give: whether the class
is homogeneous (one value: the attacker learns it without re-identifying anyone), its distinct l (number of
values), its entropy l (e to the entropy of the values' shares) and its t (earth mover's distance between
the class's shares and the whole file's; ordered bands count how far apart they are, other values are all
one step apart). People without a value have the value "(unknown)", one step from every other value
(metrics.md §8: counted, never dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: Words of ordered scales a band may be written in, lowest first; a column whose values all belong to one
#: scale is ordered by it.
ORDERED_WORDS: tuple[tuple[str, ...], ...] = (
    ("very low", "low", "lower middle", "middle", "medium", "upper middle", "high", "very high"),
)
_NUMBER = re.compile(r"^\s*[<>≤≥]?\s*(-?\d+(?:[.,]\d+)?)")
#: Names of the user id column of an attributes file (else its first column is).
USER_COLUMNS = ("user_id", "user", "id")
#: The value of people the attributes file gives none (no row, or an empty cell).
UNKNOWN = "(unknown)"
#: The two kinds of class: the people sharing a whole trace, and the anonymity set of p known points.
TRACE, SET = "trace", "set"


@dataclass(frozen=True)
class Sensitive:
    """One sensitive attribute as a value code per person of the data and its values."""

    name: str
    codes: np.ndarray  # int64, one per user code of the events
    values: tuple[str, ...]  # code -> value, bands lowest first when ordered, UNKNOWN last if present
    ordered: bool
    unknown: bool = False  # the last value is UNKNOWN (someone of the data has no value)

    @property
    def n_values(self) -> int:
        return len(self.values)

    def file_shares(self) -> np.ndarray:
        """The whole file's distribution of the attribute over the people of the data."""
        return np.bincount(self.codes, minlength=self.n_values) / max(1, len(self.codes))


def read_attributes(path: str | Path) -> pd.DataFrame:
    """Read a CSV of user attributes: a user id column (user_id, user, id, else the first) and attributes;
    a FIFO, device or oversized file is refused before reading (the checks of every input)."""
    from privacy_studio.core.io.sniff import check_side_table

    check_side_table(str(path))
    import pandas as pd  # deferred: reading results (project files) must not load pandas

    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the user-attributes file {path}: {exc}") from None
    if table.shape[1] < 2:
        raise ValueError(f"{path}: a user-attributes file needs a user id column and at least one attribute")
    key = user_column(list(table.columns))
    duplicated = table[key][table[key].duplicated()]
    if len(duplicated):
        raise ValueError(f"{path}: user {duplicated.iloc[0]!r} has more than one row")
    return table.set_index(key)


def user_column(columns: list[str]) -> str:
    """The user id column of an attributes file: user_id, user or id, else the first."""
    return next((c for c in columns if c.strip().lower() in USER_COLUMNS), columns[0])


def attribute_columns(path: str | Path) -> list[str]:
    """The attribute columns of an attributes file, from its header alone (the window offers them at once)."""
    import pandas as pd  # deferred: reading results (project files) must not load pandas

    try:
        columns = list(pd.read_csv(path, nrows=0, dtype=str).columns)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read the user-attributes file {path}: {exc}") from None
    if len(columns) < 2:
        raise ValueError(f"{path}: a user-attributes file needs a user id column and at least one attribute")
    key = user_column(columns)
    return [c for c in columns if c != key]


def band_order(values: list[str]) -> list[str] | None:
    """``values`` lowest first when they read as ordered bands (numbers such as ``18-24``, ``65+``, ``<10``,
    or words of one scale such as low / middle / high); None when they do not."""
    numbers = [_NUMBER.match(v) for v in values]
    if values and all(numbers):
        lower = {v: float(m.group(1).replace(",", ".")) for v, m in zip(values, numbers, strict=True)}
        below = {"<": -1, "≤": -1, ">": 1, "≥": 1}  # "<18" comes before "18-24", ">65" after "60-65"
        return sorted(values, key=lambda v: (lower[v], below.get(v.strip()[:1], 0), v))
    for scale in ORDERED_WORDS:
        rank = {w: i for i, w in enumerate(scale)}
        if values and all(v.strip().lower() in rank for v in values):
            return sorted(values, key=lambda v: rank[v.strip().lower()])
    return None


def sensitive_attributes(
    table: pd.DataFrame, user_ids: np.ndarray, columns: list[str], ordered: list[str]
) -> list[Sensitive]:
    """The ``columns`` of an attributes table (indexed by user id) as codes per user of the data; a column
    in ``ordered`` must read as ordered bands, the others are ordered when they do (``band_order``)."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(
            f"sensitive attribute(s) {', '.join(missing)} not in the attributes file; it has "
            f"{', '.join(map(str, table.columns))}"
        )
    rows = table.reindex(np.asarray(user_ids).astype(str))
    out = []
    for column in columns:
        text = rows[column].fillna("").astype(str).str.strip()
        values = sorted(set(text[text != ""]))
        order = band_order(values)
        if column in ordered and order is None:
            raise ValueError(
                f"--ordered {column}: its values ({', '.join(values[:6])}) do not read as ordered bands "
                "(numbers such as 18-24 or 65+, or low / middle / high)"
            )
        unknown = bool((text == "").any())
        values = [*(order or values), *([UNKNOWN] if unknown else [])]
        code_of = {v: i for i, v in enumerate(values)}
        codes = np.asarray([code_of.get(v, len(values) - 1) for v in text], dtype=np.int64)
        out.append(Sensitive(column, codes, tuple(values), order is not None, unknown))
    return out


@dataclass(frozen=True)
class ClassStats:
    """Per class (a row of value counts): distinct values, entropy l and distance t to the file's shares."""

    distinct: np.ndarray  # int
    entropy_l: np.ndarray  # float, 1 .. distinct
    t: np.ndarray  # float, 0 .. 1

    @property
    def homogeneous(self) -> np.ndarray:
        return self.distinct == 1


def class_stats(
    counts: np.ndarray, file_shares: np.ndarray, ordered: bool, unknown: bool = False
) -> ClassStats:
    """Distinct l, entropy l and t of every class from its value counts (rows of ``counts``, none empty).

    Entropy l is exp(H), H = -Σ s ln s over the class's value shares s. t is the earth mover's distance to
    ``file_shares``: with unordered values (every pair one apart), half the sum of absolute differences;
    with m ordered bands one step worth 1/(m-1), the sum of the absolute running differences divided by
    m-1; with ordered bands and an UNKNOWN last value one apart from every band, ``_line_and_unknown``.
    """
    counts = np.asarray(counts, dtype=np.float64)
    shares = counts / counts.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(shares > 0, shares * np.log(shares), 0.0)
    diff = shares - file_shares[None, :]
    bands = counts.shape[1] - int(unknown)
    if ordered and unknown:
        t = _line_and_unknown(diff)
    elif ordered and bands > 1:
        t = np.abs(np.cumsum(diff, axis=1)[:, :-1]).sum(axis=1) / (bands - 1)
    else:
        t = 0.5 * np.abs(diff).sum(axis=1)
    return ClassStats((counts > 0).sum(axis=1), np.exp(-terms.sum(axis=1)), np.clip(t, 0.0, 1.0))


def _line_and_unknown(diff: np.ndarray) -> np.ndarray:
    """Earth mover's distance of surpluses ``diff`` (rows; bands in order, then UNKNOWN) when bands i, j are
    |i - j| / (m - 1) apart and UNKNOWN is 1 from every band.

    Mass moves along the bands (flow C_k - G_k past band k, C the running surplus, G the running amount
    sent to or taken from UNKNOWN) and to or from UNKNOWN (1 per unit). Sending both ways costs 2 per unit
    while the bands are at most 1 apart, so exactly |T| = |surplus of the bands| goes one way and G runs
    monotonically from 0 to T: the cost is |T| + min Σ_k |C_k - G_k| / (m - 1) over such G, a bounded L1
    isotonic fit whose optimum takes values among the C_k, 0 and T (solved by dynamic programming over them).
    """
    bands = diff[:, :-1]
    m = bands.shape[1]
    running = np.cumsum(bands, axis=1)
    total = running[:, -1:]  # T per row
    if m == 1:
        return np.abs(total[:, 0])
    sign = np.where(total < 0, -1.0, 1.0)
    c, t = running[:, :-1] * sign, total * sign  # now T >= 0 and G rises from 0 to T
    candidates = np.sort(np.concatenate([np.clip(c, 0.0, t), np.zeros_like(t), t], axis=1), axis=1)
    cost = np.zeros_like(candidates)
    for k in range(m - 1):
        cost = np.minimum.accumulate(cost, axis=1) + np.abs(c[:, k : k + 1] - candidates)
    return np.abs(total[:, 0]) + cost.min(axis=1) / (m - 1)


@dataclass(frozen=True)
class AttributeFigures:
    """Attribute disclosure of one sensitive attribute under one kind of class, over the people covered.

    Shares are of people (a person's draws averaged first); ``min_*`` and ``max_t`` are over every class
    looked at, so the file is distinct/entropy ``min_*``-diverse and ``max_t``-close for these people.
    """

    attribute: str
    classes: str  # TRACE or SET
    ordered: bool
    n_people: int  # people covered: everyone of the data (TRACE), the sampled with enough points (SET)
    n_left_out: int  # sampled people with fewer than p points (SET); 0 for whole traces
    homogeneous: float
    below_distinct_l: float  # share in classes with fewer than l distinct values
    below_entropy_l: float  # share in classes whose entropy l is below l
    above_t: float  # share in classes farther than t from the file's distribution
    min_distinct_l: int | None
    min_entropy_l: float | None
    max_t: float | None
    l: int  # noqa: E741 (the literature's name)
    t: float
    p: int | None = None  # SET: the p known points; None for whole traces
    n_unknown: int = 0  # people covered whose own value is UNKNOWN

    def to_dict(self) -> dict:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict) -> AttributeFigures:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@dataclass(frozen=True)
class PersonShares:
    """Per person, the share of their classes (draws or p-subsets) that are homogeneous, below distinct l,
    below entropy l and above t; and the extremes over every class looked at."""

    homogeneous: np.ndarray
    below_distinct_l: np.ndarray
    below_entropy_l: np.ndarray
    above_t: np.ndarray
    min_distinct_l: int
    min_entropy_l: float
    max_t: float

    @classmethod
    def of(
        cls,
        counts: np.ndarray,
        owner: np.ndarray,
        n: int,
        sensitive: Sensitive,
        l: int,  # noqa: E741
        t: float,
    ) -> PersonShares:
        """From classes' value counts (rows, m), row r a class of person ``owner[r]`` (each of the n people
        has at least one row)."""
        stats = class_stats(counts, sensitive.file_shares(), sensitive.ordered, sensitive.unknown)
        rows = np.bincount(owner, minlength=n).astype(np.float64)

        def per_person(flags: np.ndarray) -> np.ndarray:
            return np.bincount(owner, weights=flags.astype(np.float64), minlength=n) / rows

        return cls(
            per_person(stats.homogeneous),
            per_person(stats.distinct < l),
            per_person(stats.entropy_l < l * (1 - 1e-12)),  # exp(ln l) may round a hair below l
            per_person(stats.t > t),
            int(stats.distinct.min()),
            float(stats.entropy_l.min()),
            float(stats.t.max()),
        )

    @classmethod
    def joined(cls, parts: list[PersonShares]) -> PersonShares:
        """The people of several parts, in order."""
        return cls(
            *(np.concatenate([getattr(p, k) for p in parts]) for k in PERSON_SHARES),
            min(p.min_distinct_l for p in parts),
            min(p.min_entropy_l for p in parts),
            max(p.max_t for p in parts),
        )


#: The per-person shares of ``PersonShares``, also the share fields of ``AttributeFigures``.
PERSON_SHARES = ("homogeneous", "below_distinct_l", "below_entropy_l", "above_t")


def figures(
    sensitive: Sensitive,
    own: np.ndarray,
    shares: PersonShares | None,
    n_left_out: int,
    classes: str,
    l: int,  # noqa: E741
    t: float,
    p: int | None = None,
) -> AttributeFigures:
    """The figures of the people with own value codes ``own`` and per-person ``shares`` (None: nobody);
    each person weighs the same whatever their number of classes."""
    unknown = int((own == sensitive.n_values - 1).sum()) if sensitive.unknown else 0
    if shares is None or not len(own):
        nan = float("nan")
        return AttributeFigures(
            sensitive.name, classes, sensitive.ordered, 0, n_left_out, nan, nan, nan, nan, None, None, None,
            l, t, p, 0,
        )  # fmt: skip
    means = [float(np.mean(getattr(shares, k))) for k in PERSON_SHARES]
    return AttributeFigures(
        sensitive.name, classes, sensitive.ordered, len(own), n_left_out, *means, shares.min_distinct_l,
        shares.min_entropy_l, shares.max_t, l, t, p, unknown,
    )  # fmt: skip


def trace_classes(indptr: np.ndarray, points: np.ndarray) -> np.ndarray:
    """A class label per user: users with identical whole traces share one (0 .. classes - 1)."""
    import pandas as pd  # deferred: reading results (project files) must not load pandas

    keys = [points[indptr[u] : indptr[u + 1]].tobytes() for u in range(len(indptr) - 1)]
    return pd.factorize(pd.Series(keys, dtype=object))[0].astype(np.int64)


def trace_class_counts(labels: np.ndarray, sensitive: Sensitive) -> np.ndarray:
    """(n_users, m) value counts of each user's whole-trace class."""
    table = np.zeros((int(labels.max(initial=-1)) + 1, sensitive.n_values), dtype=np.int64)
    np.add.at(table, (labels, sensitive.codes), 1)
    return table[labels]
