"""Shared data of the trade-off tests: a grid shaped like the thesis' (table 5.2) with expert scores."""

from __future__ import annotations

import pytest

# Unicity at p = 4 from the thesis' table 5.2 (its "14.46" read as 14 %), with narrow made-up intervals.
UNICITY = {
    ("zip", "1h"): 0.97, ("zip", "6h"): 0.79, ("zip", "12h"): 0.67, ("zip", "1w"): 0.14,
    ("district", "1h"): 0.82, ("district", "6h"): 0.42, ("district", "12h"): 0.28, ("district", "1w"): 0.0017,
    ("municipality", "1h"): 0.55, ("municipality", "6h"): 0.14, ("municipality", "12h"): 0.06,
    ("municipality", "1w"): 0.0008,
}  # fmt: skip
TRANSPORT = {"zip": 9, "district": 7, "municipality": 4}
WIDTH_BONUS = {"1h": 1, "6h": 0.5, "12h": 0, "1w": -3}


def profiles(with_p1: bool = True) -> list[dict]:
    out = []
    for (spatial, temporal), u in UNICITY.items():
        by_p = [
            {
                "p": 4,
                "unicity": u,
                "unicity_ci": [u * 0.98, min(1.0, u * 1.02 + 1e-4)],
                "k_disclosure": u + (1 - u) * 0.3,
                "em": u / 10,
                # the other default criteria (issue #25) are no stricter than unicity here (worst case at
                # the unicity's share, unique whole traces at its p = 1 share), so the thesis' scenarios are
                # still decided by unicity
                "worst_share_at_1": u,
                "worst_exact": True,
            }
        ]
        if with_p1:
            by_p.append(
                {
                    "p": 1,
                    "unicity": u / 4,
                    "unicity_ci": [u / 5, u / 3],
                    "worst_share_at_1": u / 4,
                    "worst_exact": True,
                }
            )
        kanon = {"k": 1, "share_below": {"2": u / 4, "5": min(1.0, u)}}
        out.append({"spatial": spatial, "temporal": temporal, "n_users": 1000, "by_p": by_p, "kanon": kanon})
    return out


def expert_scores() -> dict:
    scores = {
        f"{s} × {t}": {"transport": min(10.0, max(0.0, TRANSPORT[s] + WIDTH_BONUS[t]))} for s, t in UNICITY
    }
    return {"domains": ["transport"], "scores": scores}


@pytest.fixture
def thesis_profiles():
    """Build fresh result records (tests may change them)."""
    return profiles


@pytest.fixture
def thesis_scores():
    return expert_scores()
