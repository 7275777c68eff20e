"""A profile selector for plots that show one profile at a time."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QWidget

from privacy_studio.gui.results import Record, profile_title, profile_tooltip


class ProfileCombo(QComboBox):
    """Lists the records' profiles, keeping the current choice while new results arrive."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Sized on the labels it holds, not when first shown (empty, which cut "zip × 6h" to "zip").
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)

    def update_records(self, records: list[Record]) -> None:
        current = self.currentText()
        labels = [profile_title(r) for r in records]
        if labels == [self.itemText(i) for i in range(self.count())]:
            return
        self.blockSignals(True)
        self.clear()
        for i, rec in enumerate(records):
            self.addItem(labels[i])
            self.setItemData(i, profile_tooltip(rec), Qt.ItemDataRole.ToolTipRole)
        if current in labels:
            self.setCurrentText(current)
        self.blockSignals(False)

    def chosen(self, records: list[Record]) -> Record | None:
        index = self.currentIndex()
        return records[index] if 0 <= index < len(records) else None
