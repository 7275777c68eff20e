"""The import dialog's options: detected columns offered, overrides and bad settings reported plainly."""

from __future__ import annotations

import itertools
import os
import time

import pytest

from privacy_studio.gui.dialogs import import_dialog
from privacy_studio.gui.dialogs.import_dialog import AUTO, READING, ImportDialog, in_dialog_terms


def _previewed(qtbot, dialog: ImportDialog) -> ImportDialog:
    """The dialog once its preview worker has delivered (the preview never runs on the GUI thread)."""
    qtbot.waitUntil(lambda: not dialog.preview_running, timeout=30_000)
    return dialog


def test_columns_are_offered_and_overrides_become_the_mapping(window, qtbot, sample_subset):
    dialog = _previewed(qtbot, ImportDialog(window.runner, window, str(sample_subset["events"])))
    user_box = dialog.role_boxes["user"]
    offered = [user_box.itemText(i) for i in range(1, user_box.count())]
    assert offered == ["user", "time", "location", "x_km", "y_km", "lat", "lon"]
    assert user_box.itemText(0) == f"{AUTO} → user"
    assert dialog.options().mapping == {}
    dialog.role_boxes["location"].setCurrentText("location")
    assert dialog.options().mapping == {"location": "location"}
    header = [
        dialog.parsed_table.horizontalHeaderItem(j).text() for j in range(dialog.parsed_table.columnCount())
    ]
    assert "user" in header and dialog.parsed_table.rowCount() > 0


def test_unknown_time_zone_is_reported_and_nothing_starts(window, qtbot, sample_subset):
    dialog = _previewed(qtbot, ImportDialog(window.runner, window, str(sample_subset["events"])))
    dialog.tz.setText("Mars/Olympus")
    assert dialog.start_import() is None
    assert "unknown time zone" in dialog.problems.text()
    assert not window.runner.active


def test_date_order_choice_reaches_the_reader_options(window, sample_subset):
    dialog = ImportDialog(window.runner, window, str(sample_subset["events"]))
    dialog.date_order.setCurrentIndex(1)
    assert (dialog.options().dayfirst, dialog.options().monthfirst) == (True, False)
    dialog.date_order.setCurrentIndex(2)
    assert (dialog.options().dayfirst, dialog.options().monthfirst) == (False, True)


def _headerless_copy(tmp_path, sample_subset, n_lines=60):
    """The first rows of the sample subset without its header line, columns user,time,location."""
    lines = sample_subset["events"].read_text(encoding="utf-8").splitlines()
    path = tmp_path / "no_header.csv"
    path.write_text("\n".join(",".join(ln.split(",")[:3]) for ln in lines[1:n_lines]) + "\n")
    return path, {ln.split(",")[0] for ln in lines[1:n_lines]}


def test_headerless_file_is_imported_with_roles_chosen_in_the_boxes(window, qtbot, sample_subset, tmp_path):
    path, users = _headerless_copy(tmp_path, sample_subset)
    dialog = _previewed(qtbot, ImportDialog(window.runner, window, str(path)))
    assert 'untick "first row holds column names"' in dialog.problems.text()
    assert "--" not in dialog.problems.text(), "the dialog must not point at command-line flags"
    dialog.header.setChecked(False)
    dialog.update_preview()
    _previewed(qtbot, dialog)
    assert "choose under Columns" in dialog.problems.text()
    for role, column in (("user", "column 1"), ("time", "column 2"), ("location", "column 3")):
        dialog.role_boxes[role].setCurrentText(column)
    options = dialog.options()
    assert (options.header, options.columns, options.mapping) == (False, ["user", "time", "location"], {})
    dialog.update_preview()
    _previewed(qtbot, dialog)
    assert dialog.parsed_table.rowCount() > 0
    dialog.antennas.edit.setText(str(sample_subset["antennas"]))
    with qtbot.waitSignal(dialog.imported, timeout=60_000) as imported:
        dialog.start_import()
    dataset = imported.args[0]
    assert set(dataset.events.user_ids) == users and dataset.report.rows_kept == len(dataset.events.user)


def test_reader_hints_name_the_dialog_controls_not_command_line_flags():
    hints = (
        "the first line ('0', '2010') looks like data, not a header; "
        "pass --no-header --columns user,time,... naming each column's role",
        "--no-header needs --columns naming each column's role, e.g. user,time,lat,lon,location",
        "no time column (or --map time=COLUMN); columns: a, b",
        "every date could be either; pass --dayfirst (dd/mm/yyyy) or --monthfirst (mm/dd/yyyy)",
    )
    for hint in hints:
        assert "--" not in in_dialog_terms(hint), hint
    assert "choose the time column under Columns" in in_dialog_terms(hints[2])


def test_a_slow_preview_keeps_the_window_responsive_and_gives_up_with_a_sentence(
    window, qtbot, sample_subset, monkeypatch
):
    real_read = import_dialog.read_preview

    def slow_read(*args, **kwargs):
        time.sleep(3.0)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(import_dialog, "read_preview", slow_read)
    monkeypatch.setattr(import_dialog, "PREVIEW_TIMEOUT_S", 0.5)
    dialog = ImportDialog(window.runner, window, str(sample_subset["events"]))
    assert dialog.problems.text() == READING and dialog.preview_running
    ticks = []
    window.startTimer(20)  # the event loop keeps serving timers while the file is read
    window.timerEvent = lambda _event: ticks.append(time.monotonic())
    qtbot.waitUntil(lambda: not dialog.preview_running, timeout=5_000)
    assert "Gave up reading the first rows after 0.5 s" in dialog.problems.text()
    assert len(ticks) >= 10 and max(b - a for a, b in itertools.pairwise(ticks)) < 0.3
    assert dialog.raw_table.rowCount() == 0
    qtbot.wait(3_000)  # the slow read returns after the timeout: its late rows must not be shown
    assert dialog.raw_table.rowCount() == 0 and "Gave up" in dialog.problems.text()


def test_a_newer_preview_replaces_the_running_one(window, qtbot, sample_subset, tmp_path, monkeypatch):
    real_read = import_dialog.read_preview
    other = tmp_path / "other.csv"
    other.write_text("user,time,location\nu1,2024-01-01 08:00,A\n")

    def read(path, *args, **kwargs):
        if path != str(other):
            time.sleep(1.0)
        return real_read(path, *args, **kwargs)

    monkeypatch.setattr(import_dialog, "read_preview", read)
    dialog = ImportDialog(window.runner, window, str(sample_subset["events"]))
    first = dialog.preview_worker
    dialog.set_source(str(other))
    assert first.is_cancelled and dialog.preview_worker is not first
    _previewed(qtbot, dialog)
    qtbot.wait(1_500)  # the first, slower read has returned by now and must have been ignored
    assert dialog.raw_table.rowCount() == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_is_refused_in_one_sentence(window, qtbot, tmp_path):
    fifo = tmp_path / "events.csv"
    os.mkfifo(fifo)
    dialog = _previewed(qtbot, ImportDialog(window.runner, window, str(fifo)))
    text = dialog.problems.text()
    assert "\n" not in text and "Traceback" not in text and text != READING
    assert "pipe" in text.lower() or "fifo" in text.lower() or "not a regular file" in text.lower()
