"""The window's project files: new, open, save, save as and the recent list.

Opening parses and checks the file in a worker and swaps the project in on the GUI thread; saving encodes
and writes it in a worker (atomically: a cancelled or failed save leaves the earlier file as it was). Both
showed as pauses of up to 3.6 s on the GUI thread for a 100,000-person project (issue #27).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEventLoop, QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox

from privacy_studio.core.analyses import AnonymizabilityResults
from privacy_studio.core.numbers import count
from privacy_studio.core.overview.project_data import ProjectData, open_project_data
from privacy_studio.core.project import SUFFIX, Project, ProjectError
from privacy_studio.gui.workers import Worker

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu

    from privacy_studio.core.progress import TaskControl
    from privacy_studio.gui.session import Session
    from privacy_studio.gui.workers import TaskRunner

MAX_RECENT = 8
PROJECT_FILTER = f"Privacy Studio project (*{SUFFIX})"


def load_project(path: str | Path, control: TaskControl) -> tuple[Project, list[dict[str, Any]]]:
    """Worker side of opening: read, validate and migrate the file and type its stored analyses, so the GUI
    thread only swaps a checked project in; any problem is one ``ProjectError`` sentence."""
    control.report(0.0, "reading")
    try:
        project = Project.load(path)
        control.report(0.8, "checking")
        stored = project.analysis(AnonymizabilityResults)
    except (ValueError, TypeError) as exc:
        raise ProjectError(str(exc) or f"{path}: cannot be opened") from None
    return project, stored.content if stored else []


def read_project_data(project: Project, control: TaskControl | None = None) -> tuple[ProjectData, list[str]]:
    """Read a project's data — the events when they fit in memory, else only the overview DuckDB computes
    (issue #30) — and list the inputs changed since it was saved (both slow: run in a worker)."""
    data = open_project_data(project, control, changed_ok=True)  # the window shows which changed
    return data, [source.path for source in project.changed_sources()]


class ProjectFiles:
    """Mixin of ``MainWindow``: the File menu's project actions, each long part in the task runner."""

    session: Session
    runner: TaskRunner
    qsettings: QSettings
    recent_menu: QMenu

    if TYPE_CHECKING:  # provided by the window

        def log(self, message: str, level: str = "info", details: str = "") -> None: ...
        def error(self, message: str, details: str = "") -> None: ...
        def show_import(self, path: str | None = None) -> Any: ...
        def show_project(self, project: Project, anonymizability: list[dict[str, Any]]) -> None: ...

    # -- asking --------------------------------------------------------------------------------------
    def maybe_save(self) -> bool:
        """Ask about unsaved changes; ``False`` if the user chose to stay (or the save did not finish)."""
        if not self.session.dirty:
            return True
        answer = QMessageBox.question(
            self,  # type: ignore[arg-type]
            "Unsaved changes",
            f"Save the changes to {self.session.title}?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.wait_for(self.save())
        return answer == QMessageBox.StandardButton.Discard

    def wait_for(self, worker: Worker | None) -> bool:
        """Let the event loop turn (progress, Cancel) until ``worker`` is done; whether it finished."""
        if worker is None:
            return False
        loop = QEventLoop()

        def stopped(other: Worker) -> None:
            if other is worker:
                loop.quit()

        self.runner.stopped.connect(stopped)  # the runner forgets a worker on the GUI thread: no race
        if worker in self.runner.active:
            loop.exec()
        self.runner.stopped.disconnect(stopped)
        return worker.succeeded

    # -- opening -------------------------------------------------------------------------------------
    def ask_open(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,  # type: ignore[arg-type]
            "Open project",
            "",
            f"{PROJECT_FILTER};;All files (*)",
        )
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path) -> None:
        """Open a project, or start importing a data file, depending on what ``path`` is."""
        if str(path).lower().endswith(SUFFIX):
            self.open_project(path)
        else:
            self.show_import(str(path))

    def open_project(self, path: str | Path) -> Worker | None:
        """Read and check a ``.psproj`` in a worker; the window changes only once it is whole (a broken file
        is one message and leaves the open project as it was). ``None`` when the user stayed."""
        if not self.maybe_save():
            return None
        worker = Worker(load_project, path, name="open project")
        worker.signals.finished.connect(lambda loaded: self._project_loaded(Path(path), *loaded))
        worker.signals.failed.connect(lambda msg, details: self.error(msg, details))
        worker.signals.cancelled.connect(lambda _items: self.log(f"Opening {path} cancelled"))
        self.runner.start(worker, kind="open")
        return worker

    def _project_loaded(self, path: Path, project: Project, anonymizability: list[dict[str, Any]]) -> None:
        """GUI side of opening: relocate missing inputs with the user, swap the project in, read its data."""
        relocated = self._relocate_missing(project)
        self.show_project(project, anonymizability)
        self._remember(path)
        self.log(f"Opened {path}")
        if relocated:
            self.session.set_dirty(True)
        if project.sources and not project.missing_sources():
            worker = Worker(read_project_data, project, name="read data")
            worker.signals.finished.connect(self._project_data_read)
            worker.signals.failed.connect(
                lambda msg, details: self.error(f"Cannot read the data: {msg}", details)
            )
            self.runner.start(worker)

    def _project_data_read(self, result: tuple[ProjectData, list[str]]) -> None:
        data, changed = result
        for path in changed:
            self.log(f"{path} changed since the project was saved: results may not match it", "warning")
        if not data.in_memory:
            self.log(
                f"The data exceed the memory: the window shows their overview "
                f"({count(data.overview.people)} people, {count(data.overview.events)} events, counted by "
                "DuckDB) and runs the grid out of core"
            )
        self.session.attach_data(data)

    def _relocate_missing(self, project: Project) -> bool:
        """Ask where each missing input went; returns whether anything was relocated."""
        moved = False
        for source in project.missing_sources():
            answer = QMessageBox.question(
                self,  # type: ignore[arg-type]
                "Input file not found",
                f"The project's input {source.path} (or one of its side files) is missing.\nLocate it now?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                self.log(
                    f"Input not found: {source.path}; results are shown, the data is not loaded", "warning"
                )
                continue
            new_path, _ = QFileDialog.getOpenFileName(self, f"Where is {Path(source.path).name}?")  # type: ignore[arg-type]
            if not new_path:
                continue
            try:
                project.relocate(source, new_path)
                moved = True
            except ProjectError as exc:
                self.error(str(exc))
        return moved

    # -- saving --------------------------------------------------------------------------------------
    def save(self) -> Worker | None:
        """File ▸ Save: the worker writing the project (``None`` when no file name was given)."""
        if self.session.path is None:
            return self.save_as()
        return self._save_to(self.session.path)

    def save_as(self) -> Worker | None:
        path, _ = QFileDialog.getSaveFileName(
            self,  # type: ignore[arg-type]
            "Save project",
            f"{self.session.title}",
            PROJECT_FILTER,
        )
        if not path:
            return None
        if not path.endswith(SUFFIX):
            path += SUFFIX
        return self._save_to(Path(path))

    def _save_to(self, path: Path) -> Worker:
        """Encode and write the project in a worker; edits made meanwhile keep the project marked unsaved."""
        project, edits = self.session.project, self.session.edits
        worker = Worker(project.save, Path(path), name="save project")
        worker.signals.finished.connect(lambda saved: self._saved(project, saved, edits))
        worker.signals.failed.connect(
            lambda msg, details: self.error(f"The project was not saved: {msg}", details)
        )
        worker.signals.cancelled.connect(
            lambda _items: self.log(f"Save cancelled: {path} is as it was before", "warning")
        )
        self.runner.start(worker, kind="save")
        return worker

    def _saved(self, project: Project, path: Path, edits: int) -> None:
        if project is self.session.project:
            self.session.mark_saved(edits)
        self._remember(path)
        self.log(f"Saved {path}")

    # -- recent files --------------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.qsettings.value("recent", [])
        return [value] if isinstance(value, str) else list(value or [])

    def _remember(self, path: Path) -> None:
        text = str(Path(path).resolve())
        recent = [text, *(p for p in self.recent_files() if p != text)][:MAX_RECENT]
        self.qsettings.setValue("recent", recent)
        self._update_recent_menu()

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        for i, path in enumerate(self.recent_files()):
            action = self.recent_menu.addAction(f"&{i + 1} {Path(path).name}")
            action.setToolTip(path)
            action.triggered.connect(lambda _=False, p=path: self.open_project(p))
        self.recent_menu.setEnabled(bool(self.recent_files()))
