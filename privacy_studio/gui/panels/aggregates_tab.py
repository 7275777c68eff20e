"""The Trade-off panel's Aggregates tab: the differentially private aggregates written from the project,
their utility beside the microdata candidates' (the report's table, ``core/report/aggregate.py``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from privacy_studio.core.aggregate.manifest import aggregate_releases
from privacy_studio.core.analyses import AnalysisError
from privacy_studio.core.report.aggregate import utility_table

EMPTY = "No aggregate written yet: File › Export aggregate (or privacy-studio aggregate) writes one."


class AggregatesTab(QWidget):
    """A table of every recorded aggregate's utility next to the microdata's, and what the columns mean."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, 0)
        self.note = QLabel(EMPTY)
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)

    def show_project(self, project: Any, recommended: str | None, no_recommendation: str) -> None:
        """Fill the table from ``project``'s aggregate records (a damaged record is said, not raised)."""
        try:
            manifests = [] if project is None else aggregate_releases(project.analyses)
        except AnalysisError as exc:
            self._fill([], [])
            self.note.setText(f"The stored aggregate records could not be read ({exc}).")
            return
        if not manifests:
            self._fill([], [])
            self.note.setText(EMPTY)
            return
        table = utility_table(project, manifests, recommended, no_recommendation)
        self._fill(table.columns, table.rows)
        self.note.setText(f"{table.caption}. {table.note}")

    def _fill(self, columns: list[str], rows: list[list[str]]) -> None:
        self.table.setColumnCount(len(columns))
        self.table.setHorizontalHeaderLabels(columns)
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                self.table.setItem(i, j, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
