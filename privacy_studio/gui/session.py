"""The open project as the window sees it: the core ``Project``, the loaded dataset and the unsaved flag.

Widgets change the project only through this object, so the unsaved-changes flag and the views stay in step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from privacy_studio.core.io.overview import DatasetOverview
from privacy_studio.core.overview.project_data import ProjectData
from privacy_studio.core.project import DataSource, Project
from privacy_studio.core.project_run import keep, replace_result
from privacy_studio.core.report.record import sign_details
from privacy_studio.core.report_details import ReportDetails
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.gui.results import Record, RecordCache


class Session(QObject):
    """One open project; emits ``changed`` on every edit and ``dirty_changed`` when the flag flips."""

    changed = Signal()
    dirty_changed = Signal(bool)
    dataset_changed = Signal(object)  # the Dataset, or None
    results_changed = Signal(object)  # the project's typed results (object: a list would be converted)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = Project()
        self.dataset: Any = None
        self.overview: DatasetOverview | None = None  # aggregates of the data, whether in memory or not
        self._records = RecordCache()
        self.dirty = False
        self.edits = 0  # counts edits, so a save that ends after another edit leaves the project unsaved

    # -- whole project -----------------------------------------------------------------------------
    def replace(self, project: Project, dataset: Any = None) -> None:
        """Show another project (just opened or new); it starts unmodified."""
        self.project = project
        self.dataset, self.overview = dataset, None
        self.dataset_changed.emit(dataset)
        self.results_changed.emit(list(project.results))
        self.changed.emit()
        self.set_dirty(False)

    def set_dirty(self, dirty: bool = True) -> None:
        """Mark the project (un)saved; every change counts as an edit, so a save running meanwhile knows."""
        if dirty:
            self.edits += 1
        if dirty != self.dirty:
            self.dirty = dirty
            self.dirty_changed.emit(dirty)

    @property
    def path(self) -> Path | None:
        return self.project.path

    @property
    def title(self) -> str:
        return self.project.path.name if self.project.path else self.project.name

    def save(self, path: str | Path | None = None) -> Path:
        """Save atomically (``ProjectError`` with a readable message on failure) and clear the flag."""
        saved = self.project.save(path)
        self.mark_saved(self.edits)
        return saved

    def mark_saved(self, edits: int) -> None:
        """The project was written as it stood after ``edits`` edits: unsaved only if edited since."""
        if self.project.name == "Untitled" and self.project.path is not None:
            self.project.name = self.project.path.stem
        if self.edits == edits:
            self.set_dirty(False)
        self.changed.emit()

    # -- edits -------------------------------------------------------------------------------------
    def set_dataset(self, dataset: Any, path: str | Path, reader: dict[str, Any], sha256: str) -> None:
        """A newly imported dataset replaces the inputs: earlier results, analyses and user attributes
        describe other people and no longer apply (expert utility scores, per profile, are kept)."""
        self.project.sources = [DataSource(str(path), sha256, dict(reader))]
        self.project.import_report = dataset.report.to_dict()
        self.project.results = []
        self.project.analyses = {}
        self.dataset, self.overview = dataset, None
        self.dataset_changed.emit(dataset)
        self.results_changed.emit([])
        self._edited()

    def attach_dataset(self, dataset: Any) -> None:
        """The dataset of the current sources, read back after opening (changes nothing saved)."""
        self.dataset = dataset
        self.dataset_changed.emit(dataset)

    def attach_data(self, data: ProjectData) -> None:
        """The data of the current sources, read back after opening (changes nothing saved): the events
        when they fit in memory (else None) and their overview."""
        self.dataset, self.overview = data.dataset, data.overview
        self.dataset_changed.emit(data.dataset)

    def has_data(self) -> bool:
        """Whether the project's data are there: in memory, or as the overview of data that exceed it."""
        return self.dataset is not None or self.overview is not None

    def set_settings(self, settings: dict[str, Any]) -> None:
        if settings != self.project.settings:
            self.project.settings = dict(settings)
            self._edited()

    def set_attributes_file(self, path: str | Path) -> None:
        """The project's user-attributes file (risk by group, attribute disclosure) is now ``path``."""
        self.project.sources = [s for s in self.project.sources if s.role != "attributes"]
        self.project.add_source(path, {}, role="attributes")
        self._edited()

    def set_engine(self, choice: dict[str, Any]) -> None:
        """The risk engine the project runs on (``Project.engine``, an ``EngineChoice`` dict)."""
        if choice != self.project.engine:
            self.project.engine = dict(choice)
            self._edited()

    def set_utility(self, utility: dict[str, Any]) -> None:
        """The expert utility scores (``Project.utility``), as the trade-off panel edits them."""
        if utility != self.project.utility:
            self.project.utility = dict(utility)
            self._edited()

    def set_tradeoff(self, choices: dict[str, Any]) -> None:
        """The trade-off choices (``Project.tradeoff``: risk measure, p, utility, ceiling)."""
        if choices != self.project.tradeoff:
            self.project.tradeoff = dict(choices)
            self._edited()

    def set_report_details(self, name: str, details: ReportDetails, sign_again: bool = False) -> None:
        """The project's name and the decision-record texts (``analyses["report_details"]``); a new
        signature (or ``sign_again``) records the figures it is for."""
        details = sign_details(self.project, details, sign_again)
        if name != self.project.name or details != ReportDetails.of(self.project.analyses):
            self.project.name = name
            details.store(self.project.analyses)
            self._edited()

    def add_result(self, result: ProfileResult, record: Record | None = None) -> None:
        """A finished profile, replacing the project's result for the same profile; ``record``, its record
        if already made, is what the plots will read."""
        if record is not None:
            self._records.seed(result, record)
        self.project.results = replace_result(self.project.results, result)
        self.results_changed.emit(list(self.project.results))
        self._edited()

    def records(self, results: list[ProfileResult]) -> list[Record]:
        """The records the plots read, of ``results`` (the project's, as ``results_changed`` gave them)."""
        return self._records.records(results)

    def keep_step(self, step: Any) -> None:
        """Keep a run's late analysis (its seed spread) in the project, which then has unsaved changes."""
        keep(self.project, step)
        self._edited()

    def _edited(self) -> None:
        self.changed.emit()
        self.set_dirty(True)
