"""Individual re-identification risk 1/|E_u| as ARX's risk summary reports it, beside k-disclosure (its
average): the share of records at risk and the highest individual risk.

A person's risk under p known points is 1/|E_u|, the chance of picking their record among the people the
points fit. Records at risk are the draws whose anonymity set is smaller than a chosen k (risk above 1/k);
the highest risk is the largest 1/|E_u| over the draws looked at (sampled people, or every p-subset in
exact mode), so when sampled it is a lower bound on the whole file's.
"""

from __future__ import annotations

from privacy_studio.core.measures.setsizes import SetsAtP


def records_at_risk(sets: SetsAtP) -> dict[str, object]:
    """Share of draws whose anonymity set is smaller than ``sets.risk_k`` (individual risk above 1/k)."""
    return {"records_at_risk": sets.mean_over_draws(sets.sizes < sets.risk_k)}


def highest_risk(sets: SetsAtP) -> dict[str, object]:
    """The largest individual risk 1/|E| over every draw looked at (NaN when nobody was included)."""
    return {"highest_risk": float(1.0 / sets.sizes.min()) if sets.sizes.size else float("nan")}
