"""The Decide step's decision carries the seed spread the run stored, and says it beside the
recommendation (it decided without it, so the window never showed how much the headline moves)."""

from __future__ import annotations

import pytest

from privacy_studio.core.analyses import SeedSpread
from privacy_studio.core.project import Project
from privacy_studio.core.risk.results import results_of
from privacy_studio.gui.workers import TaskRunner

pytestmark = pytest.mark.gui


def test_the_stored_seed_spread_is_shown_with_the_recommendation(qtbot, thesis_profiles, thesis_scores):
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
    from privacy_studio.gui.session import Session

    session = Session()
    panel = TradeoffPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    session.replace(Project(results=results_of(thesis_profiles(), "thesis"), utility=thesis_scores))
    first = panel.analysis
    assert first is not None and first.recommendation.label is not None and first.seed_spread is None
    spread = SeedSpread(first.recommendation.label, first.measure, first.p, [7, 8, 9], [0.02, 0.03, 0.025])

    project = Project(results=results_of(thesis_profiles(), "thesis"), utility=thesis_scores)
    project.store(spread)
    session.replace(project)
    assert panel.analysis.seed_spread == spread
    assert spread.sentence() in panel.recommendation.text()
    assert "Over 3 seeds (7, 8, 9)" in panel.recommendation.text()
