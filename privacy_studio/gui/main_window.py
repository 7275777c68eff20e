"""The main window: the step bar over one step at a time (Data → Grid → Run → Decide → Release → Report),
the toolbar with Run and Cancel, and the status bar with progress."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, Qt, QTimer, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTabWidget,
    QToolBar,
    QWidget,
)

from privacy_studio import __version__
from privacy_studio.core.analyses import AnonymizabilityResults, ReleaseRecord, record_release
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.project import Project, ProjectError
from privacy_studio.core.report.record import project_digest
from privacy_studio.core.report_details import ReportDetails
from privacy_studio.gui.dialogs.import_dialog import ImportDialog
from privacy_studio.gui.dialogs.report_details_dialog import ReportDetailsDialog
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
from privacy_studio.gui.results import Record, as_record, profile_label
from privacy_studio.gui.screen_fit import fit_to_screen
from privacy_studio.gui.session import Session
from privacy_studio.gui.start_page import SAMPLE_PROJECT, StartPage
from privacy_studio.gui.step_pages import DataPage, ProjectTree, ReleasePage, ReportPage
from privacy_studio.gui.steps import STEPS, Progress, StepView, scrolled
from privacy_studio.gui.wheel_guard import WheelGuard, guard_wheel
from privacy_studio.gui.window_files import ProjectFiles
from privacy_studio.gui.workers import TaskRunner, Worker, format_duration

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from privacy_studio.core.aggregate import AggregateManifest
    from privacy_studio.core.engines import EventFiles
    from privacy_studio.core.engines.engine_choice import EngineChoice
    from privacy_studio.core.release import ReleaseManifest
    from privacy_studio.core.risk.settings import RiskSettings
    from privacy_studio.core.tradeoff.candidates import Candidate
    from privacy_studio.gui.dialogs.aggregate_dialog import AggregateDialog
    from privacy_studio.gui.dialogs.release_dialog import ReleaseDialog

#: During a run, the results table is rebuilt at most this often (milliseconds), and once at the end.
TABLE_DELAY_MS = 1500
#: What Run says when there is nothing to run on.
NO_DATA = "Import data first: File › Import data… (Ctrl+I), or open a project whose input files are present."


def _report_text(report: dict[str, Any] | None) -> str:
    if not report:
        return ""
    from privacy_studio.core.io.report import ImportReport

    return ImportReport.from_dict(report).summary_text()


def _records(run_grid: Callable[..., Iterator[Any]], *args: Any, control: TaskControl) -> Iterator[Record]:
    """The run's results as the window keeps them, converted in the worker (large results take a while)."""
    for result in run_grid(*args, control=control):
        yield as_record(result)


class MainWindow(ProjectFiles, QMainWindow):
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

        self.status_label = QLabel("Ready")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(260)
        self.eta_label = QLabel("")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running computation at its next step (Esc)")
        self.cancel_button.clicked.connect(self.cancel_shown)
        self.wheel_guard = WheelGuard(self)
        bar = self.statusBar()
        bar.addWidget(self.status_label, 1)
        for widget in (self.progress, self.eta_label, self.cancel_button):
            bar.addPermanentWidget(widget)

        self._build_menus()
        self._build_toolbar()
        self._show_busy(False)
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
        self._restore_state()
        self._refresh_tree()
        self._update_title()
        self._show_start_or_tabs()
        self.show_step("data")
        guard_wheel(self, self.wheel_guard)

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
        self.session.dataset_changed.connect(
            lambda ds: self.anonymizability.set_events(ds.events if ds is not None else None)
        )
        self.anonymizability.resultsChanged.connect(self._keep_anonymizability)

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

    def _action(self, menu: Any, text: str, slot: Any, shortcut: Any = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&New project", self.new_project, QKeySequence.StandardKey.New)
        self._action(file_menu, "&Open project…", self.ask_open, QKeySequence.StandardKey.Open)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self._action(file_menu, "&Save", self.save, QKeySequence.StandardKey.Save)
        self._action(file_menu, "Save &as…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file_menu.addSeparator()
        self._action(
            file_menu, "&Import data…", lambda: self.show_import(), "Ctrl+I", "Read a data file or folder"
        )
        self._action(
            file_menu, "&Export plot…", self.export_plot, "Ctrl+E", "Save the current plot or its data"
        )
        self._action(file_menu, "Export &report…", self.export_report, "Ctrl+Shift+E", "Write the PDF report")
        self._action(
            file_menu,
            "Export re&lease…",
            lambda: self.export_release(),
            tip="Write the data at a profile, measured again",
        )
        self._action(
            file_menu,
            "Export a&ggregate…",
            self.export_aggregate,
            tip="Write people per place (or per move) and time bin with differential privacy (OpenDP)",
        )
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        project_menu = self.menuBar().addMenu("&Project")
        self._action(
            project_menu,
            "Report &details…",
            self.edit_report_details,
            tip="The project's name and description, and the texts of the report's decision record",
        )
        run_menu = self.menuBar().addMenu("&Run")
        self.run_action = self._action(
            run_menu, "&Run", self.request_run, "Ctrl+R", "Measure the risk of the ticked cells (Ctrl+R)"
        )
        self.cancel_action = self._action(
            run_menu, "&Cancel", self.cancel_shown, "Esc", "Stop the running computation (Esc)"
        )
        self.cancel_action.setEnabled(False)
        view_menu = self.menuBar().addMenu("&View")
        for number, step in enumerate(STEPS, 1):
            self._action(
                view_menu,
                f"&{number} {step.title}",
                lambda _=False, k=step.key: self.show_step(k),
                f"Ctrl+{number}",
                step.purpose,
            )
        view_menu.addSeparator()
        view_menu.addAction(self.help_dock.toggleViewAction())
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&Measures help", self.show_help, QKeySequence.StandardKey.HelpContents)
        self._action(help_menu, "&About Privacy Studio", self.show_about)
        self._update_recent_menu()

    def _build_toolbar(self) -> None:
        """Run and Cancel where they are always in view, whatever the window's size."""
        bar = QToolBar("Run")
        bar.setObjectName("RunToolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in (self.run_action, self.cancel_action):
            bar.addAction(action)
            action.setToolTip(action.statusTip())
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.toolbar = bar

    def _show_start_or_tabs(self) -> None:
        """The Data step shows the start page while there is neither data nor results; every step's line
        says again what is missing."""
        project = self.session.project
        empty = self.session.dataset is None and not project.results and not project.sources
        self.start_page.set_recent(self.recent_files())
        self.data_page.show_start(empty)
        progress = Progress(
            self.session.dataset is not None, len(self.grid.checked_cells()), len(project.results)
        )
        self.steps.update_needs(progress)
        self.release_page.show_release(project.analysis(ReleaseRecord))
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
        self.summary.set_dataset(dataset, _report_text(self.session.project.import_report))
        self._show_start_or_tabs()

    # -- runs --------------------------------------------------------------------------------------
    @Slot(dict)
    def _settings_edited(self, settings: dict[str, Any]) -> None:
        """Keep settings the grid panel does not show (e.g. ``em_samples``) when it changes the others."""
        self.session.set_settings({**self.session.project.settings, **settings})

    def warm_up(self) -> Worker:
        """Compile (or load from the cache) the kernels in the background while the user looks around."""
        from privacy_studio.core.warmup import warm_up

        worker = Worker(warm_up, name="preparing the risk engine")
        worker.background = True  # nothing to cancel: it only makes the first run start sooner
        self.status_label.setText(
            "Preparing the risk engine in the background (on first start this takes a minute): "
            "you can import data meanwhile"
        )
        worker.signals.finished.connect(lambda _: self.log("Risk engine ready"))
        worker.signals.failed.connect(
            lambda msg, details: self.log(f"Risk engine warm-up failed: {msg}", "warning", details)
        )
        self.runner.start(worker)
        return worker

    def request_run(self) -> None:
        """Run (toolbar, Ctrl+R): says what is missing when there is no data or no ticked cell."""
        if self.session.dataset is None:
            self.grid.message.setText(NO_DATA)
            self.log(NO_DATA, "warning")
            return
        self.grid._request_run()

    def _replace_results_agreed(self) -> bool:
        """Ask before a run replaces earlier results (they stay in the saved project file)."""
        count = len(self.session.project.results)
        if not count:
            return True
        answer = QMessageBox.question(
            self,
            "Replace the results?",
            f"This run replaces the {count} profiles computed before. Save the project first (Ctrl+S) or "
            "under another name to keep them.\n\nDiscard the earlier results and run?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    @Slot(dict)
    def start_run(self, settings: dict[str, Any]) -> Worker | None:
        """Run the grid in a worker; each finished profile is added to the project and plotted at once."""
        if self.session.dataset is None:
            self.error(NO_DATA)
            return None
        if self.run_worker is not None:
            self.log("A run is already going on: cancel it first", "warning")
            return None
        from privacy_studio.core.project_run import with_attributes
        from privacy_studio.core.risk.settings import RiskSettings

        settings = {**self.session.project.settings, **settings}
        try:
            risk = with_attributes(self.session.project, RiskSettings.from_dict(settings))
            risk.validate()
        except ValueError as exc:
            self.error(f"These settings cannot be run: {exc}")
            return None
        if not self._replace_results_agreed():
            self.log("Run not started: the earlier results are kept")
            return None
        self.session.set_settings(settings)
        if self.session.project.results:
            self.log(f"The {len(self.session.project.results)} profiles of the previous run are replaced")
        self.session.project.results = []
        self.session.results_changed.emit([])
        choice, files = self._engine_and_files()
        worker = Worker(
            _records, choice.run_grid, self.session.dataset, risk, files, name=f"risk grid ({choice.name})"
        )
        worker.signals.partial.connect(self._on_profile)
        worker.signals.finished.connect(lambda items: self.log(f"Run finished: {len(items)} profiles"))
        worker.signals.finished.connect(lambda _items: self.measure_information_loss(risk))
        worker.signals.cancelled.connect(
            lambda items: self.log(
                f"Run cancelled: the {len(items)} profiles finished before are kept", "warning"
            )
        )
        worker.signals.failed.connect(lambda msg, details: self.error(f"The run failed: {msg}", details))
        worker.signals.done.connect(self._run_done)
        self.run_worker = worker
        self.show_step("run")
        self.grid.run_button.setEnabled(False)
        self.run_action.setEnabled(False)
        self.log(
            f"Running {len(settings['cells'])} profiles, "
            f"p = {settings['p_values'][0]}..{settings['p_values'][-1]}, "
            f"on the {choice.resolved(files)} engine"
        )
        self.runner.start(worker)
        return worker

    @Slot(str)
    def choose_attributes(self, path: str) -> bool:
        """A user-attributes file chosen in the Grid tab: the project names it and its columns are offered
        as sensitive attributes (risk by group follows it too)."""
        from privacy_studio.core.measures.attributes import attribute_columns

        try:
            columns = attribute_columns(path)
        except ValueError as exc:
            self.error(str(exc))
            return False
        self.session.set_attributes_file(path)
        self.grid.attribute_box.set_file(path, columns)
        self.tradeoff.load_project_attributes(self.session.project)
        self.log(f"User attributes: {path} ({', '.join(columns)})")
        return True

    def _offer_attributes(self, project: Project) -> None:
        """Offer the columns of the project's user-attributes file (its header only) in the Grid tab."""
        from privacy_studio.core.measures.attributes import attribute_columns

        source = project.attributes_source()
        try:
            columns = attribute_columns(source.path) if source is not None and source.exists() else []
        except ValueError as exc:
            self.log(str(exc), "warning")
            columns = []
        self.grid.attribute_box.set_file(source.path if source is not None else None, columns)

    def measure_information_loss(self, risk: RiskSettings) -> Worker | None:
        """After a run, compute every profile's information loss off the GUI thread; the Decide step
        weighs it when no expert scored the profiles, and the project keeps it."""
        from privacy_studio.core.project_run import computed_utility

        if self.session.dataset is None:
            return None
        worker = Worker(computed_utility, self.session.dataset, risk, name="information loss")
        worker.signals.finished.connect(self.tradeoff.set_computed_utility)
        worker.signals.failed.connect(
            lambda msg, _details: self.log(f"Information loss not computed: {msg}", "warning")
        )
        self.runner.start(worker)
        return worker

    def _engine_and_files(self) -> tuple[EngineChoice, EventFiles | None]:
        """The project's engine and, for engines that read files themselves, its events files."""
        choice = self.session.project.engine_choice()
        files = None
        if choice.name != "numba":
            try:
                files = self.session.project.events_files()
            except ProjectError:
                self.log("The input files are not there: the engine works on the data in memory", "warning")
        return choice, files

    @Slot(object)
    def _on_profile(self, record: Record) -> None:
        self.session.add_result(record)
        self.log(f"Profile {profile_label(record)} done")

    @Slot(object)
    def _run_done(self, _worker: Worker) -> None:
        self.run_worker = None
        self.grid.run_button.setEnabled(True)
        self.run_action.setEnabled(True)
        self._fill_table()
        current = self.tabs.currentWidget()
        if isinstance(current, PlotTab):
            current.flush()
        QTimer.singleShot(0, self.tradeoff.catch_up)  # once per run, after the loop has turned

    def cancel_run(self) -> None:
        """Cancel the risk run, if one is going on (finished profiles stay in the project)."""
        if self.run_worker is not None:
            self.run_worker.cancel()

    def cancel_shown(self) -> None:
        """Cancel the task the status bar shows (a run, a data read, an analysis); the button says so
        until the task stops at its next step."""
        if self.status_worker is not None and not self.status_worker.is_cancelled:
            self.status_worker.cancel()
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
            self.cancel_action.setEnabled(False)
            self.cancel_action.setText("Cancelling…")
            self.status_label.setText(f"{self.status_worker.name}: cancelling at the next step…")

    def _show_results(self, records: list[dict[str, Any]]) -> None:
        """Plots take the records at once (each redraws when shown); the table is rebuilt once a burst
        of results is over."""
        settings = self.session.project.settings
        self.heatmap.set_axes(settings.get("spatial") or [], settings.get("temporal") or [])
        for plot in self.plots:
            plot.set_records(records)
        self._show_start_or_tabs()
        if self.run_worker is None:
            self._fill_table()
        elif not self.table_timer.isActive():
            self.table_timer.start()

    def _fill_table(self) -> None:
        self.table_timer.stop()
        self.results_table.set_records(self.session.project.results)

    # -- status bar --------------------------------------------------------------------------------
    @Slot(object)
    def _track_status(self, worker: Worker) -> None:
        if worker.background:
            return
        self.status_worker = worker
        worker.signals.progress.connect(lambda f, m, w=worker: self._on_progress(w, f, m))
        worker.signals.done.connect(self._status_done)
        self.status_label.setText(f"{worker.name}…")
        self.progress.setValue(0)
        self.eta_label.setText("")
        self._show_busy(True)

    def _on_progress(self, worker: Worker, fraction: float, message: str) -> None:
        if worker is not self.status_worker:
            return
        self.progress.setValue(round(fraction * 1000))
        self.status_label.setText(f"{worker.name}: {message}" if message else worker.name)
        remaining = worker.eta.remaining(fraction)
        self.eta_label.setText("" if remaining is None else f"{format_duration(remaining)} left")

    @Slot(object)
    def _status_done(self, worker: Worker) -> None:
        if worker is self.status_worker:
            self.status_worker = None
            self._show_busy(False)

    def _show_busy(self, busy: bool) -> None:
        for widget in (self.progress, self.eta_label, self.cancel_button):
            widget.setVisible(busy)
        self.cancel_button.setEnabled(busy)
        self.cancel_button.setText("Cancel")
        self.cancel_action.setEnabled(busy)
        self.cancel_action.setText("&Cancel")

    # -- tree --------------------------------------------------------------------------------------
    def _refresh_tree(self) -> None:
        titles = [self.tabs.tabText(i) for i in range(self.tabs.count())]
        self.tree.fill(self.session.project, len(self.grid.checked_cells()), titles)

    # -- export and help ---------------------------------------------------------------------------
    def export_plot(self) -> None:
        plot = self.tabs.currentWidget()
        if not isinstance(plot, PlotTab):
            self.log("The current tab is not a plot", "warning")
            return
        path, chosen = QFileDialog.getSaveFileName(
            self,
            f"Export {plot.title}",
            plot.title.replace(" ", "_"),
            "PNG image (*.png);;SVG drawing (*.svg);;CSV data (*.csv)",
        )
        if path:
            if Path(path).suffix.lower() not in (".png", ".svg", ".csv"):
                path += "." + chosen.split("*.")[1].rstrip(")")
            try:
                plot.export(path)
            except (OSError, ValueError) as exc:
                self.error(f"Cannot export: {exc}")
                return
            self.log(f"Exported {path}")

    def edit_report_details(self) -> None:
        """Project ▸ Report details: name, description and decision-record texts, kept in the project."""
        project = self.session.project
        details = ReportDetails.of(project.analyses)
        stale = details.signed_for_earlier(project_digest(project))
        dialog = ReportDetailsDialog(project.name, details, self, stale=stale)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.session.set_report_details(*dialog.values(), sign_again=dialog.signs_again())

    def export_report(self) -> Worker | None:
        """File ▸ Export report: the PDF is built and painted in a worker (it took 1–4 s on the GUI thread),
        with progress and cancel; a cancelled or failed export leaves any earlier file as it was."""
        try:
            from privacy_studio.gui.report_pdf import export_report
        except ImportError:
            self.error("The PDF report is not available in this build.")
            return None
        path, _ = QFileDialog.getSaveFileName(
            self, "Export report", f"{self.session.title}.pdf", "PDF (*.pdf)"
        )
        if not path:
            return None
        worker = Worker(
            export_report, self.session.project, path, dataset=self.session.dataset, name="report"
        )
        worker.signals.finished.connect(lambda _path: self.log(f"Report written to {path}"))
        worker.signals.failed.connect(
            lambda msg, details: self.error(f"Cannot write the report: {msg}", details)
        )
        worker.signals.cancelled.connect(
            lambda _items: self.log("Report export cancelled: nothing was written")
        )
        self.runner.start(worker, kind="report")
        return worker

    def export_release(self, candidate: Candidate | None = None) -> ReleaseDialog:
        """Open the release dialog on the session's data, set from ``candidate`` (else the current search's
        recommended candidate, if any); a written release is recorded in the project."""
        from privacy_studio.gui.dialogs.release_dialog import ReleaseDialog

        dialog = ReleaseDialog(self.runner, self.session.project, self.session.dataset, self)
        candidate = candidate or self.tradeoff.candidates.recommended()
        if candidate is not None:
            dialog.use_candidate(candidate)
        dialog.released.connect(self._released)
        dialog.show()
        return dialog

    def _released(self, manifest: ReleaseManifest) -> None:
        record_release(self.session.project.analyses, "rows", manifest)
        self.session.set_dirty(True)
        self.session.changed.emit()
        self.log(f"Release written: {manifest.release_file} at {manifest.profile_label} (manifest beside it)")

    def export_aggregate(self) -> AggregateDialog:
        """Open the aggregate dialog on the session's data; a written aggregate is recorded in the project."""
        from privacy_studio.gui.dialogs.aggregate_dialog import AggregateDialog

        dialog = AggregateDialog(self.runner, self.session.project, self.session.dataset, self)
        dialog.written.connect(self._aggregated)
        dialog.show()
        return dialog

    def _aggregated(self, manifest: AggregateManifest) -> None:
        from privacy_studio.core.analyses import AggregateReleases

        project = self.session.project
        records = project.analysis(AggregateReleases) or AggregateReleases()
        records.add(manifest)
        project.store(records)
        self.session.set_dirty(True)
        self.session.changed.emit()
        self.log(f"Aggregate written: {manifest.file}, {manifest.options.label} (manifest beside it)")

    def show_help(self) -> None:
        self.help_dock.show()
        self.help_dock.raise_()

    def about_text(self) -> str:
        from privacy_studio.versions import library_versions

        rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in library_versions().items())
        return (
            f"<h3>Privacy Studio {__version__}</h3>"
            "<p>Measures how identifiable the people in a behavioural dataset are, "
            "across generalizations.</p>"
            f"<table>{rows}</table>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, "About Privacy Studio", self.about_text())

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
