"""File › Export aggregate under pytest-qt: a preview in a worker, then the file, manifest and record."""

from __future__ import annotations

import csv
import json

from privacy_studio.core.aggregate.manifest import aggregate_releases


def _preview(dialog, qtbot):
    with qtbot.waitSignal(dialog.prepared_changed, timeout=120_000, check_params_cb=lambda p: p is not None):
        assert dialog.start_preview() is not None
    return dialog.prepared


def test_preview_then_write_the_full_grid_and_record_it(imported_window, qtbot, tmp_path):
    dialog = imported_window.export_aggregate()
    dialog.profile.setCurrentText("district:1w")
    dialog.epsilon.setValue(1.0)
    dialog.bound.setValue(5)
    assert not dialog.write_button.isEnabled()  # nothing to write before a preview
    prepared = _preview(dialog, qtbot)
    header = [dialog.preview_table.horizontalHeaderItem(j).text() for j in range(3)]
    assert header == ["time", "location", "people"]
    assert dialog.preview_table.rowCount() == min(20, prepared.grid.n_cells)
    m = prepared.mechanism
    assert m.scale == 5.0 and f"within ±{m.error_bound_95}" in dialog.figures.text()
    assert (
        f"cuts {prepared.figures.people_cut:,} of {prepared.figures.people:,} people" in dialog.figures.text()
    )
    out = tmp_path / "density.csv"
    dialog.out.setText(str(out))
    with qtbot.waitSignal(dialog.written, timeout=120_000) as written:
        dialog.start_write()
    manifest = written.args[0]
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == prepared.grid.n_cells == manifest.rows
    assert [r["people"] for r in rows[:20]] == [dialog.preview_table.item(i, 2).text() for i in range(20)]
    stored = json.loads(out.with_name("density.csv.manifest.json").read_text())
    assert stored["sha256"] == manifest.sha256 and stored["options"]["max_points_per_person"] == 5
    records = aggregate_releases(imported_window.session.project.analyses)
    assert [r.sha256 for r in records] == [manifest.sha256]
    assert imported_window.session.dirty
    assert dialog.spent.text() == "no aggregate of these people was written before"
    again = imported_window.export_aggregate()
    assert again.spent.text().startswith("1 aggregate of these people spends ε = 1, δ = 0")
    again.close()
    # The Trade-off panel's Aggregates tab places it beside the microdata candidates
    tab = imported_window.tradeoff.aggregates
    assert tab.table.rowCount() == 1 and tab.table.item(0, 0).text() == "density.csv (ε = 1)"
    header = [tab.table.horizontalHeaderItem(j).text() for j in range(tab.table.columnCount())]
    assert header[4:] == [
        "vs the finest profile",
        "microdata at the same profile",
        "recommended microdata profile",
    ]


def test_bad_choices_are_one_sentence_and_a_changed_choice_needs_a_new_preview(
    imported_window, qtbot, tmp_path
):
    dialog = imported_window.export_aggregate()
    dialog.profile.setCurrentText("district:1w")
    dialog.delta.setText("1")
    assert (
        dialog.start_preview() is None
        and "δ (--delta) must be at least 0 and below 1" in dialog.problems.text()
    )
    dialog.delta.setText("x")
    assert dialog.start_preview() is None and "δ must be a number" in dialog.problems.text()
    dialog.delta.setText("1e-6")
    dialog.kind.setCurrentIndex(1)  # origin-destination
    _preview(dialog, qtbot)
    assert dialog.preview_table.horizontalHeaderItem(2).text() == "destination"
    assert "discrete Gaussian" in dialog.figures.text()
    dialog.bound.setValue(3)
    assert not dialog.write_button.isEnabled() and dialog.start_write() is None
    assert "Preview the aggregate first" in dialog.problems.text()
