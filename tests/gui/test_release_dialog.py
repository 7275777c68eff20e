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
    header = [dialog.preview_table.horizontalHeaderItem(j).text() for j in range(4)]
    assert header == ["user", "time", "location", "count"]
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
    dialog.start_write().cancel()
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=120_000)
    assert "Cancelled" in dialog.problems.text()
    assert list(tmp_path.iterdir()) == []
