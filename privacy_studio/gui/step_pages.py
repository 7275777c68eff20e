"""The pages of the Data, Release and Report steps (the Grid, Run and Decide steps show existing panels)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.gui.results import profile_label

if TYPE_CHECKING:
    from privacy_studio.core.project import Project
    from privacy_studio.core.release import ReleaseManifest
    from privacy_studio.core.report_details import ReportDetails

#: The decision-record texts the Report step checks for, with how the report names them.
RECORD_FIELDS = (
    ("purpose", "purpose of the release"),
    ("recipient", "recipient"),
    ("release_format", "release format"),
    ("signer_name", "signer"),
    ("decision", "decision"),
)


def _text(html: str) -> QLabel:
    label = QLabel(html)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


class ProjectTree(QTreeWidget):
    """The project at a glance: its data sources, grid, results and analyses; activating an entry asks
    for the step (and tab) that shows it."""

    wanted = Signal(str, str)  # step key, tab title ("" for the step itself)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.itemActivated.connect(self._activated)

    def fill(self, project: Project, ticked: int, tabs: list[str]) -> None:
        self.clear()
        sources = QTreeWidgetItem(self, ["Data sources"])
        for source in project.sources:
            item = QTreeWidgetItem(sources, [Path(source.path).name])
            item.setToolTip(0, source.path)
        grid = QTreeWidgetItem(self, [f"Grid ({ticked} cells ticked)"])
        results = QTreeWidgetItem(self, [f"Results ({len(project.results)} profiles)"])
        for rec in project.results:
            QTreeWidgetItem(results, [profile_label(rec)])
        analyses = QTreeWidgetItem(self, ["Analyses"])
        for title in tabs:
            QTreeWidgetItem(analyses, [title])
        for item, step in ((sources, "data"), (grid, "grid"), (results, "run"), (analyses, "run")):
            item.setData(0, Qt.ItemDataRole.UserRole, step)
            item.setExpanded(item is not analyses)

    def _activated(self, item: QTreeWidgetItem, _column: int) -> None:
        top = item.parent() or item
        tab = item.text(0) if top.text(0) == "Analyses" and item is not top else ""
        self.wanted.emit(top.data(0, Qt.ItemDataRole.UserRole), tab)


class DataPage(QStackedWidget):
    """The start page until there is data or a result; then the project tree beside the data summary."""

    def __init__(self, start: QWidget, tree: ProjectTree, summary: QWidget) -> None:
        super().__init__()
        self.start = start
        self.overview = QSplitter(Qt.Orientation.Horizontal)
        self.overview.addWidget(tree)
        self.overview.addWidget(summary)
        self.overview.setStretchFactor(1, 1)
        self.overview.setSizes([260, 900])
        self.addWidget(start)
        self.addWidget(self.overview)

    def show_start(self, empty: bool) -> None:
        self.setCurrentWidget(self.start if empty else self.overview)


class ReleasePage(QWidget):
    """Write the release (the release dialog) and see the last one; the attacks on it below."""

    export_requested = Signal()

    def __init__(self, attacks: QWidget) -> None:
        super().__init__()
        intro = _text(
            "<b>Write the data at the chosen profile.</b> The release is measured again as written; the "
            "report's Release section shows it. Then try the attacks below on the written file."
        )
        self.export_button = QPushButton("Export release…")
        self.export_button.clicked.connect(self.export_requested)
        self.last = _text("No release written yet.")
        top = QHBoxLayout()
        top.addWidget(intro, 1)
        top.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.last)
        layout.addWidget(attacks, 1)

    def show_release(self, manifest: ReleaseManifest | None, problem: str = "") -> None:
        """The last release written from the project, or ``problem`` when its record cannot be read."""
        if manifest is None:
            self.last.setText(problem or "No release written yet.")
            return
        self.last.setText(
            f"Last release: <b>{Path(manifest.release_file).name}</b> at {manifest.profile_label}, "
            f"{manifest.release_rows:,} rows, written {manifest.created}."
        )


class ReportPage(QWidget):
    """The decision record's state (which texts are still empty) and the buttons to edit it and write
    the PDF."""

    details_requested = Signal()
    export_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        intro = _text(
            "<b>Record the decision and write the report.</b> The PDF holds the data, the grid, the "
            "results, the trade-off and the release, with the decision record written here."
        )
        self.details_button = QPushButton("Report details…")
        self.details_button.clicked.connect(self.details_requested)
        self.export_button = QPushButton("Export report (PDF)…")
        self.export_button.clicked.connect(self.export_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.details_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        self.record = _text("")
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(buttons)
        layout.addWidget(self.record)
        layout.addStretch(1)

    def show_details(self, details: ReportDetails) -> None:
        """Say which of the decision record's texts are filled and which are still empty."""
        empty = [name for key, name in RECORD_FIELDS if not getattr(details, key)]
        signed = f"Decision: <b>{details.decision}</b>" if details.decision else "Not signed yet."
        still = f"Still empty: {', '.join(empty)} (Report details…)." if empty else "Every text is filled."
        self.record.setText(f"{signed}<br>{still}")
