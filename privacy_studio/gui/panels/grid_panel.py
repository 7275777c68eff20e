"""The granularity grid: spatial levels x time widths as checkable cells, plus the run parameters."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.generalize import SpatialLevel, TemporalLevel
from privacy_studio.core.risk.catalogue import CATALOGUE, canonical
from privacy_studio.gui import help as measure_help
from privacy_studio.gui.panels.attribute_box import AttributeBox
from privacy_studio.gui.panels.engine_box import EngineBox
from privacy_studio.gui.panels.p_field import PValuesField
from privacy_studio.gui.panels.price_row import PriceRow

DEFAULT_TEMPORAL = ("1h", "6h", "12h", "1w")
KNOWLEDGE = (
    ("uniform", "uniform: p random points of the person"),
    ("activity", "activity: points where the person is most active"),
    ("top", "top locations: the p most visited places"),
    ("records", "records: p visits, repeats counted (scikit-mobility LocationAttack)"),
    ("sequence", "sequence: p visits in their order (LocationSequenceAttack)"),
    ("frequency", "frequency: p places with visit counts ± tolerance"),
    ("proportion", "proportion: p places with visit shares ± tolerance"),
    ("homework", "home/work: the two most visited places"),
)
WITH_TOLERANCE = ("frequency", "proportion")
SHORT_TRACES = (
    ("exclude", "left out (counted)"),
    ("all-points", "evaluated on all their points"),
)


def _spin(low: int, high: int, value: int, tip: str = "") -> QSpinBox:
    """A whole-number box from ``low`` to ``high`` showing ``value``, with its tooltip."""
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    if tip:
        box.setToolTip(tip)
    return box


class GridPanel(QWidget):
    """Edits the grid and parameters; ``run_requested`` carries the settings dict for ``RiskSettings``."""

    run_requested = Signal(dict)
    settings_edited = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Compute the ticked cells in the background (Ctrl+R)")
        self.run_button.clicked.connect(self._request_run)
        self.attribute_box = AttributeBox()
        self.attribute_box.edited.connect(self._emit_edited)
        self.engine_box = EngineBox()
        # Two columns (the grid and its levels; the attacker model, measures and Run) fill a wide window.
        layout = QVBoxLayout()
        layout.addLayout(self._parameter_form())
        layout.addWidget(self._measure_group())
        layout.addWidget(self.attribute_box)
        layout.addWidget(self.engine_box)
        layout.addWidget(self.run_button)
        layout.addStretch(1)
        columns = QHBoxLayout(self)
        columns.addLayout(self._grid_column(), 1)
        columns.addLayout(layout, 1)
        self._connect_edits()
        self._enable_model_options()

    def _grid_column(self) -> QVBoxLayout:
        """The grid table, the amount choices, the boxes adding a level or a width, and the messages."""
        self.table = QTableWidget(0, 0)
        self.table.setToolTip("Tick the cells (spatial level x time width) to evaluate.")
        self.table.setMinimumHeight(170)
        self.table.horizontalHeader().setDefaultSectionSize(58)
        self.table.itemChanged.connect(self._emit_edited)
        self.message = QLabel("")
        self.message.setStyleSheet("color: #b00020")
        self.message.setWordWrap(True)
        self.prices = PriceRow()
        self.prices.edited.connect(self._emit_edited)
        self.prices.add_button.clicked.connect(lambda: self.message.setText(self.prices.message))
        column = QVBoxLayout()
        column.addWidget(QLabel("Granularity grid (rows: spatial levels, columns: time widths)"))
        column.addWidget(self.table, 2)
        column.addWidget(self.prices)
        column.addLayout(self._level_edits())
        buttons = QHBoxLayout()
        for text, slot in (
            ("Tick all", lambda: self.set_all(True)),
            ("Remove selected row/column", self.remove_selected),
        ):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        column.addLayout(buttons)
        column.addWidget(self.message)
        return column

    def _level_edits(self) -> QGridLayout:
        """A text box and an Add button for a new spatial level, and the same for a new time width."""
        self.level_edit = QLineEdit()
        self.level_edit.setPlaceholderText("district, raw, grid:2 …")
        self.width_edit = QLineEdit()
        self.width_edit.setPlaceholderText("30min, 1h, 1d, all …")
        add_level = QPushButton("Add level")
        add_level.clicked.connect(lambda: self.add_spatial(self.level_edit.text()))
        add_width = QPushButton("Add width")
        add_width.clicked.connect(lambda: self.add_temporal(self.width_edit.text()))
        edits = QGridLayout()
        edits.addWidget(self.level_edit, 0, 0)
        edits.addWidget(add_level, 0, 1)
        edits.addWidget(self.width_edit, 1, 0)
        edits.addWidget(add_width, 1, 1)
        return edits

    def _model_boxes(self) -> None:
        """The attacker's knowledge model, its tolerance and what befalls people with fewer than p points."""
        self.knowledge = QComboBox()
        for key, text in KNOWLEDGE:
            self.knowledge.addItem(text, key)
        self.knowledge.setToolTip(measure_help.tooltip("adversary_knowledge"))
        self.tolerance = QDoubleSpinBox()
        self.tolerance.setRange(0.0, 1.0)
        self.tolerance.setSingleStep(0.05)
        self.tolerance.setToolTip("Relative tolerance of the frequency and proportion models (0.5 = ±50 %).")
        self.short_traces = QComboBox()
        for key, text in SHORT_TRACES:
            self.short_traces.addItem(text, key)
        self.short_traces.setToolTip(
            "People with fewer than p points: left out of the estimate and counted, or evaluated on all "
            "the points they have (a conservative figure)."
        )

    def _number_boxes(self) -> None:
        """p, people sampled, draws, seed, the details' p, the records-at-risk k and the exact switch."""
        self.p_values = PValuesField()
        self.samples = _spin(
            10,
            10_000_000,
            10_000,
            "People sampled for the Monte Carlo estimate (capped at the number of people).",
        )
        self.samples.setSingleStep(1000)
        self.draws = _spin(1, 1000, 1)
        self.seed = _spin(0, 2_000_000_000, 0)
        self.exact = QCheckBox("exact (all p-subsets; small data only)")
        self.reference_p = _spin(
            1, 100, 4, "The p at which per-person and per-place details (histogram, map) are kept."
        )
        self.risk_k = _spin(
            2,
            1_000_000,
            5,
            "Records at risk: people whose p clues fit fewer than this many people (risk above 1/k).",
        )

    def _parameter_form(self) -> QFormLayout:
        """The attacker model and the run's numbers, one row each."""
        self._model_boxes()
        self._number_boxes()
        form = QFormLayout()
        for label, widget in (
            ("Attacker knowledge", self.knowledge),
            ("Tolerance", self.tolerance),
            ("Fewer than p points", self.short_traces),
            ("Points known p", self.p_values),
            ("People sampled", self.samples),
            ("Draws per person", self.draws),
            ("Random seed", self.seed),
            ("Details at p", self.reference_p),
            ("Records at risk below k", self.risk_k),
            ("", self.exact),
        ):
            form.addRow(label, widget)
        return form

    def _measure_group(self) -> QGroupBox:
        """One box per measure of the catalogue, two to a row."""
        measures = QGroupBox("Measures")
        m_layout = QGridLayout(measures)
        self.measure_boxes: dict[str, QCheckBox] = {}
        for k, measure in enumerate(CATALOGUE):
            box = QCheckBox(measure.label)
            box.setChecked(measure.default)
            box.setToolTip(measure_help.tooltip(measure.explanation))
            m_layout.addWidget(box, k // 2, k % 2)
            self.measure_boxes[measure.name] = box
        return measures

    def _connect_edits(self) -> None:
        """Every edit of a parameter says so (``settings_edited``); the model enables its own options."""
        self.p_values.edited.connect(self._emit_edited)
        numbers = (self.samples, self.draws, self.seed, self.reference_p, self.risk_k)
        for box in numbers:
            box.valueChanged.connect(self._emit_edited)
        for check in (self.exact, *self.measure_boxes.values()):
            check.toggled.connect(self._emit_edited)
        self.knowledge.currentIndexChanged.connect(self._emit_edited)
        self.knowledge.currentIndexChanged.connect(self._enable_model_options)
        self.tolerance.valueChanged.connect(self._emit_edited)
        self.short_traces.currentIndexChanged.connect(self._emit_edited)

    # -- levels ------------------------------------------------------------------------------------
    def spatial_levels(self) -> list[str]:
        return [self.table.verticalHeaderItem(i).text() for i in range(self.table.rowCount())]

    def temporal_levels(self) -> list[str]:
        return [self.table.horizontalHeaderItem(j).text() for j in range(self.table.columnCount())]

    def add_spatial(self, text: str) -> bool:
        """Add a row for a spatial level (``raw``, ``grid:<km>`` or a hierarchy level name)."""
        try:
            label = SpatialLevel.parse(text).label
        except ValueError as exc:
            self.message.setText(str(exc))
            return False
        return self._add(label, rows=True)

    def add_temporal(self, text: str) -> bool:
        """Add a column for a time width (``1h``, ``30min``, ``1w``, ``all`` …)."""
        try:
            label = TemporalLevel.parse(text).label
        except ValueError as exc:
            self.message.setText(str(exc))
            return False
        return self._add(label, rows=False)

    def _add(self, label: str, rows: bool) -> bool:
        existing = self.spatial_levels() if rows else self.temporal_levels()
        self.message.setText("")
        if label in existing:
            return False
        self.table.blockSignals(True)
        if rows:
            i = self.table.rowCount()
            self.table.insertRow(i)
            self.table.setVerticalHeaderItem(i, QTableWidgetItem(label))
            cells = [(i, j) for j in range(self.table.columnCount())]
        else:
            j = self.table.columnCount()
            self.table.insertColumn(j)
            self.table.setHorizontalHeaderItem(j, QTableWidgetItem(label))
            cells = [(i, j) for i in range(self.table.rowCount())]
        for i, j in cells:
            item = QTableWidgetItem("")
            item.setFlags(
                Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            )
            item.setCheckState(Qt.CheckState.Unchecked)
            self.table.setItem(i, j, item)
        self.table.blockSignals(False)
        self._emit_edited()
        return True

    def remove_selected(self) -> None:
        """Remove the rows and columns whose header or cells are selected."""
        model = self.table.selectionModel()
        rows = sorted({i.row() for i in model.selectedRows()}, reverse=True)
        cols = sorted({i.column() for i in model.selectedColumns()}, reverse=True)
        if not rows and not cols and self.table.currentItem() is not None:
            rows = [self.table.currentRow()]
        for i in rows:
            self.table.removeRow(i)
        for j in cols:
            self.table.removeColumn(j)
        self._emit_edited()

    def set_levels(self, spatial: list[str], temporal: list[str]) -> None:
        """Start over with these rows and columns (all cells unticked)."""
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        for level in spatial:
            self.add_spatial(level)
        for width in temporal:
            self.add_temporal(width)

    def set_hierarchy_levels(self, hierarchy: Any) -> None:
        """Offer the levels of a loaded hierarchy (finest first) and the usual time widths."""
        spatial = (
            [hierarchy.location_level, *hierarchy.levels] if hierarchy is not None else ["raw", "grid:1"]
        )
        self.set_levels(spatial, list(DEFAULT_TEMPORAL))

    # -- cells -------------------------------------------------------------------------------------
    def set_checked(self, spatial: str, temporal: str, checked: bool = True) -> None:
        i, j = self.spatial_levels().index(spatial), self.temporal_levels().index(temporal)
        self.table.item(i, j).setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)

    def set_all(self, checked: bool) -> None:
        for i in range(self.table.rowCount()):
            for j in range(self.table.columnCount()):
                self.table.item(i, j).setCheckState(
                    Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
                )

    def checked_cells(self) -> list[tuple[str, str]]:
        spatial, temporal = self.spatial_levels(), self.temporal_levels()
        return [
            (spatial[i], temporal[j])
            for i in range(self.table.rowCount())
            for j in range(self.table.columnCount())
            if self.table.item(i, j).checkState() == Qt.CheckState.Checked
        ]

    # -- settings ----------------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """The grid and parameters as the keyword arguments of ``RiskSettings`` (JSON-ready)."""
        return {
            "spatial": self.spatial_levels(),
            "temporal": self.temporal_levels(),
            "cells": [list(c) for c in self.checked_cells()],
            "p_values": self.p_values.values(),
            "knowledge": self._knowledge_text(),
            "short_traces": self.short_traces.currentData(),
            "measures": [k for k, box in self.measure_boxes.items() if box.isChecked()],
            "samples": self.samples.value(),
            "draws": self.draws.value(),
            "seed": self.seed.value(),
            "exact": self.exact.isChecked(),
            "reference_p": self.reference_p.value(),
            "records_at_risk_k": self.risk_k.value(),
            "price": self.prices.chosen(),
            **self.attribute_box.settings(),
        }

    def apply_settings(self, settings: dict[str, Any]) -> None:
        """Show saved settings (a project's); keys that are absent keep their current value."""
        self.blockSignals(True)
        if "spatial" in settings or "temporal" in settings:
            self.set_levels(list(settings.get("spatial", [])), list(settings.get("temporal", [])))
            if settings.get("cells") is None:
                self.set_all(True)
            for spatial, temporal in settings.get("cells") or []:
                self.set_checked(spatial, temporal)
        if "price" in settings:
            self.prices.set_chosen(list(settings["price"]))
        ps = settings.get("p_values") or []
        if ps:
            self.p_values.set_values([int(p) for p in ps])
        name, _, tol = str(settings.get("knowledge", self._knowledge_text())).partition(":")
        index = self.knowledge.findData(name)
        if index >= 0:
            self.knowledge.setCurrentIndex(index)
            if name in WITH_TOLERANCE and tol:
                self.tolerance.setValue(float(tol))
        index = self.short_traces.findData(settings.get("short_traces", self.short_traces.currentData()))
        if index >= 0:
            self.short_traces.setCurrentIndex(index)
        boxes = (
            ("samples", self.samples),
            ("draws", self.draws),
            ("seed", self.seed),
            ("reference_p", self.reference_p),
            ("records_at_risk_k", self.risk_k),
        )
        for key, box in boxes:
            if key in settings:
                box.setValue(int(settings[key]))
        self.exact.setChecked(bool(settings.get("exact", self.exact.isChecked())))
        if "measures" in settings:
            chosen = {canonical(m) for m in settings["measures"]}
            for key, box in self.measure_boxes.items():
                box.setChecked(key in chosen)
        self.attribute_box.apply_settings(settings)
        self.blockSignals(False)

    def _knowledge_text(self) -> str:
        """The model as ``RiskSettings.knowledge`` spells it (``frequency:0.5`` …)."""
        name = self.knowledge.currentData()
        return f"{name}:{self.tolerance.value():g}" if name in WITH_TOLERANCE else name

    def _enable_model_options(self, *_: Any) -> None:
        name = self.knowledge.currentData()
        self.tolerance.setEnabled(name in WITH_TOLERANCE)
        self.short_traces.setEnabled(name != "homework")
        if not self.short_traces.isEnabled():
            self.short_traces.setCurrentIndex(0)

    def _emit_edited(self, *_: Any) -> None:
        self.settings_edited.emit(self.settings())

    def _request_run(self) -> None:
        settings = self.settings()
        if self.p_values.problem():
            self.message.setText(self.p_values.problem())
            return
        if not settings["cells"]:
            self.message.setText("Tick at least one cell of the grid to run.")
            return
        if not settings["measures"]:
            self.message.setText("Choose at least one measure to compute.")
            return
        if not settings["price"]:
            self.message.setText("Tick at least one amount choice (no amount, or bins per factor of ten).")
            return
        self.message.setText("")
        self.run_requested.emit(settings)
