"""The real flows, driven through the widgets: import, tick cells, run, plots = core numbers, save, reopen."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from privacy_studio.core.engines import numba_engine
from privacy_studio.core.project import jsonable, sha256_of
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.core.user_keys import keyed_results
from privacy_studio.gui.main_window import MainWindow
from privacy_studio.gui.results import by_p, profile_label, records_of, series
from tests.gui.project_files import open_and_wait, save_and_wait

CELLS = (("district", "1w"), ("zip", "6h"), ("antenna", "1h"))
P_VALUES = (1, 3)
RUN_TIMEOUT = 180_000


def tick_cells(window: MainWindow, cells=CELLS) -> dict:
    """Tick ``cells`` in the grid panel with small run parameters; return the panel's settings."""
    grid = window.grid
    grid.set_all(False)
    for spatial, temporal in cells:
        grid.set_checked(spatial, temporal)
    grid.p_values.line.setText(f"{P_VALUES[0]}-{P_VALUES[-1]}")
    grid.samples.setValue(200)
    grid.seed.setValue(7)
    grid.reference_p.setValue(P_VALUES[-1])
    return grid.settings()


def run_and_wait(qtbot, window: MainWindow, settings: dict) -> None:
    worker = window.start_run(settings)
    assert worker is not None
    qtbot.waitUntil(lambda: window.run_worker is None, timeout=RUN_TIMEOUT)
    errors = [text for level, text in window.log_panel.lines if level == "error"]
    assert not errors
    finished = f"Run finished: {len(settings['cells'])} profiles"
    assert any(finished in text for _, text in window.log_panel.lines), "the log counts the profiles run"


def expected_records(window: MainWindow, settings: dict) -> list[dict]:
    """What the core computes for the same data and settings, called directly."""
    return [r.to_dict() for r in run_grid(window.session.dataset, RiskSettings.from_dict(settings))]


def without_timings(records: list[dict]) -> list[dict]:
    """Records minus the stage timings, the only part that differs between two identical runs."""
    return [{k: v for k, v in r.items() if k != "timings"} for r in records]


def plotted_state(window: MainWindow) -> dict:
    """Everything the plots and the table currently show, as plain numbers."""
    unicity, heat, disclosure, histogram, sparsity, loc_map = window.plots
    out = {"curves": {}, "table": []}
    for label, curve in unicity.curves.items():
        xs, ys = curve.line.getData()
        out["curves"][label] = (list(xs), list(ys))
    heat.p_box.setValue(P_VALUES[-1])
    out["heat"] = np.nan_to_num(heat.matrix()[2], nan=-1.0).tolist()
    disclosure.p_box.setValue(P_VALUES[-1])
    out["disclosure"] = [disclosure.values(k) for k in ("k_disclosure", "em", "kl")]
    out["histogram"] = [a.tolist() for a in histogram.histogram()]
    out["map"] = loc_map.data_table()[1]
    out["sparsity"] = sparsity.data_table()[1]
    for i in range(window.results_table.rowCount()):
        out["table"].append(window.results_table.cell_value(i, "unicity"))
    return out


def test_import_run_plots_match_core_then_save_and_reopen(imported_window, qtbot, tmp_path, qsettings):
    win = imported_window
    dialog = win.import_dialog
    assert dialog.raw_table.rowCount() > 0 and dialog.parsed_table.rowCount() > 0
    assert "rows read" in dialog.report.toPlainText()
    assert win.session.dataset.events.n_users == 200
    assert win.session.project.import_report["rows_kept"] == win.session.dataset.events.n_events
    assert win.session.project.events_source().sha256 == sha256_of(win.session.project.events_source().path)
    assert (win.summary.counts * win.summary.people).sum() == win.session.dataset.events.n_events
    assert {"antenna", "zip", "district"} <= set(win.grid.spatial_levels())

    settings = tick_cells(win)
    run_and_wait(qtbot, win, settings)
    expected = expected_records(win, settings)
    records = records_of(win.session.project.results)
    assert [(r["spatial"], r["temporal"]) for r in records] == [tuple(c) for c in settings["cells"]]
    assert sorted(map(tuple, settings["cells"])) == sorted(CELLS)
    assert without_timings(records) == without_timings(expected)

    unicity, heat, disclosure, histogram, _sparsity, loc_map = win.plots
    for rec in expected:
        xs, ys = unicity.curves[profile_label(rec)].line.getData()
        ps, values = series(rec, "unicity")
        np.testing.assert_allclose(xs, ps)
        np.testing.assert_allclose(ys, values)
        low, high = (
            unicity.curves[profile_label(rec)].low.getData()[1],
            unicity.curves[profile_label(rec)].high.getData()[1],
        )
        np.testing.assert_allclose(low, [by_p(rec, int(p))["unicity_ci"][0] for p in ps])
        np.testing.assert_allclose(high, [by_p(rec, int(p))["unicity_ci"][1] for p in ps])
    heat.p_box.setValue(P_VALUES[-1])
    spatial, temporal, matrix = heat.matrix()
    for rec in expected:
        cell = matrix[spatial.index(rec["spatial"]), temporal.index(rec["temporal"])]
        assert cell == pytest.approx(by_p(rec, P_VALUES[-1])["unicity"])
    assert np.isnan(matrix).sum() == matrix.size - len(expected)
    disclosure.p_box.setValue(P_VALUES[0])
    assert disclosure.values("em") == pytest.approx([by_p(r, P_VALUES[0])["em"] for r in expected])
    assert disclosure.values("k_disclosure") == pytest.approx(
        [by_p(r, P_VALUES[0])["k_disclosure"] for r in expected]
    )
    counts, _ = histogram.histogram()
    assert counts.sum() == sum(v is not None for v in expected[0]["per_user"]["em"])
    assert loc_map.data_table()[1], "the map shows the units of the chosen profile"
    assert win.results_table.rowCount() == len(expected) * (P_VALUES[-1] - P_VALUES[0] + 1)
    assert win.session.dirty

    path = tmp_path / "flow.psproj"
    assert save_and_wait(qtbot, win, path)
    assert not win.session.dirty
    assert str(path.resolve()) in win.recent_files()
    shown = plotted_state(win)

    other = MainWindow(qsettings)
    qtbot.addWidget(other)
    assert open_and_wait(qtbot, other, path)
    qtbot.waitUntil(lambda: other.session.dataset is not None, timeout=120_000)
    # Saved per-user results name users by salted keys, never by their ids (issue #24).
    salt = other.session.project.analyses["user_keys"]["salt"]
    assert records_of(other.session.project.results) == keyed_results(jsonable(records), salt)
    assert other.grid.settings() == settings
    assert plotted_state(other) == shown
    assert not other.session.dirty
    other.runner.wait(60_000)


def test_cancel_mid_run_keeps_finished_profiles(imported_window, qtbot, monkeypatch):
    """Cancel after the first profile: it stays, nothing half-done is added, the window is usable again."""
    win = imported_window
    release = threading.Event()

    def one_at_a_time(*args, **kwargs):
        for item in run_grid(*args, **kwargs):
            yield item
            release.wait(30)

    monkeypatch.setattr(numba_engine, "run_grid", one_at_a_time)  # the window runs through the engine API
    settings = tick_cells(win)
    worker = win.start_run(settings)

    def first_profile(_result):
        win.cancel_run()
        release.set()

    worker.signals.partial.connect(first_profile)
    with qtbot.waitSignal(worker.signals.cancelled, timeout=RUN_TIMEOUT):
        pass
    qtbot.waitUntil(lambda: win.run_worker is None)
    results = records_of(win.session.project.results)
    assert len(results) == 1
    assert [e["p"] for e in results[0]["by_p"]] == list(range(P_VALUES[0], P_VALUES[-1] + 1))
    assert win.session.project.settings == settings
    kept = "cancelled: the 1 profiles finished before are kept"
    assert any(kept in text for _, text in win.log_panel.lines)
    assert win.grid.run_button.isEnabled()


def test_missing_input_is_relocated_on_open(imported_window, qtbot, tmp_path, qsettings, monkeypatch):
    win = imported_window
    path = tmp_path / "moved.psproj"
    assert save_and_wait(qtbot, win, path)
    source = win.session.project.events_source()
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    for key in ("antennas", "hierarchy"):
        shutil.copy(source.reader[key], moved)
    shutil.copy(source.path, moved / "events.csv")
    saved = json.loads(path.read_text())
    saved["sources"][0]["path"] = "gone/events.csv"
    path.write_text(json.dumps(saved))
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(moved / "events.csv"), ""))

    other = MainWindow(qsettings)
    qtbot.addWidget(other)
    assert open_and_wait(qtbot, other, path)
    assert other.session.project.events_source().path == str(moved / "events.csv")
    assert other.session.dirty, "a relocated input is an unsaved change"
    qtbot.waitUntil(lambda: other.session.dataset is not None, timeout=120_000)
    other.session.set_dirty(False)
    other.runner.wait(60_000)


def test_unsaved_changes_are_asked_about_on_close(window, monkeypatch):
    window.session.set_settings({"spatial": ["zip"], "temporal": ["1h"]})
    assert window.session.dirty and window.isWindowModified()
    answers = iter([QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Discard])
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: next(answers))
    assert not window.close()
    assert window.isVisible()
    assert window.close()


def test_corrupted_project_gives_one_clear_message(window, qtbot, tmp_path, warnings_shown):
    shown = warnings_shown
    bad = tmp_path / "broken.psproj"
    bad.write_text('{"format": "privacy-studio-project", "schema_version": 1, "name": ')
    assert not open_and_wait(qtbot, window, bad)
    assert len(shown) == 1 and "truncated" in shown[0]
    assert window.session.project.path is None


def test_every_plot_exports_png_svg_and_csv(imported_window, qtbot, tmp_path):
    win = imported_window
    run_and_wait(qtbot, win, tick_cells(win, CELLS[:1]))
    for i, plot in enumerate(win.plots):
        for suffix in ("png", "svg", "csv"):
            out = plot.export(tmp_path / f"plot{i}.{suffix}")
            assert out.stat().st_size > 0
        header, rows = plot.data_table()
        lines = (tmp_path / f"plot{i}.csv").read_text().splitlines()
        assert lines[0].split(",") == header
        assert len(lines) == len(rows) + 1
    with pytest.raises(ValueError, match="cannot export"):
        win.plots[0].export(tmp_path / "plot.bmp")


def test_bad_file_import_reports_a_readable_message(window, qtbot, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("user,time,location\nu1,not a date,A1\n")
    dialog = window.show_import(str(bad))
    worker = dialog.start_import()  # it may end before a signal connected now would see it: ask the runner
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=60_000)
    assert dialog.report.toPlainText().startswith("Import failed:")
    assert "Traceback" not in dialog.report.toPlainText()
    assert window.session.dataset is None


def test_about_lists_versions_and_help_explains_measures(window):
    text = window.about_text()
    assert "numba" in text and "PySide6" in text
    window.show_help()
    assert window.help_dock.isVisible()
    assert "does not mean" in window.help_panel.toPlainText()


def test_warm_up_compiles_the_kernels_in_the_background(window, qtbot):
    from privacy_studio.core.warmup import STEPS

    worker = window.warm_up()
    with qtbot.waitSignal(worker.signals.finished, timeout=RUN_TIMEOUT) as blocker:
        pass
    assert {step.name for step in STEPS} <= set(blocker.args[0])


def test_sample_project_opens_with_its_data_and_grid(window, qtbot, warnings_shown):
    sample = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"
    if not sample.exists():
        pytest.skip("sample_data/sample.psproj is missing")
    assert open_and_wait(qtbot, window, sample)
    qtbot.waitUntil(lambda: window.session.dataset is not None, timeout=120_000)
    settings = window.session.project.settings
    assert window.grid.spatial_levels() == settings["spatial"]
    assert window.grid.temporal_levels() == settings["temporal"]
    assert len(window.grid.checked_cells()) == len(settings["spatial"]) * len(settings["temporal"])
    assert (window.summary.counts * window.summary.people).sum() == window.session.dataset.events.n_events
    assert warnings_shown == []
    assert not window.session.dirty


def test_report_is_exported_from_the_window(imported_window, qtbot, tmp_path, monkeypatch, warnings_shown):
    win = imported_window
    run_and_wait(qtbot, win, tick_cells(win, CELLS[:1]))
    target = tmp_path / "report.pdf"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    worker = win.export_report()  # in a worker: the window keeps painting while the PDF is made
    assert worker is not None and worker.name == "report"
    with qtbot.waitSignal(worker.signals.done, timeout=120_000):
        pass
    assert warnings_shown == []
    assert target.read_bytes().startswith(b"%PDF")
    assert any(f"Report written to {target}" in text for _level, text in win.log_panel.lines)
    before = target.read_bytes()
    worker = win.export_report()
    worker.cancel()  # a cancelled export keeps the earlier file as it was
    with qtbot.waitSignal(worker.signals.done, timeout=120_000):
        pass
    assert target.read_bytes() == before
    assert any("Report export cancelled" in text for _level, text in win.log_panel.lines)


def test_input_changed_since_saving_is_flagged_on_open(imported_window, qtbot, tmp_path, qsettings):
    path = tmp_path / "changed.psproj"
    assert save_and_wait(qtbot, imported_window, path)
    saved = json.loads(path.read_text())
    saved["sources"][0]["sha256"] = "0" * 64
    path.write_text(json.dumps(saved))
    other = MainWindow(qsettings)
    qtbot.addWidget(other)
    assert open_and_wait(qtbot, other, path)
    qtbot.waitUntil(lambda: other.session.dataset is not None, timeout=120_000)
    warnings = [text for level, text in other.log_panel.lines if level == "warning"]
    assert any("changed since the project was saved" in text for text in warnings)
    other.runner.wait(60_000)


def test_a_run_stores_the_computed_information_loss_and_profile_sizes(imported_window, qtbot):
    from privacy_studio.core.analyses import ComputedUtility, ProfileSizes

    win = imported_window
    run_and_wait(qtbot, win, tick_cells(win))
    qtbot.waitUntil(lambda: win.session.project.analysis(ComputedUtility) is not None, timeout=120_000)
    stored = win.session.project.analysis(ComputedUtility)
    labels = {r.label for r in win.session.project.results}
    assert set(stored.scores) | set(stored.problems) == labels and stored.scores
    sizes = win.session.project.analysis(ProfileSizes)
    assert sizes is not None and sizes.unit_areas["district"] > 0
    win.runner.wait(60_000)


def test_every_panel_uses_the_window_task_runner_and_close_cancels_them(window, qtbot, monkeypatch):
    """One task owner: the analysis panels start their tasks in the window's runner, so every task shows in
    the status bar and closing the window cancels it."""
    import threading

    from privacy_studio.gui.workers import Worker

    for panel in (window.tradeoff, window.attacks, window.anonymizability):
        assert panel.runner is window.runner
    release = threading.Event()

    def waits(control):
        while not release.wait(0.01):
            control.report(0.5, "waiting")

    worker = Worker(waits, name="population extrapolation")
    cancelled = []
    worker.signals.cancelled.connect(cancelled.append)
    window.tradeoff.runner.start(worker, kind="population extrapolation")
    assert window.status_worker is worker
    monkeypatch.setattr(window, "maybe_save", lambda: True)
    window.close()
    assert worker.is_cancelled
    qtbot.waitUntil(lambda: cancelled == [[]], timeout=10_000)
    release.set()
