"""The trade-off panel driven like a user would: live results, score edits, choices, extra analyses."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from privacy_studio.core.naming import label_words
from privacy_studio.core.risk.results import results_of
from privacy_studio.core.tradeoff.extrapolation import SubsampleCurve
from privacy_studio.gui.workers import TaskRunner

pytestmark = pytest.mark.gui


@pytest.fixture
def panel(qtbot):
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel

    widget = TradeoffPanel(None, TaskRunner())
    qtbot.addWidget(widget)
    widget.resize(1200, 800)
    widget.show()
    return widget


def test_live_results_fill_the_pareto_view(panel, thesis_profiles, thesis_scores):
    records = thesis_profiles()
    panel.set_utility(thesis_scores)
    panel.set_results(records[:3])  # partial results, as they arrive
    assert panel.analysis is not None and len(panel.analysis.labels) == 3
    panel.set_results(records)
    a = panel.analysis
    assert a.recommendation.label == "district × 1w"
    assert panel.recommendation.text() == a.recommendation.reasoning
    assert panel.pareto_plot.getViewBox().xInverted()
    # Every profile is named in the table; on the plot only the recommended one and front profiles whose
    # names cover no other (issue #15: twelve names over clustered points were unreadable).
    named = [t.toPlainText() for t in panel.point_labels]
    assert panel.dominance.rowCount() == 12
    front = {label_words(label) for label in a.pareto.front}  # in words, as the table beside the plot
    assert named[0] == label_words(a.recommendation.label) and set(named) <= front | {named[0]}
    assert "same whichever" in panel.tau_message.text()
    image = panel.pareto_plot.grab().toImage()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 3, "the Pareto plot looks blank"


def test_editing_scores_and_domains_updates_and_announces(panel, thesis_profiles, thesis_scores, qtbot):
    panel.set_results(thesis_profiles())
    panel.add_domain("transport")
    assert panel.message.text().startswith("Add a utility domain") is False
    with qtbot.waitSignal(panel.utility_changed) as signal:
        panel.score_table.item(0, 0).setText("8")
    assert signal.args[0]["scores"]["zip × 1h"] == {"transport": 8.0}
    panel.score_table.item(1, 0).setText("11")  # refused: the cell goes back to empty
    assert "0 to 10" in panel.message.text() and panel.score_table.item(1, 0).text() == ""
    panel.rename_domain("transport", "mobility")
    assert panel.utility()["scores"]["zip × 1h"] == {"mobility": 8.0}
    assert panel.utility_choice.currentText() == "mobility"


def test_choices_round_trip_and_drive_the_analysis(panel, thesis_profiles, thesis_scores, qtbot):
    panel.set_utility(thesis_scores)
    panel.set_results(thesis_profiles())
    panel.set_choices({"risk_measure": "unicity", "risk_p": 1, "utility": "transport", "ceiling": 0.2})
    assert panel.choices() == {"risk_measure": "unicity", "risk_p": 1, "utility": "transport", "ceiling": 0.2}
    assert panel.analysis.recommendation.label == "district × 6h"
    with qtbot.waitSignal(panel.choices_changed):
        panel.ceiling.setValue(0.01)
    assert panel.analysis.recommendation.warning is not None
    assert panel.recommendation.text().startswith("⚠")
    panel.set_computed_utility({label: {"points_kept": 5.0} for label in panel.grid.labels})
    panel.utility_choice.setCurrentText("points kept (computed)")  # words; the key is the item's data
    assert np.all(panel.analysis.utility == 5.0)
    assert panel.choices()["utility"] == "points_kept"  # stored bare, as the report reads it
    panel.set_choices({"utility": "transport"})
    panel.set_choices({"utility": "points_kept"})
    assert panel.utility_choice.currentText() == "points kept (computed)"
    assert all("_" not in panel.utility_choice.itemText(i) for i in range(panel.utility_choice.count()))
    header = panel.score_table.verticalHeaderItem(0)
    assert header.data(Qt.ItemDataRole.UserRole) == panel.grid.labels[0] == "zip × 1h"
    assert header.text() == label_words("zip × 1h") == "postcode areas × 1 hour", "profiles in words"


def test_power_law_population_and_groups(panel, qtbot, thesis_profiles, thesis_scores, tmp_path):
    panel.set_utility(thesis_scores)
    panel.set_results(thesis_profiles())
    panel.set_unit_areas({"zip": 1.0, "district": 8.0, "municipality": 60.0})
    assert panel.analysis.power_law is not None and panel.analysis.power_law.n_used == 12
    assert "R²" in panel.power_text.text()
    n = np.array([100.0, 200.0, 400.0, 800.0])
    panel.set_subsample_curve(SubsampleCurve(n, 0.8 * n**-0.25))
    panel.population.setValue(10_000)
    assert "Extrapolation (not a measurement)" in panel.population_text.text()
    assert panel.extrapolated_label.textItem.toPlainText().startswith("extrapolation")
    records = thesis_profiles()
    records[0]["per_user"] = {"user_ids": ["a", "b", "c"], "unique_rate": [1.0, 0.0, None], "em": None}
    panel.set_results(records)
    panel.set_attributes(pd.DataFrame({"gender": ["f", "m", "f"]}, index=["a", "b", "c"]))
    qtbot.waitUntil(lambda: panel.group_table.rowCount() == 2)  # tabulated in a worker
    assert "2 users with both" in panel.group_text.text()
    panel.group_profile.setCurrentIndex(1)
    qtbot.waitUntil(lambda: "no per-user risks" in panel.group_text.text())


def test_mounted_on_a_session_reads_and_writes_the_project(qtbot, thesis_profiles, thesis_scores):
    from privacy_studio.core.project import Project
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
    from privacy_studio.gui.session import Session

    session = Session()
    panel = TradeoffPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    session.replace(Project(results=results_of(thesis_profiles(), "thesis"), utility=thesis_scores))
    assert panel.analysis is not None and panel.analysis.utility_name == "transport"
    panel.ceiling.setValue(1.0)
    assert session.project.tradeoff["ceiling"] == pytest.approx(0.01) and session.dirty
    panel.score_table.item(0, 0).setText("3")
    assert session.project.utility["scores"]["zip × 1h"]["transport"] == 3.0
    panel.set_computed_utility({"zip × 1h": {"od_matrix": 7.0}})
    from privacy_studio.core.analyses import ComputedUtility  # the typed, versioned form in the project

    assert session.project.analysis(ComputedUtility).scores == {"zip × 1h": {"od_matrix": 7.0}}


def test_population_subsamples_run_in_a_worker(qtbot):
    from types import SimpleNamespace

    from privacy_studio.core.events import build_event_table
    from privacy_studio.core.project import Project
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.runner import run_grid
    from privacy_studio.core.tradeoff.extrapolation import runner_estimator, subsample_curve
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
    from privacy_studio.gui.session import Session

    rng = np.random.default_rng(2)
    users = np.repeat([f"u{i:02d}" for i in range(30)], 3)
    events = build_event_table(users, np.arange(90) + 1_700_000_000, rng.integers(0, 20, 90))
    settings = RiskSettings(
        spatial=["raw"], temporal=["all"], p_values=[1], measures=["unicity"], exact=True, reference_p=1
    )
    records = [r.to_dict() for r in run_grid(events, settings)]
    session = Session()
    panel = TradeoffPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    assert panel.measure_subsamples() is None and "first" in panel.population_text.text()
    project = Project(
        results=results_of(records, "records"), utility={"domains": ["d"], "scores": {"raw × all": {"d": 5}}}
    )
    project.settings = settings.to_dict()
    project.tradeoff = {"risk_measure": "unicity", "risk_p": 1, "utility": "d", "ceiling": 1.0}
    session.replace(project, SimpleNamespace(events=events, hierarchy=None))
    assert panel.measure_subsamples() is not None
    qtbot.waitUntil(lambda: panel.curve is not None, timeout=120_000)
    want = subsample_curve(30, runner_estimator(events, settings, p=1))
    assert np.array_equal(panel.curve.n, want.n) and np.array_equal(panel.curve.risk, want.risk)
    assert "Extrapolation" in panel.population_text.text()
    panel.runner.wait(10_000)


def test_a_new_dataset_gives_the_power_law_its_unit_areas(qtbot):
    from types import SimpleNamespace

    from privacy_studio.core.events import LocationTable, build_event_table
    from privacy_studio.core.hierarchy import Hierarchy
    from privacy_studio.core.project import Project
    from privacy_studio.core.tradeoff.powerlaw import dataset_unit_areas
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
    from privacy_studio.gui.session import Session

    ids = np.array(["a", "b", "c"])
    x, y = np.array([0.0, 3.0, 0.0]), np.array([0.0, 0.0, 3.0])
    locations = LocationTable(ids, np.full(3, np.nan), np.full(3, np.nan), x, y)
    events = build_event_table(np.array(["u", "v", "w"]), np.arange(3) * 60, ids, locations=locations)
    dataset = SimpleNamespace(events=events, hierarchy=Hierarchy.from_mapping(ids, "antenna", {"zip": ids}))
    session = Session()
    panel = TradeoffPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    session.replace(Project(), dataset)
    qtbot.waitUntil(lambda: bool(panel.unit_areas), timeout=60_000)
    want, period = dataset_unit_areas(dataset)
    assert panel.unit_areas == want and panel.period_seconds == period
    panel.runner.wait(10_000)


def test_unit_areas_measured_after_opening_leave_the_project_unmodified(qtbot):
    """Opening reads the data back (``attach_dataset``); the unit areas measured on it are no edit."""
    from types import SimpleNamespace

    from privacy_studio.core.analyses import ProfileSizes
    from privacy_studio.core.events import LocationTable, build_event_table
    from privacy_studio.core.project import Project
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
    from privacy_studio.gui.session import Session

    ids = np.array(["a", "b"])
    locations = LocationTable(ids, np.full(2, np.nan), np.full(2, np.nan), np.zeros(2), np.array([0.0, 2.0]))
    events = build_event_table(np.array(["u", "v"]), np.arange(2) * 60, ids, locations=locations)
    session = Session()
    panel = TradeoffPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    session.replace(Project())
    assert not session.dirty
    session.attach_dataset(SimpleNamespace(events=events, hierarchy=None))
    qtbot.waitUntil(lambda: bool(panel.unit_areas), timeout=60_000)
    panel.runner.wait(10_000)
    assert session.project.analysis(ProfileSizes) is not None  # kept for the next save
    assert not session.dirty


def test_risk_by_group_reads_the_projects_own_attributes_file(qtbot, tmp_path):
    from privacy_studio.core.project import DataSource, Project
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
    from privacy_studio.gui.session import Session

    attributes = tmp_path / "attributes.csv"
    attributes.write_text("user_id,gender\na,f\nb,m\nc,f\n")
    session = Session()
    panel = TradeoffPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    project = Project(sources=[DataSource(str(attributes), None, {}, role="attributes")])
    session.replace(project)
    qtbot.waitUntil(lambda: panel.attributes is not None, timeout=10_000)
    assert sorted(panel.attributes.index) == ["a", "b", "c"]
    assert list(panel.attributes["gender"]) == ["f", "m", "f"]


def test_optional_criteria_are_edited_saved_and_decide(panel, thesis_profiles, thesis_scores, qtbot):
    records = thesis_profiles()
    for record in records:  # everyone is evaluated at p = 4; zip profiles leave many people out
        excluded = 400 if record["spatial"] == "zip" else 10
        record["by_p"][0].update(n_sampled=1000, n_excluded=excluded)
    panel.set_utility(thesis_scores)
    panel.set_results(records)
    panel.set_choices({"risk_measure": "unicity", "risk_p": 4, "utility": "transport", "ceiling": 0.2})
    assert panel.analysis.recommendation.label == "zip × 1w"  # 14 % unicity, the most useful under 20 %
    assert panel.criteria_boxes["max_excluded"].text() == "off"
    assert panel.criteria_boxes["max_worst_share"].text() == "= ceiling"
    # issue #25: a changed limit asks for its reason; without one the choice is not kept
    with qtbot.assertNotEmitted(panel.choices_changed):
        panel.criteria_boxes["max_excluded"].setValue(30.0)
    assert "give the reason" in panel.message.text() and panel.analysis is None
    panel.limit_reason.setText("the recipient studies frequent travellers only")
    with qtbot.waitSignal(panel.choices_changed) as signal:
        panel.limit_reason.editingFinished.emit()
    assert signal.args[0]["limit_reasons"] == {
        "max_excluded": "the recipient studies frequent travellers only"
    }
    assert panel.choices()["max_excluded"] == pytest.approx(0.3)
    assert panel.analysis.recommendation.label == "municipality × 6h"  # zip × 1w leaves 40 % out
    assert "✗ share of people excluded" not in panel.evidence.text()
    assert "✓ share of people excluded (fewer than p points): 1.0% (limit 30.0%)" in panel.evidence.text()


def test_a_saved_population_extrapolation_comes_back_on_opening(qtbot, tmp_path):
    """Issue #27: the extrapolation a project keeps is drawn again after reopening (it showed empty axes),
    with its model and population, and showing it is no edit."""
    from privacy_studio.core.analyses import PopulationExtrapolation
    from privacy_studio.core.project import Project
    from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
    from privacy_studio.gui.session import Session

    saved = PopulationExtrapolation(
        "unicity", 4, "district × 1w", [100.0, 200.0, 400.0, 800.0], [0.6, 0.5, 0.42, 0.35], 5000, "log"
    )
    project = Project()
    project.store(saved)
    path = project.save(tmp_path / "p.psproj")
    session = Session()
    panel = TradeoffPanel(session, TaskRunner())
    qtbot.addWidget(panel)
    session.replace(Project.load(path))
    xs, ys = panel.sub_points.getData()
    assert np.allclose(10**xs, saved.n) and np.allclose(ys, saved.risk)
    assert panel.model.currentText() == "log" and panel.population.value() == 5000
    assert panel.extrapolated_label.toPlainText().startswith("extrapolation: ")
    assert "district × 1w" in panel.population_plot.plotItem.titleLabel.text
    assert not session.dirty
    session.replace(Project())  # a project without one clears the drawing
    assert len(panel.sub_points.getData()[0]) == 0 and panel.extrapolated_label.toPlainText() == ""


def test_a_sampled_loss_is_analysed_once_with_its_sizes(panel, thesis_profiles, thesis_scores, monkeypatch):
    """The information loss of data beyond memory arrives with the profiles' sizes: one analysis takes both
    (the same as setting each in turn), where each alone redrew the Decide step."""
    from privacy_studio.core.analyses import ComputedUtility, ProfileSizes
    from privacy_studio.gui.panels import tradeoff_panel

    panel.set_utility(thesis_scores)
    panel.set_results(thesis_profiles())
    computed = ComputedUtility(
        {label: {"points_kept": 5.0 + i % 3} for i, label in enumerate(panel.grid.labels)}
    )
    sizes = ProfileSizes({"zip": 1.0, "district": 8.0, "municipality": 60.0}, 86_400.0 * 30)
    calls = []
    decide = tradeoff_panel.decide
    monkeypatch.setattr(tradeoff_panel, "decide", lambda inputs: calls.append(1) or decide(inputs))
    panel.set_loss(computed, sizes)
    assert len(calls) == 1
    together = panel.analysis
    panel.set_unit_areas({}, float("nan"))
    panel.set_computed_utility(ComputedUtility({}))
    panel.set_unit_areas(sizes.unit_areas, sizes.period_seconds)
    panel.set_computed_utility(computed)
    assert (
        panel.analysis.power_law == together.power_law
        and panel.analysis.recommendation == together.recommendation
    )
    assert panel.unit_areas == sizes.unit_areas and panel.computed == computed.scores
