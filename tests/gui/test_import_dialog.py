"""The import dialog's options: detected columns offered, overrides and bad settings reported plainly."""

from __future__ import annotations

from privacy_studio.gui.dialogs.import_dialog import AUTO, ImportDialog, in_dialog_terms


def test_columns_are_offered_and_overrides_become_the_mapping(window, sample_subset):
    dialog = ImportDialog(window.runner, window, str(sample_subset["events"]))
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


def test_unknown_time_zone_is_reported_and_nothing_starts(window, sample_subset):
    dialog = ImportDialog(window.runner, window, str(sample_subset["events"]))
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
    dialog = ImportDialog(window.runner, window, str(path))
    assert 'untick "first row holds column names"' in dialog.problems.text()
    assert "--" not in dialog.problems.text(), "the dialog must not point at command-line flags"
    dialog.header.setChecked(False)
    dialog.update_preview()
    assert "choose under Columns" in dialog.problems.text()
    for role, column in (("user", "column 1"), ("time", "column 2"), ("location", "column 3")):
        dialog.role_boxes[role].setCurrentText(column)
    options = dialog.options()
    assert (options.header, options.columns, options.mapping) == (False, ["user", "time", "location"], {})
    dialog.update_preview()
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
