"""The import dialog's options: detected columns offered, overrides and bad settings reported plainly."""

from __future__ import annotations

from privacy_studio.gui.dialogs.import_dialog import AUTO, ImportDialog


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
