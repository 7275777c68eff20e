"""The attacks panel shows every attack's result from its JSON-ready dictionary."""

from __future__ import annotations

import numpy as np
import pytest

from privacy_studio.core.generalize import Profile, SpatialLevel
from privacy_studio.core.masking import mask
from privacy_studio.core.measures.attacks.linkage import record_linkage
from privacy_studio.core.measures.attacks.matching import run_matching
from privacy_studio.core.measures.attacks.planted import planted_pair
from privacy_studio.core.measures.attacks.profiling import run_profiling
from privacy_studio.core.measures.attacks.transparency import transparency_attack

pytestmark = pytest.mark.gui


def test_panel_shows_all_results(qtbot):
    from privacy_studio.gui.panels.attacks_panel import AttacksPanel

    panel = AttacksPanel()
    qtbot.addWidget(panel)
    assert panel.summary_lines() == []
    a, b = planted_pair(30, seed=1)
    x = np.random.default_rng(0).normal(size=(20, 2))
    y = mask(x, "rankswap", p=10)
    panel.set_results(
        {
            "matching": run_matching(a, b, Profile.parse("raw", "1d"), epsilons=(0.0, 1.0)).to_dict(),
            "profiling": run_profiling(a, b, SpatialLevel.parse("raw"), sizes=(10,)).to_dict(),
            "linkage": record_linkage(x, y, ("euclidean",)),
        }
    )
    panel.set_results({"transparency": transparency_attack(x, y, p_percent=10)})
    lines = panel.summary_lines()
    assert len(lines) == 4
    assert "30 true pairs" in lines[0]
    assert "whole population of 30" in lines[1]
    assert panel.linkage_table.rowCount() == 1 and panel.linkage_table.item(0, 0).text() == "euclidean"
    assert "Window 2 ranks over 20 records" in lines[3]
    assert len(panel.matching_plot.listDataItems()) == 2
