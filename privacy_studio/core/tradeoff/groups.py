"""Who is at risk: per-user risk broken down by user attributes (gender, age band, …), with the odds ratio
of being unique in each group against everyone else (Woolf's logit interval)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm

from privacy_studio.core.measures.attributes import read_attributes
from privacy_studio.core.numbers import number
from privacy_studio.core.user_keys import user_keys

__all__ = ["read_attributes", "risk_by_group", "risk_by_group_of"]

MISSING = "(missing)"


@dataclass(frozen=True)
class GroupRow:
    """One group of one attribute: its size, mean risks and odds ratio of being unique vs the rest."""

    attribute: str
    group: str
    n_users: int
    mean_unique: float  # mean per-user uniqueness rate (share of draws in which the user was unique)
    mean_em: float
    odds_ratio: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class GroupReport:
    rows: list[GroupRow]
    n_matched: int  # users with a risk value and an attributes row
    n_without_attributes: int  # users with a risk value but no row in the attributes file
    n_without_risk: int  # users in the attributes file with no risk value (not in the data, or excluded)
    odds_note: str = ""  # why odds ratios are n/a (everyone, or nobody, unique), else ""

    def odds_text(self, row: GroupRow) -> str:
        """The odds ratio with its 95 % interval, or why it carries no information."""
        if self.odds_note:
            return self.odds_note
        if not math.isfinite(row.odds_ratio):
            return "n/a"
        return f"{number(row.odds_ratio)} [{number(row.ci_low)}, {number(row.ci_high)}]"


def odds_ratio_woolf(
    a: float, b: float, c: float, d: float, level: float = 0.95
) -> tuple[float, float, float]:
    """Odds ratio ad/bc of a 2x2 table with Woolf's logit interval; 0.5 is added to every cell if one is 0."""
    if min(a + b, c + d) <= 0:
        return (math.nan, math.nan, math.nan)
    if min(a, b, c, d) <= 0:
        a, b, c, d = a + 0.5, b + 0.5, c + 0.5, d + 0.5
    log_or = math.log(a * d / (b * c))
    half = norm.ppf(0.5 + level / 2) * math.sqrt(1 / a + 1 / b + 1 / c + 1 / d)
    return (math.exp(log_or), math.exp(log_or - half), math.exp(log_or + half))


def risk_by_group(
    user_ids: np.ndarray, unique_rate: np.ndarray, em: np.ndarray | None, attributes: pd.DataFrame
) -> GroupReport:
    """Per attribute and group: users, mean uniqueness rate, mean EM_u, odds ratio of being unique vs rest.

    A user counts as unique in the share of draws given by ``unique_rate`` (so the 2x2 table holds expected
    counts); users without a risk value (not sampled, or too few points) are left out and counted.
    """
    ids = np.asarray(user_ids).astype(str)
    rate = np.asarray(unique_rate, dtype=np.float64)
    em_values = np.full(len(ids), np.nan) if em is None else np.asarray(em, dtype=np.float64)
    if not (len(ids) == len(rate) == len(em_values)):
        raise ValueError("user ids, uniqueness rates and EM values must have one entry per user")
    risk = pd.DataFrame({"unique": rate, "em": em_values}, index=ids)
    has_risk = risk[np.isfinite(rate)]
    attributes = attributes.copy()
    attributes.index = attributes.index.astype(str)
    matched = has_risk.index.intersection(attributes.index, sort=False)
    rows: list[GroupRow] = []
    table = has_risk.loc[matched]
    total_unique = float(table["unique"].sum())
    note = (
        "n/a — everyone unique"
        if len(table) and math.isclose(total_unique, len(table))
        else ("n/a — nobody unique" if len(table) and total_unique == 0 else "")
    )
    for attribute in attributes.columns:
        labels = attributes.loc[matched, attribute].replace("", MISSING).fillna(MISSING).astype(str)
        for group in sorted(labels.unique()):
            inside = (labels == group).to_numpy()
            a = float(table["unique"].to_numpy()[inside].sum())
            n_in, n_out = int(inside.sum()), len(table) - int(inside.sum())
            ratio, low, high = (
                (math.nan,) * 3  # no variation in uniqueness: an odds ratio carries no information
                if note
                else odds_ratio_woolf(a, n_in - a, total_unique - a, n_out - (total_unique - a))
            )
            em_in = table["em"].to_numpy()[inside]
            rows.append(
                GroupRow(
                    str(attribute), group, n_in, a / n_in,
                    float(np.nanmean(em_in)) if np.isfinite(em_in).any() else math.nan, ratio, low, high,
                )
            )  # fmt: skip
    return GroupReport(
        rows,
        len(matched),
        len(has_risk) - len(matched),
        int((~attributes.index.isin(has_risk.index)).sum()),
        note,
    )


def risk_by_group_of(result: object, attributes: pd.DataFrame, salt: str | None = None) -> GroupReport:
    """:func:`risk_by_group` on the per-user risks of one ``ProfileResult`` (or its ``to_dict()``); results
    saved in a project name users by salted keys, and the attributes' ids are keyed with the same ``salt``."""
    record = result.to_dict() if hasattr(result, "to_dict") else result
    per_user = record.get("per_user") or {} if isinstance(record, dict) else {}
    ids, attributes = per_user_ids(per_user, attributes, salt)
    if ids is None:
        raise ValueError("this result has no per-user risks: run the analysis again to get them")
    rate = [np.nan if v is None else v for v in per_user["unique_rate"]]
    em = per_user.get("em")
    em_values = None if em is None else np.asarray([np.nan if v is None else v for v in em], dtype=np.float64)
    return risk_by_group(ids, np.asarray(rate, dtype=np.float64), em_values, attributes)


def per_user_ids(
    per_user: dict, attributes: pd.DataFrame, salt: str | None
) -> tuple[np.ndarray | None, pd.DataFrame]:
    """The users of per-user results and the attributes indexed the same way (by salted key when the
    results were saved in a project); None when the results have no per-user part."""
    if per_user.get("user_ids"):
        return np.asarray(per_user["user_ids"]), attributes
    if per_user.get("user_keys"):
        if salt is None:
            raise ValueError(
                "these per-user risks are keyed by the project's salt: open them from the project"
            )
        keyed = attributes.copy()
        keyed.index = user_keys(attributes.index, salt)
        return np.asarray(per_user["user_keys"]), keyed
    return None, attributes
