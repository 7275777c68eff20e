"""Individual re-identification risk 1/|E_u| as ARX's risk summary reports it, beside k-disclosure (its
average): the share of records at risk and the highest individual risk.

Records at the highest risk are the share of draws whose set is that smallest one: how many share the
worst exposure (ARX's "records affected by the highest risk").

A person's risk under p known points is 1/|E_u|, the chance of picking their record among the people the
points fit. Records at risk are the draws whose anonymity set is smaller than a chosen k (risk above 1/k);
the highest risk is the largest 1/|E_u| over the draws looked at (sampled people, or every p-subset in
exact mode), so when sampled it is a lower bound on the whole file's.
"""

from __future__ import annotations

import numpy as np

from privacy_studio.core.measures.setsizes import SetsAtP


def records_at_risk(sets: SetsAtP) -> dict[str, object]:
    """Share of draws whose anonymity set is smaller than ``sets.risk_k`` (individual risk above 1/k);
    in exact mode each person's share of their p-subsets, averaged over people."""
    weights = sets.class_weights
    if weights is None or not sets.n_draws:
        return {"records_at_risk": float("nan")}
    return {"records_at_risk": float(weights[: sets.risk_k].sum() / weights.sum())}


def highest_risk(sets: SetsAtP) -> dict[str, object]:
    """The largest individual risk 1/|E| over every draw looked at (NaN when nobody was included)."""
    weights = sets.class_weights
    if weights is None or not sets.n_draws:
        return {"highest_risk": float("nan")}
    smallest = int(np.flatnonzero(weights[1:] > 0)[0]) + 1
    return {"highest_risk": 1.0 / smallest}


def records_at_highest_risk(sets: SetsAtP) -> dict[str, object]:
    """Share of draws at the highest individual risk (the smallest anonymity set seen), ARX's "records
    affected by the highest risk"; in exact mode each person's share of their p-subsets, averaged."""
    weights = sets.class_weights
    if weights is None or not sets.n_draws:
        return {"records_at_highest_risk": float("nan")}
    smallest = int(np.flatnonzero(weights[1:] > 0)[0]) + 1
    return {"records_at_highest_risk": float(weights[smallest] / weights.sum())}
