"""The Decide step's release candidates (issue #29 point 4): every profile × suppression the protection
search judged, the recommended one first in view, and "Use for release…" to set the release dialog from
the chosen one. The search runs in the window's task runner with progress and cancel."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTableWidget, QWidget

from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.release.search import is_current, search
from privacy_studio.core.tradeoff.candidates import SKIPPED, Candidate, SearchResult
from privacy_studio.core.utility import utility_title
from privacy_studio.gui.panels.tradeoff_widgets import data_table, fill_table, tab_page
from privacy_studio.gui.workers import TaskRunner, Worker

if TYPE_CHECKING:
    from privacy_studio.core.project import Project
    from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis

COLUMNS = ["candidate", "people released", "utility", "verdict", "why"]
NO_SEARCH = (
    "No protection search yet: Search protections tries every profile with a ladder of suppression "
    "settings (k-anonymity, rare points, points per person) and measures each release as written."
)


def candidate_row(candidate: Candidate, recommended: bool) -> list[str]:
    """One candidate as the table shows it: its name, whom it keeps, its utility and its verdict."""
    people = (
        f"{count(candidate.released_people)} of {count(candidate.total_people)} "
        f"({share(candidate.released_share)})"
    )
    score = number(candidate.utility) if math.isfinite(candidate.utility) else "—"
    if recommended:
        verdict = "★ recommended"
    elif candidate.verdict == SKIPPED:
        verdict = "not measured"
    else:
        verdict = "passes" if candidate.passes else "fails"
    why = candidate.coverage() if candidate.passes else candidate.why_failed()
    return [candidate.name(), people, score, verdict, why]


class CandidatesTab(QWidget):
    """The project's protection search as a table; ``use_requested`` carries the chosen candidate."""

    use_requested = Signal(object)  # Candidate
    searched = Signal(object)  # SearchResult, once stored in the project

    def __init__(self, session: Any, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session, self.runner = session, runner
        self.result: SearchResult | None = None
        self.current = False  # whether the shown search still matches the project's choices and results
        self.worker: Worker | None = None
        #: Called before a search so the project holds the choices shown (the panel's, when mounted).
        self.before_search: Callable[[], str] = lambda: ""
        self.summary = QLabel(NO_SEARCH)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = data_table(COLUMNS)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _index: self.use_chosen())
        self.search_button = QPushButton("Search protections")
        self.search_button.setToolTip("Try every profile with the suppression ladder (in the background)")
        self.search_button.clicked.connect(self.start_search)
        self.use_button = QPushButton("Use for release…")
        self.use_button.setToolTip("Open the release dialog with this candidate's profile and suppression")
        self.use_button.setEnabled(False)
        self.use_button.clicked.connect(self.use_chosen)
        buttons = QHBoxLayout()
        buttons.addWidget(self.search_button)
        buttons.addStretch(1)
        buttons.addWidget(self.use_button)
        self._page = tab_page(self.summary, (self.table, 1), buttons)
        self.setLayout(self._page.layout())

    # -- what is shown ---------------------------------------------------------------------------------
    def show_project(self, project: Project | None, analysis: TradeoffAnalysis | None) -> None:
        """Show the project's stored search, saying when the choices or results changed since."""
        result = None if project is None else project.analysis(SearchResult)
        current = (
            result is not None and analysis is not None and is_current(project, result, analysis)  # type: ignore[arg-type]
        )
        if result == self.result and current == self.current:  # a refresh keeps the chosen row
            return
        self.result, self.current = result, current
        if result is None:
            self.summary.setText(NO_SEARCH)
            fill_table(self.table, [])
            self._selection_changed()
            return
        title = utility_title(result.utility_name)
        lines = result.lines(title)[:2]
        if not current:
            lines.insert(
                0,
                "⚠ Out of date: the criteria, measure, utility or results changed since this "
                "search; search again before releasing.",
            )
        self.summary.setText("\n".join(lines))
        headers = list(COLUMNS)
        headers[COLUMNS.index("utility")] = f"{title} (utility)"  # the search's utility, in words
        self.table.setHorizontalHeaderLabels(headers)
        fill_table(self.table, [candidate_row(c, c is result.recommended) for c in result.candidates])
        if result.recommended is not None:
            self.table.selectRow(result.candidates.index(result.recommended))
        self._selection_changed()

    def chosen(self) -> Candidate | None:
        """The selected candidate (the recommended one until another is chosen)."""
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        if self.result is None or not rows:
            return None
        return self.result.candidates[min(rows)]

    def recommended(self) -> Candidate | None:
        """The recommended candidate of a search that is still current."""
        return self.result.recommended if self.result is not None and self.current else None

    def _selection_changed(self) -> None:
        self.use_button.setEnabled(self.chosen() is not None)

    def use_chosen(self) -> None:
        candidate = self.chosen()
        if candidate is not None:
            self.use_requested.emit(candidate)

    # -- the search ------------------------------------------------------------------------------------
    def start_search(self) -> Worker | None:
        """Run the protection search on the loaded data in the task runner; the result is kept in the
        project and shown when it ends (a cancelled search changes nothing)."""
        project = getattr(self.session, "project", None)
        dataset = getattr(self.session, "dataset", None)
        if project is None or dataset is None or not project.results:
            self._say_why_not("Import the data and run the grid first: the search starts from its results")
            return None
        problem = self.before_search()
        if problem:
            self._say_why_not(problem)
            return None
        worker = Worker(search, project, dataset, name="protection search")
        worker.signals.progress.connect(lambda _f, message: self.summary.setText(f"Searching: {message}"))
        worker.signals.finished.connect(lambda found: self._found(project, found))
        worker.signals.failed.connect(lambda message, _trace: self.summary.setText(message))
        worker.signals.cancelled.connect(lambda _items: self._stopped("Search cancelled: nothing changed."))
        worker.signals.done.connect(lambda _worker: self.search_button.setEnabled(True))
        self.search_button.setEnabled(False)
        self.worker = worker
        self.runner.start(worker, kind="protection search")
        return worker

    def _say_why_not(self, message: str) -> None:
        """Why no search started; the next refresh shows the stored search again (the message stayed after
        the run or the analysis it asked for had arrived)."""
        self.current = None
        self.summary.setText(message)

    def _stopped(self, message: str) -> None:
        self.result = None  # shown again from the project
        self.summary.setText(message)

    def _found(self, project: Project, found: SearchResult) -> None:
        if project is not self.session.project:
            return  # another project was opened meanwhile
        project.store(found)
        self.session.set_dirty(True)
        self.searched.emit(found)
