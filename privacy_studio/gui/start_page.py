"""The page a new window opens on: the three steps of an assessment and the ways to start one."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

#: The sample project shipped with the studio (a fictional city), when running from a checkout or bundle.
SAMPLE_PROJECT = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"

STEPS = (
    "<b>1. Bring the data in.</b> Import a file of events (calls, card payments, check-ins) or open a "
    "project. You see how each column was read and which rows were left out.",
    "<b>2. Measure the risk.</b> In the <b>Grid</b> step, tick the generalizations to try (place × time) and "
    "press <b>Run</b> in the toolbar. Results appear profile by profile in the <b>Run</b> step; you can look "
    "around meanwhile.",
    "<b>3. Decide, release, report.</b> Compare risk and usefulness in the <b>Decide</b> step, write the "
    "data at the chosen profile in <b>Release</b>, and the PDF in <b>Report</b>. The bar above leads "
    "through the steps and says what each one still needs.",
)


class StartPage(QWidget):
    """Numbered steps, buttons to open the sample, import data or open a project, and recent projects."""

    open_sample = Signal()
    import_data = Signal()
    open_project = Signal()
    open_recent = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("<h2>Can this dataset be shared, and how coarsely?</h2>")
        steps = QLabel("<br><br>".join(STEPS))
        steps.setWordWrap(True)
        steps.setTextFormat(Qt.TextFormat.RichText)
        self.sample_button = QPushButton("Open the sample project")
        self.sample_button.setToolTip("A fictional city of 2,000 people: try every step on it")
        self.sample_button.setEnabled(SAMPLE_PROJECT.exists())
        self.import_button = QPushButton("Import data…")
        self.open_button = QPushButton("Open a project…")
        self.sample_button.clicked.connect(self.open_sample)
        self.import_button.clicked.connect(self.import_data)
        self.open_button.clicked.connect(self.open_project)
        buttons = QHBoxLayout()
        for button in (self.sample_button, self.import_button, self.open_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.recent = QListWidget()
        self.recent.setMaximumHeight(160)
        self.recent.itemActivated.connect(self._recent_activated)
        self.recent_title = QLabel("<b>Recent projects</b> (double-click to open)")
        column = QVBoxLayout()
        column.addWidget(title)
        column.addWidget(steps)
        column.addSpacing(12)
        column.addLayout(buttons)
        column.addSpacing(12)
        column.addWidget(self.recent_title)
        column.addWidget(self.recent)
        column.addStretch(1)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addLayout(column, 6)
        outer.addStretch(1)

    def _recent_activated(self, item: QListWidgetItem) -> None:
        self.open_recent.emit(item.data(Qt.ItemDataRole.UserRole))

    def set_recent(self, paths: list[str]) -> None:
        """List the recent projects (name, with the full path as tooltip); hidden when there are none."""
        self.recent.clear()
        for path in paths:
            item = QListWidgetItem(f"{Path(path).name}  —  {Path(path).parent}")
            item.setData(Qt.ItemDataRole.UserRole, path)
            item.setToolTip(path)
            self.recent.addItem(item)
        self.recent.setVisible(bool(paths))
        self.recent_title.setVisible(bool(paths))
