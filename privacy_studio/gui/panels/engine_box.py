"""The run settings' engine choice: in memory (numba), out of core (DuckDB), a Spark cluster, or automatic."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRegularExpression, Qt, Signal
from PySide6.QtGui import QRegularExpressionValidator
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLineEdit, QWidget

from privacy_studio.core.engines.engine_choice import EngineChoice
from privacy_studio.core.engines.memory import MEMORY_PATTERN

#: (engine, what the user reads in the list, tooltip).
ENGINE_ITEMS = (
    ("numba", "in memory (numba): fastest when the data fits", "Loads the data into memory."),
    (
        "duckdb",
        "out of core (DuckDB): data larger than memory",
        "DuckDB reads the input files itself and spills to disk above its memory limit.",
    ),
    (
        "spark",
        "cluster (Spark): very large data",
        "Runs the same plan on Apache Spark; needs Java, and a Spark master below (blank: local threads).",
    ),
    ("auto", "automatic: in memory if the files fit", "DuckDB when the input would not fit in memory."),
)


class EngineBox(QGroupBox):
    """Edits an :class:`EngineChoice`; ``edited`` carries its dict (as stored in the project file)."""

    edited = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Engine", parent)
        self.engine = QComboBox()
        for i, (key, text, tip) in enumerate(ENGINE_ITEMS):
            self.engine.addItem(text, key)
            self.engine.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)
        self.memory_limit = QLineEdit()
        self.memory_limit.setPlaceholderText("e.g. 8GB (blank: the engine's default)")
        size = QRegularExpression(
            rf"\s*({MEMORY_PATTERN})?\s*", QRegularExpression.PatternOption.CaseInsensitiveOption
        )
        self.memory_limit.setValidator(QRegularExpressionValidator(size, self.memory_limit))
        self.temp_dir = QLineEdit()
        self.temp_dir.setPlaceholderText("folder for spills (blank: the system's temporary folder)")
        self.spark_master = QLineEdit()
        self.spark_master.setPlaceholderText("spark://host:7077, yarn … (blank: local threads)")
        form = QFormLayout(self)
        form.addRow("Runs on", self.engine)
        form.addRow("Memory limit", self.memory_limit)
        form.addRow("Spill folder", self.temp_dir)
        form.addRow("Spark master", self.spark_master)
        self.engine.currentIndexChanged.connect(self._changed)
        for edit in (self.memory_limit, self.temp_dir, self.spark_master):
            edit.editingFinished.connect(self._changed)
        self._enable()

    def choice(self) -> dict[str, Any]:
        """The choice as the project stores it (blank fields are null)."""

        def text(edit: QLineEdit) -> str | None:
            return edit.text().strip() or None

        return EngineChoice(
            name=self.engine.currentData(),
            memory_limit=text(self.memory_limit),
            temp_dir=text(self.temp_dir),
            spark_master=text(self.spark_master),
        ).to_dict()

    def set_choice(self, choice: dict[str, Any]) -> None:
        """Show a project's choice without emitting ``edited``."""
        self.blockSignals(True)
        index = self.engine.findData(choice.get("name", "numba"))
        self.engine.setCurrentIndex(max(index, 0))
        self.memory_limit.setText(choice.get("memory_limit") or "")
        self.temp_dir.setText(choice.get("temp_dir") or "")
        self.spark_master.setText(choice.get("spark_master") or "")
        self._enable()
        self.blockSignals(False)

    def _enable(self) -> None:
        """Options only mean something for the engines that use them."""
        name = self.engine.currentData()
        self.memory_limit.setEnabled(name in ("duckdb", "spark", "auto"))
        self.temp_dir.setEnabled(name in ("duckdb", "spark", "auto"))
        self.spark_master.setEnabled(name == "spark")

    def _changed(self, *_: Any) -> None:
        self._enable()
        self.edited.emit(self.choice())
