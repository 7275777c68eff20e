"""Fixtures: a small hand-made project with results in the risk engine's JSON layout (no run needed)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from privacy_studio.core.project import Project
from privacy_studio.core.risk.results import results_of

SPATIAL = ["antenna", "zip", "district"]
TEMPORAL = ["1h", "6h", "1d"]


def fake_results(spatial: list[str] = SPATIAL, temporal: list[str] = TEMPORAL, p_max: int = 4) -> list[dict]:
    """Unicity growing with p and falling with coarseness; every measure of a ``by_p`` entry is present."""
    out = []
    for si, s in enumerate(spatial):
        for ti, t in enumerate(temporal):
            by_p = []
            for p in range(1, p_max + 1):
                u = min(1.0, 0.2 * p / (1 + si + ti))
                by_p.append(
                    {
                        "p": p,
                        "unicity": u,
                        "unicity_ci": [0.9 * u, min(1.0, 1.1 * u)],
                        "k_disclosure": min(1.0, u + 0.05),
                        "em": 0.001 * p / (1 + si),
                        "kl": 0.002 * p / (1 + si + ti),
                        "n_sampled": 100,
                        "n_excluded": si,
                        "worst_mean": min(1.0, 1.5 * u),
                        "worst_share_at_1": u,
                        "worst_exact": True,
                    }
                )
            out.append(
                {
                    "spatial": s,
                    "temporal": t,
                    "label": f"{s} × {t}",
                    "n_users": 100,
                    "d": 1000 // (1 + si),
                    "fill_rate": 0.01 * (1 + si + ti),
                    "kanon": {
                        "k": 1 + si,
                        "share_below": {"2": 0.9 / (1 + si + ti) ** 2, "5": 0.95, "10": 1.0, "100": 1.0},
                    },
                    "by_p": by_p,
                }
            )
    return out


def fake_project(with_utility: bool = True, ceiling: float = 0.2) -> Project:
    project = Project(name="Hand-made grid")
    project.results = results_of(fake_results(), "fake results")
    project.settings = {
        "spatial": SPATIAL,
        "temporal": TEMPORAL,
        "p_values": [1, 2, 3, 4],
        "seed": 5,
        "samples": 100,
    }
    if with_utility:
        scores = {
            f"{s} × {t}": {"transport": float(9 - 2 * si - ti)}
            for si, s in enumerate(SPATIAL)
            for ti, t in enumerate(TEMPORAL)
        }
        project.utility = {"domains": ["transport"], "scores": scores}
    project.tradeoff = {"risk_measure": "unicity", "risk_p": 4, "utility": "transport", "ceiling": ceiling}
    return project


@pytest.fixture(scope="session")
def make_results() -> Callable[..., list[dict]]:
    return fake_results


@pytest.fixture(scope="session")
def make_project() -> Callable[..., Project]:
    return fake_project
