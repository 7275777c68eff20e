"""The Grid tab's attribute-disclosure box: the user-attributes file, the sensitive columns, l and t."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QWidget,
)

from privacy_studio.gui import help as measure_help


class AttributeBox(QGroupBox):
    """Chooses the sensitive attributes; ``file_chosen`` carries a new attributes file's path, ``edited``
    any change of the columns, l or t (the keys of ``RiskSettings``)."""

    file_chosen = Signal(str)
    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Attribute disclosure", parent)
        self.setToolTip(measure_help.tooltip("attribute_disclosure"))
        self.file_label = QLabel("No user-attributes file")
        self.file_label.setWordWrap(True)
        choose = QPushButton("User attributes…")
        choose.setToolTip("A CSV with a user id column and attributes (gender, age band, income band …)")
        choose.clicked.connect(self._ask_file)
        self.columns = QListWidget()
        self.columns.setMaximumHeight(90)
        self.columns.setToolTip(
            "Tick the sensitive attributes: for each, the share of people whose class has one value, "
            "fewer than l values, or a mix farther than t from the whole file's."
        )
        self.l_div = QSpinBox()
        self.l_div.setRange(2, 1000)
        self.l_div.setValue(3)
        self.l_div.setToolTip("l-diversity: people in classes with fewer than l values are counted")
        self.t_close = QDoubleSpinBox()
        self.t_close.setRange(0.01, 0.99)
        self.t_close.setSingleStep(0.05)
        self.t_close.setValue(0.2)
        self.t_close.setToolTip("t-closeness: people in classes farther than t from the file are counted")
        self.ordered: list[str] = []  # columns a project says are ordered bands (else detected)
        form = QFormLayout(self)
        form.addRow(self.file_label, choose)
        form.addRow("Sensitive", self.columns)
        form.addRow("l of l-diversity", self.l_div)
        form.addRow("t of t-closeness", self.t_close)
        self.columns.itemChanged.connect(lambda _item: self.edited.emit())
        self.l_div.valueChanged.connect(lambda _v: self.edited.emit())
        self.t_close.valueChanged.connect(lambda _v: self.edited.emit())

    def set_file(self, path: str | None, columns: list[str]) -> None:
        """Show the attributes file and offer its columns (ticks kept for columns it still has)."""
        chosen = set(self.sensitive())
        self.file_label.setText(path or "No user-attributes file")
        self.columns.blockSignals(True)
        self.columns.clear()
        for column in columns:
            item = QListWidgetItem(column)
            item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            item.setCheckState(Qt.CheckState.Checked if column in chosen else Qt.CheckState.Unchecked)
            self.columns.addItem(item)
        self.columns.blockSignals(False)

    def sensitive(self) -> list[str]:
        items = [self.columns.item(i) for i in range(self.columns.count())]
        return [i.text() for i in items if i.checkState() == Qt.CheckState.Checked]

    def settings(self) -> dict[str, Any]:
        """The attribute-disclosure keys of ``RiskSettings``."""
        sensitive = self.sensitive()
        return {
            "sensitive": sensitive,
            "ordered": [c for c in self.ordered if c in sensitive],
            "l_diversity": self.l_div.value(),
            "t_closeness": round(self.t_close.value(), 4),
        }

    def apply_settings(self, settings: dict[str, Any]) -> None:
        """Show saved settings; columns not offered yet are added (the file may be read later)."""
        self.blockSignals(True)
        sensitive = [str(c) for c in settings.get("sensitive") or []]
        offered = [self.columns.item(i).text() for i in range(self.columns.count())]
        self.columns.clear()
        for column in [*offered, *(c for c in sensitive if c not in offered)]:
            item = QListWidgetItem(column)
            item.setFlags(Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled)
            item.setCheckState(Qt.CheckState.Checked if column in sensitive else Qt.CheckState.Unchecked)
            self.columns.addItem(item)
        self.ordered = [str(c) for c in settings.get("ordered") or []]
        self.l_div.setValue(int(settings.get("l_diversity", self.l_div.value())))
        self.t_close.setValue(float(settings.get("t_closeness", self.t_close.value())))
        self.blockSignals(False)

    def _ask_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "User attributes", "", "CSV (*.csv *.txt);;All files (*)")
        if path:
            self.file_chosen.emit(path)
