"""The window stays responsive: hidden plots wait, the risk map draws cells, Cancel and Esc show at once."""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from privacy_studio.core.engines import numba_engine
from privacy_studio.core.naming import label_words
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.runner import run_grid
from privacy_studio.gui.plots.location_map import MAX_PLACES_SHOWN, LocationEmMap

from .test_flow import RUN_TIMEOUT, tick_cells

#: Longer than a plot's redraw delay.
REDRAW_WAIT_MS = 400


def _record(spatial: str, temporal: str, places: int = 0, reference_p: int = 1) -> dict:
    rng = np.random.default_rng(len(spatial) + places)
    record = {
        "spatial": spatial,
        "temporal": temporal,
        "reference_p": reference_p,
        "by_p": [{"p": p, "unicity": 0.1 * p, "unicity_ci": [0.05 * p, 0.15 * p]} for p in (1, 2, 3)],
    }
    if places:
        record["per_location"] = {
            "unit_ids": [f"u{i}" for i in range(places)],
            "x_km": rng.uniform(0, 30, places).tolist(),
            "y_km": rng.uniform(0, 20, places).tolist(),
            "em": rng.exponential(1e-4, places).tolist(),
        }
    return record


def test_hidden_plots_wait_until_shown_and_bursts_redraw_once(window, qtbot, monkeypatch):
    window.show_step("run")
    window.tabs.setCurrentIndex(0)
    drawn: dict[str, int] = {}
    for plot in window.plots:
        original = plot.refresh
        monkeypatch.setattr(
            plot,
            "refresh",
            lambda p=plot, f=original: (drawn.__setitem__(p.title, 1 + drawn.get(p.title, 0)), f()),
        )
    records = [_record("zip", "1h"), _record("district", "1w")]
    for i in range(1, 3):
        for plot in window.plots:
            plot.set_records(records[:i])
    shown, hidden = window.plots[0], window.plots[1]
    qtbot.waitUntil(lambda: drawn.get(shown.title) == 1, timeout=3000)
    assert hidden.title not in drawn, "a plot in a hidden tab is not drawn"
    assert hidden.p_box.maximum() == 3, "its choosers follow the records at once"
    window.tabs.setCurrentWidget(hidden)
    qtbot.waitUntil(lambda: drawn.get(hidden.title) == 1, timeout=3000)
    assert len(hidden.texts) == 4


def test_heatmap_opens_at_the_reference_p(window):
    heat = window.heatmap
    heat.set_records([_record("zip", "1h", reference_p=2)])
    assert heat.p_box.value() == 2
    heat.p_box.setValue(3)
    heat.set_records([_record("zip", "1h", reference_p=2), _record("zip", "1w", reference_p=2)])
    assert heat.p_box.value() == 3, "the user's choice stays while results come in"


def test_risk_map_draws_cells_and_places_only_when_zoomed_in(window, qtbot):
    loc_map = window.plots[-1]
    assert isinstance(loc_map, LocationEmMap) and loc_map.runner is window.runner
    window.show_step("run")
    window.tabs.setCurrentWidget(loc_map)
    loc_map.set_records([_record("raw", "1h", places=3 * MAX_PLACES_SHOWN)])
    qtbot.waitUntil(lambda: loc_map.cells is not None, timeout=5000)
    assert loc_map.cells.places.sum() == 3 * MAX_PLACES_SHOWN
    assert loc_map.shown_places() == 0, "at city scale the map shows cells, not every place"
    assert "darker = riskier" in loc_map.note.text()
    assert len(loc_map.legend.items) == 5
    loc_map.plot.setRange(xRange=(0, 3), yRange=(0, 3), padding=0)
    qtbot.waitUntil(lambda: 0 < loc_map.shown_places() <= MAX_PLACES_SHOWN, timeout=3000)
    assert len(loc_map.data_table()[1]) == 3 * MAX_PLACES_SHOWN, "the export keeps every place"


def test_cancel_and_esc_show_at_once_and_stop_the_run(imported_window, qtbot, monkeypatch):
    win = imported_window
    release = threading.Event()

    def slow(*args, **kwargs):
        for item in run_grid(*args, **kwargs):
            yield item
            release.wait(30)

    monkeypatch.setattr(numba_engine, "run_grid", slow)
    worker = win.start_run(tick_cells(win))
    qtbot.waitUntil(lambda: win.cancel_action.isEnabled(), timeout=5000)
    assert win.cancel_button.isVisible() and win.cancel_button.text() == "Cancel"
    win.activateWindow()
    qtbot.keyClick(win, Qt.Key.Key_Escape)
    if not worker.is_cancelled:  # offscreen platforms without an active window route no shortcut
        win.cancel_action.trigger()
    assert worker.is_cancelled
    assert win.cancel_button.text() == "Cancelling…" and not win.cancel_button.isEnabled()
    assert not win.cancel_action.isEnabled()
    release.set()
    qtbot.waitUntil(lambda: win.run_worker is None, timeout=RUN_TIMEOUT)
    assert win.cancel_button.text() == "Cancel" and not win.cancel_action.isEnabled()
    assert win.run_action.isEnabled()


def test_warm_up_runs_in_the_background_without_cancel(window, qtbot):
    worker = window.warm_up()
    assert worker.background
    assert "background" in window.status_label.text()
    assert window.status_worker is None and not window.cancel_button.isVisible()
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=300_000)


def test_a_second_run_asks_before_replacing_results(imported_window, qtbot, monkeypatch):
    win = imported_window
    settings = tick_cells(win, (("district", "1w"),))
    win.start_run(settings)
    qtbot.waitUntil(lambda: win.run_worker is None, timeout=RUN_TIMEOUT)
    before = list(win.session.project.results)
    asked: list[str] = []

    def refuse(_parent, _title, text, *_args):
        asked.append(text)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", refuse)
    assert win.start_run(settings) is None
    assert "replaces the 1 profiles" in asked[0]
    assert win.session.project.results == before


def test_scrolling_over_a_setting_without_focus_leaves_it_alone(window, qtbot):
    box = window.grid.samples
    window.show_step("grid")
    before = box.value()
    wheel = QWheelEvent(
        QPointF(5, 5),
        QPointF(box.mapToGlobal(box.rect().center())),
        QPointF(0, 0).toPoint(),
        QPointF(0, 120).toPoint(),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(box, wheel)
    assert box.value() == before
    assert box.focusPolicy() == Qt.FocusPolicy.StrongFocus


def test_png_export_is_at_print_resolution_with_a_header(window, tmp_path):
    from PySide6.QtGui import QImage

    from privacy_studio.gui.plots.base import PRINT_WIDTH

    unicity = window.plots[0]
    window.session.project.name = "Test city"
    window._update_title()
    record = _record("zip", "1h")
    record["n_users"] = 1234
    record["by_p"][0]["n_excluded"] = 7
    unicity.set_records([record])
    image = QImage(str(unicity.export(tmp_path / "u.png")))
    assert image.width() == PRINT_WIDTH and round(image.dotsPerMeterX() * 0.0254) == 300
    assert unicity.header_lines() == ["Unicity vs p", "Test city — 1,234 people"]
    heat = window.heatmap
    heat.set_records([record])
    assert heat.header_lines()[1].endswith(
        "1,234 people; attacker knows p = 1 points; 7 sampled people with fewer than p points left out"
    )
    svg = heat.export(tmp_path / "h.svg").read_text()
    assert "Test city" in svg and "Unicity heat-map" in svg


def test_profiles_differ_in_marker_as_well_as_colour(window):
    unicity = window.plots[0]
    unicity.set_records([_record(f"grid:{i}", "1h") for i in range(1, 10)])
    unicity.flush()  # the window shows its start page: the plot draws when asked to
    pairs = {(c.line.opts["symbol"], c.line.opts["symbolBrush"]) for c in unicity.curves.values()}
    assert len(pairs) == 9
    assert unicity.plot.getAxis("left").tickStrings([0.0, 0.5], 1.0, 0.5) == ["0.0%", "50.0%"]


def test_trade_off_waits_until_shown_during_a_run(window, qtbot):
    panel = window.tradeoff
    window.show_step("run")
    window.tabs.setCurrentIndex(0)
    window.session.add_result(ProfileResult.from_dict(_record("zip", "1h")))
    window.session.add_result(ProfileResult.from_dict(_record("district", "1w")))
    qtbot.wait(REDRAW_WAIT_MS)
    assert panel.results == [], "a hidden trade-off panel is not recomputed on every profile"
    window.show_step("decide")
    qtbot.waitUntil(lambda: len(panel.results) == 2, timeout=3000)


def test_em_histogram_keeps_extreme_people_in_its_last_bar(qtbot):
    from privacy_studio.gui.plots.distribution import BINS, UserEmHistogram

    plot = UserEmHistogram()
    qtbot.addWidget(plot)
    em = [i / 1000 for i in range(199)] + [5.0, 9.0]  # two people far beyond everybody else
    record = _record("zip", "1h")
    record["per_user"] = {"em": em}
    plot.set_records([record])
    counts, edges = plot.histogram()
    top = float(np.quantile(em, 0.99))
    assert len(counts) == BINS and edges[-1] == top and counts.sum() == len(em)
    assert counts[-1] == sum(1 for v in em if v >= edges[-2])
    assert plot.above_top() == 2 and "2 people above" in plot.note.text()


def test_heatmap_marks_profiles_against_the_release_criteria(qtbot):
    from privacy_studio.gui.plots.heatmap import UnicityHeatmap

    heat = UnicityHeatmap()
    qtbot.addWidget(heat)
    low, high = _record("zip", "1h"), _record("district", "1h")
    low["by_p"][0].update(unicity=0.02, unicity_ci=[0.01, 0.04])
    high["by_p"][0].update(unicity=0.02, unicity_ci=[0.01, 0.08])  # same estimate, wider interval
    for record in (low, high):  # the other default criteria (issue #25), met by both
        record["by_p"][0].update(worst_share_at_1=0.03, worst_exact=True)
        record["kanon"] = {"k": 2, "share_below": {"2": 0.0}}
    heat.set_axes(["zip", "district"], ["1h"])
    heat.set_records([low, high])
    assert [t.toPlainText() for t in heat.texts] == ["2.0%", "2.0%"], "no criteria: values only"
    heat.set_criteria({"risk_measure": "unicity", "risk_p": 1, "ceiling": 0.05})
    assert heat.verdicts() == {"zip × 1h": True, "district × 1h": False}
    assert [t.toPlainText() for t in heat.texts] == ["2.0%\n✓ meets criteria", "2.0%\n✗ fails criteria"]
    assert "upper end of its 95 % interval" in heat.note.text()


def test_plots_show_levels_in_words_not_codes(window, qtbot):
    from privacy_studio.gui.panels.attacks_panel import metric_name

    records = [_record("grid:5", "all"), _record("raw", "1h")]
    unicity, heat = window.plots[0], window.heatmap
    unicity.set_records(records)
    unicity.flush()
    shown = [label.text for _, label in unicity.legend.items]
    assert shown == ["5 km squares × whole period", "raw × 1 hour"]
    heat.set_records(records)
    heat.flush()
    ticks = heat.plot.getAxis("left")._tickLevels[0]
    assert [text for _, text in ticks] == ["5 km squares", "raw"]
    combo = window.plots[-1].combo
    window.plots[-1].set_records(records)
    assert combo.itemText(0) == "5 km squares × whole period"
    assert "5 km squares" in combo.itemData(0, Qt.ItemDataRole.ToolTipRole)
    assert metric_name("top_5") == "right person among the 5 best guesses"
    assert window.attacks.profiling_request()["distance"] == "js"
    assert window.attacks.distance.currentText() == "Jensen-Shannon divergence"


def test_trade_off_names_measures_in_words_shows_risk_in_percent_and_labels_only_the_front(window, qtbot):
    from privacy_studio.core.risk.catalogue import RISK_FIELDS

    panel = window.tradeoff
    window.show_step("decide")
    for i, spatial in enumerate(("antenna", "zip", "district", "municipality")):
        record = _record(spatial, "1h")
        for entry in record["by_p"]:
            entry["unicity"] = 0.1 * entry["p"] / (i + 1) if spatial != "municipality" else 0.3
        window.session.add_result(ProfileResult.from_dict(record))
    qtbot.waitUntil(lambda: len(panel.results) == 4, timeout=3000)
    levels = ("antenna", "zip", "district", "municipality")
    panel.set_computed_utility({f"{s} × 1h": {"points_kept": 10.0 - 2 * i} for i, s in enumerate(levels)})
    qtbot.waitUntil(lambda: panel.analysis is not None, timeout=3000)
    assert panel.measure.currentText() == RISK_FIELDS["unicity"].label
    assert panel.choices()["risk_measure"] == "unicity"
    panel.set_choices({**panel.choices(), "risk_measure": "k_disclosure"})
    assert panel.choices()["risk_measure"] == "k_disclosure"
    panel.set_choices({**panel.choices(), "risk_measure": "unicity"})
    qtbot.waitUntil(lambda: panel.analysis is not None and panel.analysis.measure == "unicity", timeout=3000)
    risks = [panel.dominance.item(r, 1).text() for r in range(panel.dominance.rowCount())]
    assert risks and all(t.endswith("%") for t in risks if t != "—"), risks
    a = panel.analysis
    named = {t.toPlainText() for t in panel.point_labels}
    allowed = set(a.pareto.front) | ({a.recommendation.label} if a.recommendation.label else set())
    assert named <= {label_words(label) for label in allowed} and named  # in words, as the table
    assert "municipality × 1h" in a.labels and "municipality × 1h" not in allowed  # dominated: not named


def test_pareto_names_cover_no_other_name_point_or_the_front(window, qtbot):
    """Clustered front points (as 1h and 1w profiles a little apart in utility) get names placed in pixels,
    as in the report's figures: no two names overlap, none covers a point, all stay inside the plot; a
    resize places them again."""
    from itertools import combinations

    from PySide6.QtCore import QPointF

    panel = window.tradeoff
    window.show_step("decide")
    levels = ("antenna", "zip", "district", "municipality")
    for i, spatial in enumerate(levels):
        for width in ("1h", "1w"):
            record = _record(spatial, width)
            for entry in record["by_p"]:
                entry["unicity"] = max(0.02, 0.9 - 0.2 * i - (0.05 if width == "1w" else 0.0))
            window.session.add_result(ProfileResult.from_dict(record))
    qtbot.waitUntil(lambda: len(panel.results) == 8, timeout=3000)
    scores = {
        f"{s} × {w}": {"points_kept": 10.0 - 2 * i - (0.3 if w == "1w" else 0)}
        for i, s in enumerate(levels)
        for w in ("1h", "1w")
    }
    panel.set_computed_utility(scores)
    qtbot.waitUntil(lambda: panel.analysis is not None and len(panel.analysis.labels) == 8, timeout=3000)
    view = panel.pareto_plot.getViewBox()
    a = panel.analysis
    for size in ((900, 420), (600, 300)):
        panel.pareto_plot.resize(*size)
        qtbot.wait(200)
        rects = [label.sceneBoundingRect() for label in panel.point_labels]
        assert rects, "the front is named"
        for r, s in combinations(rects, 2):
            assert not r.intersects(s), (r, s)
        points = [view.mapViewToScene(QPointF(u, r)) for u, r in zip(a.utility, a.risk, strict=True)]
        for r in rects:
            assert view.sceneBoundingRect().contains(r)
            assert not any(r.contains(p) for p in points)


def _disclosure_record(spatial: str, temporal: str, scale: float) -> dict:
    record = _record(spatial, temporal)
    for entry in record["by_p"]:
        entry.update(k_disclosure=scale * entry["p"], em=0.01 * scale, kl=0.2 * scale)
    return record


class _PaintCounter(QObject):
    """Counts the paint events of the widget it filters."""

    def __init__(self) -> None:
        super().__init__()
        self.paints = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        self.paints += event.type() == QEvent.Type.Paint
        return False


def _until_paints_stop(qtbot, counter: _PaintCounter, quiet_ms: int = 300, limit_ms: int = 10_000) -> None:
    """Wait past the redraw timer until the view has painted and then not painted for ``quiet_ms``: on a
    loaded machine a fixed wait could end before a result's paints did, or cut them into the next count."""
    waited, seen = 0, -1
    while waited < limit_ms and not (waited >= REDRAW_WAIT_MS and counter.paints and counter.paints == seen):
        seen = counter.paints
        qtbot.wait(quiet_ms)
        waited += quiet_ms


def _paints_per_new_result(qtbot, settle: bool) -> list[int]:
    """Paints of a shown Disclosure plot's view after each of three results arriving one by one."""
    from privacy_studio.gui.plots.disclosure import DisclosurePlot

    plot = DisclosurePlot()
    qtbot.addWidget(plot)
    if not settle:
        plot.settle_views = lambda: None
    counter = _PaintCounter()
    plot.graphics.viewport().installEventFilter(counter)
    plot.redraw_only_when_shown()
    plot.resize(1200, 500)
    plot.show()
    qtbot.waitExposed(plot)
    cells = [("zip", "1h"), ("zip", "1w"), ("district", "1h"), ("district", "1w")]
    records = [_disclosure_record(s, t, 1 + i) for i, (s, t) in enumerate(cells)]
    counts = []
    for n in range(1, len(records) + 1):
        plot.set_records(records[:n])
        _until_paints_stop(qtbot, counter)
        counts.append(counter.paints)
        counter.paints = 0
    plot.graphics.viewport().removeEventFilter(counter)
    return counts[1:]  # the first includes the plot's first showing


def test_a_new_result_costs_one_paint_fewer(qtbot):
    """pyqtgraph fitted a view's auto range while painting, which moved the items and asked for another
    fit and another whole paint (each replaying every axis): the ranges are now fitted before the paint.
    A result that widens an axis's labels still costs the relayout's paints (pyqtgraph learns their size
    while painting)."""
    settled = _paints_per_new_result(qtbot, settle=True)
    before = _paints_per_new_result(qtbot, settle=False)
    assert settled[0] == 1, settled
    assert all(now < then for now, then in zip(settled, before, strict=True)), (settled, before)
