"""File › Export release under pytest-qt: a preview before writing, then the file, manifest and record."""

from __future__ import annotations

import json
import re

import pyarrow.csv as pacsv


def _preview(dialog, qtbot):
    with qtbot.waitSignal(dialog.prepared_changed, timeout=120_000, check_params_cb=lambda p: p is not None):
        assert dialog.start_preview() is not None
    return dialog.prepared


def test_preview_shows_rows_counts_and_effect_then_writes(imported_window, qtbot, tmp_path):
    dialog = imported_window.export_release()
    dialog.profile.setCurrentText("district:1w")
    tick, value = dialog.thresholds["k_anonymity"]
    tick.setChecked(True)
    value.setValue(2)
    assert not dialog.write_button.isEnabled()  # nothing to write before a preview
    prepared = _preview(dialog, qtbot)
    # The first rows exactly as released: new 16-hex-digit pseudonyms, district ids, week starts.
    header = [dialog.preview_table.horizontalHeaderItem(j).text() for j in range(3)]
    assert header == ["user", "time", "location"] and dialog.preview_table.columnCount() == 3
    assert dialog.preview_table.rowCount() == min(20, prepared.rows.table.num_rows) > 0
    assert re.fullmatch(r"[0-9a-f]{16}", dialog.preview_table.item(0, 0).text())
    assert dialog.preview_table.item(0, 1).text().endswith("T00:00:00+01:00")
    # What k-anonymity removes, before writing: the table's row equals the prepared counts.
    removed = prepared.removed[0]
    cells = [dialog.removed_table.item(1, j).text() for j in range(dialog.removed_table.columnCount())]
    assert cells[:4] == [
        "removed: people whose whole trace is shared by fewer than 2 people dropped",
        f"{removed.people:,}",
        f"{removed.events:,}",
        f"{removed.points:,}",
    ]
    assert cells[4] == "0.0%"  # after this step no whole trace is unique
    assert cells[5].startswith(f"{100 * prepared.measured_after_step[0].unicity:.1f}%")
    assert removed.people == prepared.measured_before.class_sizes[1] > 0
    assert "0.0% released; smallest class k = 2" in dialog.figures.text()
    # Writing is the previewed release, read back and measured; the project keeps the record.
    out = tmp_path / "release.csv"
    dialog.out.setText(str(out))
    if not prepared.passes:  # the subset may fail the criteria: the reason is then typed in
        dialog.reason.setText("a test of the preview")
    with qtbot.waitSignal(dialog.released, timeout=120_000) as written:
        dialog.start_write()
    manifest = written.args[0]
    table = pacsv.read_csv(out)
    assert table.column("user").to_pylist()[:20] == [
        dialog.preview_table.item(i, 0).text() for i in range(20)
    ]
    stored = json.loads(out.with_name("release.csv.manifest.json").read_text())
    assert stored["release_sha256"] == manifest.release_sha256
    assert stored["measured_on_release"]["k"] == 2
    assert imported_window.session.project.analyses["release"]["release_sha256"] == manifest.release_sha256
    assert imported_window.session.dirty


def test_bad_choices_and_an_existing_file_are_one_sentence(imported_window, qtbot, tmp_path):
    dialog = imported_window.export_release()
    dialog.profile.setCurrentText("borough:1w")
    dialog.start_preview()
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=120_000)
    assert "unknown spatial level 'borough'" in dialog.problems.text()
    dialog.profile.setCurrentText("district")
    assert dialog.start_preview() is None and "SPATIAL:TEMPORAL" in dialog.problems.text()
    dialog.profile.setCurrentText("zip:1d")
    _preview(dialog, qtbot)
    existing = tmp_path / "r.csv"
    existing.write_text("keep\n")
    dialog.out.setText(str(existing))
    dialog.reason.setText("a test of the refusal")  # zip × 1d fails the criteria on this subset
    dialog.start_write()
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=120_000)
    assert "already exists" in dialog.problems.text() and existing.read_text() == "keep\n"
    dialog.overwrite.setChecked(True)
    dialog.centres.setChecked(True)  # a changed choice: the preview is stale, writing needs a new one
    assert not dialog.write_button.isEnabled() and dialog.start_write() is None


def test_cancelled_write_leaves_nothing(imported_window, qtbot, tmp_path):
    dialog = imported_window.export_release()
    dialog.profile.setCurrentText("district:1w")
    _preview(dialog, qtbot)
    dialog.out.setText(str(tmp_path / "r.parquet"))
    dialog.reason.setText("a test of cancelling")
    dialog.start_write().cancel()
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=120_000)
    assert "Cancelled" in dialog.problems.text()
    assert list(tmp_path.iterdir()) == []


def _with_results_and_no_passing_profile(window) -> None:
    """Risk results for two profiles and a ceiling nothing meets, so nothing is recommended."""
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.runner import run_grid

    session = window.session
    settings = RiskSettings(["district", "zip"], ["1w"], p_values=[4], measures=["unicity"], samples=200)
    dataset = session.dataset
    session.project.results = list(run_grid(dataset, settings, dataset.hierarchy))
    session.project.settings.update(spatial=["district", "zip"], temporal=["1w"], cells=None)
    session.project.tradeoff["ceiling"] = 0.0001


def test_without_a_passing_profile_it_starts_on_the_least_risky_and_needs_a_reason(
    imported_window, qtbot, tmp_path
):
    _with_results_and_no_passing_profile(imported_window)
    dialog = imported_window.export_release()
    c = dialog.candidates
    assert c.recommended is None and c.least_risky in ("district:1w", "zip:1w")
    assert dialog.profile.currentText() == c.least_risky
    assert "least risky" in dialog.start_note.text() and "#a33" in dialog.start_note.styleSheet()
    # without suppression (with k = 2 the file's unicity is exactly 0 since exact-where-cheap, and passes)
    prepared = _preview(dialog, qtbot)
    assert not prepared.passes and "fails the project's release criteria" in dialog.verdict.text()
    assert "#a33" in dialog.verdict.styleSheet()
    dialog.out.setText(str(tmp_path / "r.csv"))
    assert not dialog.write_button.isEnabled() and dialog.start_write() is None
    assert not (tmp_path / "r.csv").exists()
    dialog.reason.setText("shared under a data use agreement")
    assert dialog.write_button.isEnabled()
    with qtbot.waitSignal(dialog.released, timeout=120_000) as written:
        dialog.start_write()
    assert written.args[0].accepted_risk == "shared under a data use agreement"
    stored = json.loads((tmp_path / "r.csv.manifest.json").read_text())
    assert stored["accepted_risk"] == "shared under a data use agreement"


def test_a_damaged_earlier_release_record_is_one_sentence(imported_window, qtbot):
    """The release records are read when the preview starts (the project only checks their shape on open)."""
    history = {"version": 1, "releases": [{"kind": "rows", "record": {"format": "something else"}}]}
    imported_window.session.project.analyses["releases"] = history
    dialog = imported_window.export_release()
    dialog.profile.setCurrentText("district:1w")
    assert dialog.start_preview() is None and dialog.worker is None
    assert "releases.releases[0]: not a rows release record" in dialog.problems.text()


def test_the_release_step_says_a_damaged_record_is_damaged_not_absent(imported_window):
    imported_window.session.project.analyses["release"] = {"format": "something else"}
    imported_window._show_start_or_tabs()
    text = imported_window.release_page.last.text()
    assert "The stored release record could not be read" in text and "No release written yet" not in text


def visible_rows(table) -> int:
    """Rows of ``table`` wholly in sight without scrolling."""
    bottom = table.viewport().height()
    return sum(
        1
        for i in range(table.rowCount())
        if table.rowViewportPosition(i) >= 0 and table.rowViewportPosition(i) + table.rowHeight(i) <= bottom
    )


def test_at_1280_by_720_both_tables_use_the_height(imported_window, qtbot):
    """Issue #27: stacked under the choices, each table showed about two rows on a 1280×720 screen."""
    from privacy_studio.gui.screen_fit import on_screen

    dialog = imported_window.export_release()
    dialog.resize(*on_screen(*dialog.SIZE, 1280, 720))
    dialog.show()
    dialog.profile.setCurrentText("district:1w")
    for name in ("k_anonymity", "min_people_per_point"):
        dialog.thresholds[name][0].setChecked(True)
    _preview(dialog, qtbot)
    qtbot.wait(100)
    assert dialog.height() <= 720 * 0.92
    assert dialog.removed_table.rowCount() == 5
    assert visible_rows(dialog.removed_table) == 5, "every step's effect in sight"
    assert visible_rows(dialog.preview_table) >= 6
    dialog.close()
