"""What a first-time user sees before and after a run: hints on empty plots, readable labels and counts."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox

from privacy_studio.core.io.dataset import period_text
from privacy_studio.gui.plots.base import NO_RESULTS
from privacy_studio.gui.plots.heatmap import NOT_RUN, UnicityHeatmap
from privacy_studio.gui.plots.location_map import LocationEmMap
from tests.gui.project_files import open_and_wait

SAMPLE_PROJECT = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"


def _record(spatial: str, temporal: str, unicity: float) -> dict:
    return {"spatial": spatial, "temporal": temporal, "by_p": [{"p": 1, "unicity": unicity}]}


def test_empty_plots_say_how_to_fill_them(window):
    for plot in window.plots:
        assert plot.note.text() == NO_RESULTS, plot.title
    window.plots[0].set_records([_record("zip", "1h", 0.5)])
    assert window.plots[0].note.text() != NO_RESULTS
    window.plots[0].set_records([])
    assert window.plots[0].note.text() == NO_RESULTS


def test_heatmap_marks_cells_without_a_result_as_not_run(qtbot):
    heat = UnicityHeatmap()
    qtbot.addWidget(heat)
    heat.set_axes(["zip", "district"], ["1h", "1w"])
    heat.set_records([_record("zip", "1h", 0.25)])
    assert [t.toPlainText() for t in heat.texts] == ["25.0%", NOT_RUN, NOT_RUN, NOT_RUN]


def test_heatmap_orders_time_widths_from_fine_to_coarse(qtbot):
    heat = UnicityHeatmap()
    qtbot.addWidget(heat)
    heat.set_axes(["zip"], ["1h", "1w", "1d"])  # the order they were added in the Grid
    heat.set_records([_record("zip", "1w", 0.1), _record("zip", "1h", 0.5), _record("zip", "1d", 0.3)])
    spatial, temporal, values = heat.matrix()
    assert spatial == ["zip"]
    assert temporal == ["1h", "1d", "1w"]
    assert values.tolist() == [[0.5, 0.3, 0.1]]


def test_heatmap_says_where_over_a_tenth_of_the_file_is_left_out(qtbot):
    """Issue #25: a cell leaving out 60 % of the file at p says so, with the all-points figure."""
    heat = UnicityHeatmap()
    qtbot.addWidget(heat)
    heat.set_axes(["zip", "district"], ["1w"])
    wide = {"p": 1, "unicity": 0.25, "n_excluded_in_file": 60, "unicity_all_points": 0.125}
    narrow = {"p": 1, "unicity": 0.5, "n_excluded_in_file": 5, "unicity_all_points": 0.45}
    heat.set_records(
        [
            {"spatial": "zip", "temporal": "1w", "n_users": 100, "by_p": [wide]},
            {"spatial": "district", "temporal": "1w", "n_users": 100, "by_p": [narrow]},
        ]
    )
    assert [t.toPlainText() for t in heat.texts] == ["25.0%\n60.0% left out\nall points: 12.5%", "50.0%"]
    assert "judged on all their points" in heat.note.text()


def _combo_option(combo: QComboBox) -> QStyleOptionComboBox:
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return option


def test_profile_choice_is_wide_enough_for_its_longest_label(qtbot):
    loc_map = LocationEmMap()
    qtbot.addWidget(loc_map)
    loc_map.show()
    qtbot.waitExposed(loc_map)  # first shown empty, as in the window before any run
    loc_map.set_records([_record("municipality", "30min", 0.1), _record("zip", "1h", 0.2)])
    combo = loc_map.combo
    needed = combo.fontMetrics().horizontalAdvance("municipality × 30min")
    arrow = (
        combo.width()
        - combo.style()
        .subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            _combo_option(combo),
            QStyle.SubControl.SC_ComboBoxEditField,
            combo,
        )
        .width()
    )
    qtbot.waitUntil(lambda: combo.width() - arrow >= needed, timeout=3000)


def test_tree_counts_the_cells_ticked_in_an_opened_project(window, qtbot):
    if not SAMPLE_PROJECT.exists():
        return
    assert open_and_wait(qtbot, window, SAMPLE_PROJECT)
    ticked = len(window.grid.checked_cells())
    assert ticked == 12  # the sample project keeps cells=None: every cell of its 3 x 4 grid
    grid_items = [window.tree.topLevelItem(i).text(0) for i in range(window.tree.topLevelItemCount())]
    assert f"Grid ({ticked} cells ticked)" in grid_items


def _fails_at_once(control=None):
    raise ValueError("nothing to do")


def test_status_bar_is_freed_by_a_task_that_fails_at_once(window, qtbot):
    from privacy_studio.gui.workers import Worker

    for _ in range(5):  # the race needs the pool thread to finish before the status bar connects
        worker = Worker(_fails_at_once, name="quick failure")
        window.runner.start(worker)
        qtbot.waitUntil(lambda: not window.runner.active, timeout=5000)
        qtbot.waitUntil(lambda: window.status_worker is None, timeout=5000)
        assert not window.cancel_button.isVisible()


def test_anonymizability_targets_more_than_the_people_means_everyone(imported_window):
    panel = imported_window.anonymizability
    people = imported_window.session.dataset.events.n_users
    panel.targets.setValue(people + 500)
    assert panel.settings()["targets"] is None
    panel.targets.setValue(people - 1)
    assert panel.settings()["targets"] == people - 1


def test_results_table_explains_counts_and_marks_measures_not_computed(qtbot):
    from PySide6.QtCore import Qt

    from privacy_studio.gui.panels.results_table import COLUMNS, NOT_COMPUTED, TOOLTIP, ResultsTable

    table = ResultsTable()
    qtbot.addWidget(table)
    headers = [c[0] for c in COLUMNS]
    for header in ("people", "sampled", "excluded"):
        assert table.model().headerData(headers.index(header), Qt.Orientation.Horizontal, TOOLTIP), header
    rec = _record("zip", "1h", 0.25)
    rec["by_p"][0]["worst_mean"] = None
    table.set_records([rec])
    assert table.cell_value(0, "unicity") == "25.0%"
    assert table.cell_value(0, "worst-case mean") == NOT_COMPUTED


def test_data_summary_says_min_median_max_not_quantile_codes(imported_window):
    summary = imported_window.summary
    texts = [
        summary.form.itemAt(i, summary.form.ItemRole.FieldRole).widget().text()
        for i in range(summary.form.rowCount())
    ]
    per_user = next(t for t in texts if "median" in t)
    assert per_user.startswith("min: ") and "max: " in per_user and "q50" not in per_user
    events = imported_window.session.dataset.events
    period = next(t for t in texts if t.endswith(" Europe/Paris"))  # the zone the data was imported in
    assert period == period_text(*events.period(), "Europe/Paris") and "Z" not in period


def test_results_table_shows_shares_as_percentages_and_counts_as_counts(qtbot):
    """Every field the catalogue marks as a proportion (and its interval) reads as a percentage, as in the
    report; counts and d stay numbers, and sorting still follows the numeric value."""
    from PySide6.QtCore import Qt

    from privacy_studio.core.risk.catalogue import RISK_FIELDS
    from privacy_studio.gui.panels.results_table import COLUMNS, ResultsTable

    table = ResultsTable()
    qtbot.addWidget(table)
    low, high = _record("zip", "1h", 0.125), _record("zip", "1w", 0.06)
    for rec in (low, high):
        rec.update(n_users=1234, d=5000)
        rec["by_p"][0].update(unicity_ci=[0.1, 0.15], n_sampled=1000)
    table.set_records([low, high])
    headers = [c[0] for c in COLUMNS]
    shares = [f.short for f in RISK_FIELDS.values() if f.proportion]
    assert "unicity" in shares
    assert table.cell_value(0, "unicity") == "12.5%"
    assert table.cell_value(0, "unicity 95% CI") == "[10.0%, 15.0%]"
    assert table.cell_value(0, "people") == "1234" and table.cell_value(0, "sampled") == "1000"
    table.sortByColumn(headers.index("unicity"), Qt.SortOrder.AscendingOrder)
    assert table.cell_value(0, "unicity") == "6.0%"


def test_a_cdf_where_everyone_shares_one_value_says_so_in_words(qtbot):
    """The tail-weight view was a bare step at 0 with nothing saying why."""
    import numpy as np
    import pyqtgraph as pg

    from privacy_studio.gui.panels.anonymizability_panel import _draw

    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    plot = widget.addPlot()
    _draw(plot, [("spatial", np.zeros(5)), ("temporal", np.array([0.0, 1.0, np.nan]))])
    assert plot.titleLabel.text == "One value for everyone — spatial: all 5 users at 0"
    assert plot.titleLabel.maximumHeight() > 0
    _draw(plot, [("temporal", np.array([0.0, 1.0]))])
    assert plot.titleLabel.maximumHeight() == 0, "a spread-out curve needs no sentence: the title is hidden"


def test_the_em_histogram_says_whom_it_covers_when_not_everyone():
    """Issue #27: 'People sampled = 100,000' beside a histogram of 963 people said nothing of the rest."""
    from privacy_studio.gui.plots.distribution import covered_people

    rec = {"n_users": 2000, "reference_p": 4, "by_p": [{"p": 4, "n_sampled": 1000, "n_excluded": 37}]}
    assert covered_people(rec, 963) == (
        "963 of the 2,000 people in the file (1,000 sampled, 37 of them left out with fewer than p points)"
    )
    everyone = {"n_users": 963, "reference_p": 4, "by_p": [{"p": 4, "n_sampled": 963, "n_excluded": 0}]}
    assert covered_people(everyone, 963) == "963 people (everyone in the file)"
    short = {"n_users": 1000, "reference_p": 4, "by_p": [{"p": 4, "n_sampled": 1000, "n_excluded": 40}]}
    assert covered_people(short, 960) == (
        "960 of the 1,000 people in the file (everyone evaluated, 40 of them left out with fewer than p "
        "points)"
    )
    # every person evaluated, EM-disclosure computed for the first 1,000 sampled only (em_samples)
    em_subset = {"n_users": 1992, "reference_p": 4, "by_p": [{"p": 4, "n_sampled": 1992, "n_excluded": 66}]}
    assert covered_people(em_subset, 961) == (
        "961 of the 1,992 people in the file (everyone evaluated, 66 of them left out with fewer than p "
        "points; EM-disclosure computed for 961 of the 1,926 evaluated, the first sampled)"
    )


def test_the_risk_map_says_whom_its_values_come_from():
    """Issue #27: the places' EM-disclosure comes from the people EM was computed for, not the whole file."""
    from privacy_studio.gui.plots.location_map import em_people

    rec = {"n_users": 1992, "reference_p": 4, "by_p": [{"p": 4, "em_users": 961}]}
    assert em_people(rec) == (
        " Estimated from the 961 of the 1,992 people on whom EM-disclosure was computed."
    )
    assert em_people({"n_users": 961, "reference_p": 4, "by_p": [{"p": 4, "em_users": 961}]}) == ""


def test_the_disclosure_bars_say_em_covers_fewer_people_than_k_disclosure():
    """Issue #27: EM- and KL-disclosure are computed for the first people sampled only; the bars say so."""
    from privacy_studio.gui.plots.disclosure import em_coverage

    recs = [
        {"by_p": [{"p": 4, "n_sampled": 1992, "n_excluded": 66, "em_users": 961}]},
        {"by_p": [{"p": 4, "n_sampled": 1992, "n_excluded": 60, "em_users": 965}]},
    ]
    assert em_coverage(recs, 4) == (
        "EM- and KL-disclosure computed for 961–965 of the 1,926–1,932 people evaluated per profile (the "
        "first sampled); k-disclosure for all of them, attacker knows p = 4 points."
    )
    everyone = [{"by_p": [{"p": 4, "n_sampled": 900, "n_excluded": 10, "em_users": 890}]}]
    assert em_coverage(everyone, 4) == ""
