"""The main window: the step bar over one step at a time (Data → Grid → Run → Decide → Release → Report),
the toolbar with Run and Cancel, and the status bar with progress."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt, QTimer, Slot
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QWidget,
)

from privacy_studio.core.analyses import AnalysisError, AnonymizabilityResults
from privacy_studio.core.project import Project
from privacy_studio.core.release.manifest import last_release
from privacy_studio.core.report_details import ReportDetails
from privacy_studio.gui.dialogs.import_dialog import ImportDialog
from privacy_studio.gui.panels.anonymizability_panel import AnonymizabilityPanel
from privacy_studio.gui.panels.attacks_panel import AttacksPanel
from privacy_studio.gui.panels.grid_panel import GridPanel
from privacy_studio.gui.panels.help_panel import HelpPanel
from privacy_studio.gui.panels.log_panel import LogPanel
from privacy_studio.gui.panels.results_table import ResultsTable
from privacy_studio.gui.panels.summary_panel import SummaryPanel
from privacy_studio.gui.panels.tradeoff_panel import TradeoffPanel
from privacy_studio.gui.plots.base import PlotTab
from privacy_studio.gui.plots.disclosure import DisclosurePlot
from privacy_studio.gui.plots.distribution import UserEmHistogram
from privacy_studio.gui.plots.heatmap import UnicityHeatmap
from privacy_studio.gui.plots.location_map import LocationEmMap
from privacy_studio.gui.plots.sparsity import SparsityPlot
from privacy_studio.gui.plots.unicity import UnicityPlot
from privacy_studio.gui.screen_fit import fit_to_screen
from privacy_studio.gui.session import Session
from privacy_studio.gui.start_page import SAMPLE_PROJECT, StartPage
from privacy_studio.gui.step_pages import DataPage, ProjectTree, ReleasePage, ReportPage
from privacy_studio.gui.steps import Progress, StepView, scrolled
from privacy_studio.gui.wheel_guard import WheelGuard, guard_wheel
from privacy_studio.gui.window_exports import ExportActions
from privacy_studio.gui.window_files import ProjectFiles
from privacy_studio.gui.window_menus import MenuBar
from privacy_studio.gui.window_runs import RunHooks
from privacy_studio.gui.window_status import StatusBar
from privacy_studio.gui.workers import TaskRunner, Worker

if TYPE_CHECKING:
    pass

#: During a run, the results table is rebuilt at most this often (milliseconds), and once at the end.
TABLE_DELAY_MS = 1500


def _report_text(report: dict[str, Any] | None) -> str:
    if not report:
        return ""
    from privacy_studio.core.io.report import ImportReport

    return ImportReport.from_dict(report).summary_text()


class MainWindow(ProjectFiles, RunHooks, ExportActions, MenuBar, StatusBar, QMainWindow):
    """One window per open project; every long computation runs in ``self.runner``."""

    def __init__(self, settings: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("MainWindow")
        self.qsettings = settings if settings is not None else QSettings()
        self.session = Session(self)
        self.runner = TaskRunner(self)
        self.run_worker: Worker | None = None
        self.status_worker: Worker | None = None
        self.import_dialog: ImportDialog | None = None
        fit_to_screen(self, 1400, 900)
        self._build_plots()
        self.start_page = StartPage()
        self.start_page.open_sample.connect(lambda: self.open_project(SAMPLE_PROJECT))
        self.start_page.import_data.connect(lambda: self.show_import())
        self.start_page.open_project.connect(self.ask_open)
        self.start_page.open_recent.connect(self.open_project)
        self.table_timer = QTimer(self)
        self.table_timer.setSingleShot(True)
        self.table_timer.setInterval(TABLE_DELAY_MS)
        self.table_timer.timeout.connect(self._fill_table)
        self.tree = ProjectTree()
        self.tree.wanted.connect(self._tree_wanted)
        self.summary = SummaryPanel()
        self.grid = GridPanel()
        self.results_table = ResultsTable()
        self.log_panel = LogPanel()
        self.help_panel = HelpPanel()
        self.help_dock = QDockWidget("Measures help", self)
        self.help_dock.setObjectName("Measures_help")
        self.help_dock.setWidget(self.help_panel)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.help_dock)
        self.help_dock.hide()
        self._mount_steps()
        self.wheel_guard = WheelGuard(self)
        self._build_status_bar()
        self._build_menus()
        self._build_toolbar()
        self._show_busy(False)
        self._connect()
        self._restore_state()
        self._refresh_tree()
        self._update_title()
        self._show_start_or_tabs()
        self.show_step("data")
        guard_wheel(self, self.wheel_guard)

    def _build_plots(self) -> None:
        """The Run step's plot tabs, each drawn only while shown."""
        self.heatmap = UnicityHeatmap()
        self.plots: list[PlotTab] = [
            UnicityPlot(),
            self.heatmap,
            DisclosurePlot(),
            UserEmHistogram(),
            SparsityPlot(),
            LocationEmMap(),
        ]
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setUsesScrollButtons(True)
        for plot in self.plots:
            plot.redraw_only_when_shown()
            index = self.tabs.addTab(plot, plot.tab_title or plot.title)
            self.tabs.setTabToolTip(index, plot.title)
        self.plots[-1].use_runner(self.runner)

    def _connect(self) -> None:
        """The grid's, the session's and the runner's signals to the window's views."""
        self.grid.run_requested.connect(self.start_run)
        self.grid.settings_edited.connect(self._settings_edited)
        self.grid.engine_box.edited.connect(self.session.set_engine)
        self.grid.attribute_box.file_chosen.connect(self.choose_attributes)
        self.session.results_changed.connect(self._show_results)
        self.session.dataset_changed.connect(self._show_dataset)
        self.session.changed.connect(self._refresh_tree)
        self.session.changed.connect(self._update_title)
        self.session.changed.connect(self._show_start_or_tabs)
        self.session.dirty_changed.connect(self._update_title)
        self.runner.started.connect(self._track_status)

    # -- construction ------------------------------------------------------------------------------
    def _mount_steps(self) -> None:
        """The main area: the step bar over one step's page (Data, Grid, Run, Decide, Release, Report)."""
        self.tradeoff = TradeoffPanel(self.session, self.runner)
        self.tradeoff.candidates.use_requested.connect(self.export_release)
        self.anonymizability = AnonymizabilityPanel(self.runner)
        self.attacks = AttacksPanel(self.session, self.runner)
        self.tabs.addTab(scrolled(self.anonymizability), "Anonymizability")
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.setDocumentMode(True)
        self.bottom_tabs.addTab(self.results_table, "Results")
        self.bottom_tabs.addTab(self.log_panel, "Messages")
        self.run_split = QSplitter(Qt.Orientation.Vertical)
        self.run_split.addWidget(self.tabs)
        self.run_split.addWidget(self.bottom_tabs)
        self.run_split.setStretchFactor(0, 3)
        self.run_split.setStretchFactor(1, 1)
        self.data_page = DataPage(self.start_page, self.tree, scrolled(self.summary))
        self.release_page = ReleasePage(scrolled(self.attacks))
        self.release_page.export_requested.connect(self.export_release)
        self.report_page = ReportPage()
        self.report_page.details_requested.connect(self.edit_report_details)
        self.report_page.export_requested.connect(self.export_report)
        contents = {
            "data": self.data_page,
            "grid": scrolled(self.grid),
            "run": self.run_split,
            "decide": scrolled(self.tradeoff),
            "release": self.release_page,
            "report": self.report_page,
        }
        self.steps = StepView(contents)
        self.central = self.steps.stack
        self.setCentralWidget(self.steps)
        self.session.dataset_changed.connect(self._anonymizability_data)
        self.anonymizability.resultsChanged.connect(self._keep_anonymizability)

    def _anonymizability_data(self, dataset: Any) -> None:
        """The anonymizability analysis takes the events; of data that exceed memory it says it needs them."""
        self.anonymizability.set_events(dataset.events if dataset is not None else None)
        if dataset is None and self.session.overview is not None:
            from privacy_studio.core.overview.project_data import NEEDS_MEMORY

            self.anonymizability.status.setText(f"The anonymizability analysis {NEEDS_MEMORY}.")

    def show_step(self, key: str, tab: str = "") -> None:
        """Fill the window with step ``key`` (and, in the Run step, the tab titled ``tab``)."""
        self.steps.show_step(key)
        titles = [self.tabs.tabText(i) for i in range(self.tabs.count())]
        if tab in titles:
            self.tabs.setCurrentIndex(titles.index(tab))

    def _tree_wanted(self, key: str, tab: str) -> None:
        self.show_step(key or "data", tab)

    def _keep_anonymizability(self) -> None:
        """Store the panel's new results in the project (its records were made in the worker; restoring a
        saved state emits nothing, so this is always a change)."""
        self.session.project.store(AnonymizabilityResults(self.anonymizability.state()))
        self.session.set_dirty(True)

    def _show_start_or_tabs(self) -> None:
        """The Data step shows the start page while there is neither data nor results; every step's line
        says again what is missing."""
        project = self.session.project
        empty = not self.session.has_data() and not project.results and not project.sources
        self.start_page.set_recent(self.recent_files())
        self.data_page.show_start(empty)
        progress = Progress(self.session.has_data(), len(self.grid.checked_cells()), len(project.results))
        self.steps.update_needs(progress)
        try:
            self.release_page.show_release(last_release(project.analyses))
        except AnalysisError as exc:
            self.release_page.show_release(None, f"The stored release record could not be read ({exc}).")
        self.report_page.show_details(ReportDetails.of(project.analyses))

    # -- state -------------------------------------------------------------------------------------
    def _restore_state(self) -> None:
        geometry = self.qsettings.value("window/geometry")
        state = self.qsettings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        self.run_split.setSizes([3 * self.height() // 4, self.height() // 4])

    def _update_title(self, *_: Any) -> None:
        self.setWindowTitle(f"{self.session.title}[*] — Privacy Studio")
        self.setWindowModified(self.session.dirty)
        project = self.session.project
        data = f" ({Path(project.sources[0].path).name})" if project.sources else ""
        for plot in self.plots:
            plot.set_context(f"{project.name}{data}")
        self.heatmap.set_criteria(project.tradeoff)

    def log(self, message: str, level: str = "info", details: str = "") -> None:
        self.log_panel.log(message, level, details)
        self.status_label.setText(message)

    def error(self, message: str, details: str = "") -> None:
        """Show a problem once, readably, and keep it in the messages."""
        self.log(message, "error", details)
        self.bottom_tabs.setCurrentWidget(self.log_panel)
        QMessageBox.warning(self, "Privacy Studio", message)

    # -- project files (the rest is gui/window_files.py) ----------------------------------------------
    def new_project(self) -> None:
        if self.maybe_save():
            self.show_project(Project(), [])
            self.grid.set_levels([], [])
            self.show_step("data")
            self.log("New project")

    def show_project(self, project: Project, anonymizability: list[dict[str, Any]]) -> None:
        """Swap ``project`` in (just opened or new): the run stops, every panel shows the project's state."""
        self.cancel_run()
        self.session.replace(project)
        self.grid.apply_settings(project.settings)
        self.grid.engine_box.set_choice(project.engine)
        self._offer_attributes(project)
        self._refresh_tree()  # the grid panel applies settings silently; the tree counts its ticked cells
        self.anonymizability.restore(anonymizability)
        self.show_step("run" if project.results else "grid" if project.sources else "data")

    # -- import ------------------------------------------------------------------------------------
    def show_import(self, path: str | None = None) -> ImportDialog | None:
        """Open the import dialog (not blocking). Imported data starts a new project when one with data is
        open, so the open project's results are never lost: unsaved changes are asked about first."""
        if self._has_work() and not self.maybe_save():
            return None
        dialog = ImportDialog(self.runner, self, path)
        dialog.imported.connect(self._imported)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        guard_wheel(dialog, self.wheel_guard)
        self.import_dialog = dialog
        dialog.open()
        return dialog

    def _has_work(self) -> bool:
        """Whether the open project holds data or results that a new import must not overwrite."""
        return bool(self.session.project.sources or self.session.project.results)

    @Slot(object, str, dict, str)
    def _imported(self, dataset: Any, path: str, reader: dict[str, Any], sha256: str) -> None:
        if self._has_work():
            self.cancel_run()
            self.session.replace(Project(name=Path(path).stem, settings=dict(self.session.project.settings)))
            self.anonymizability.restore([])
            self.log(f"Started a new project for {Path(path).name}; the previous one is unchanged on disk")
        elif self.session.project.name == "Untitled":
            self.session.project.name = Path(path).stem
        self.session.set_dataset(dataset, path, reader, sha256)
        self._offer_attributes(self.session.project)  # the attributes of other people no longer apply
        self.grid.set_hierarchy_levels(dataset.hierarchy)
        self._refresh_tree()  # the grid panel sets its levels silently: its ticked cells count again
        self._show_start_or_tabs()
        self.show_step("grid")
        self.log(
            f"Imported {path}: {dataset.report.rows_kept:,} rows kept, "
            f"{dataset.report.rows_rejected:,} rejected"
        )

    def _show_dataset(self, dataset: Any) -> None:
        overview, saved = self.session.overview, self.session.project.import_report
        if saved is None and overview is not None:  # not run yet: the report of the reading just done
            saved = overview.report.to_dict()
        self.summary.set_dataset(overview if overview is not None else dataset, _report_text(saved))
        self._show_start_or_tabs()

    def _show_import_report(self) -> None:
        """The import report alone, when it changed and the data did not (the information loss says whom it
        covers): drawing a national month's summary and map again took the window's thread 170 ms."""
        self.summary.set_report(_report_text(self.session.project.import_report))

    # -- tree --------------------------------------------------------------------------------------
    def _refresh_tree(self) -> None:
        titles = [self.tabs.tabText(i) for i in range(self.tabs.count())]
        self.tree.fill(self.session.project, len(self.grid.checked_cells()), titles)

    # -- closing -----------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.maybe_save():
            event.ignore()
            return
        self.qsettings.setValue("window/geometry", self.saveGeometry())
        self.qsettings.setValue("window/state", self.saveState())
        self.runner.cancel_all()
        self.runner.wait(10_000)
        event.accept()
