"""The window's run hooks: Run asks what is missing and starts the project's run (``core.project_run``,
the same as ``privacy-studio project run``) in the task runner; each finished profile is added to the
project and shown at once, then the analyses the run derived are kept; Cancel stops at the next chunk."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer, Slot
from PySide6.QtWidgets import QMessageBox

from privacy_studio.core.analyses import ComputedUtility, ProfileSizes, SeedSpread
from privacy_studio.core.measures.attributes import attribute_columns
from privacy_studio.core.overview.project_data import ProjectData, run_engine
from privacy_studio.core.overview.run import report_with, sampled_loss
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.project import Project, ProjectError
from privacy_studio.core.project_run import RunPlan, RunStep, project_files, run_steps
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis
from privacy_studio.gui.plots.base import PlotTab
from privacy_studio.gui.results import ArrivedResult, profile_label
from privacy_studio.gui.workers import Worker

if TYPE_CHECKING:
    from collections.abc import Iterator

    from privacy_studio.core.engines import EventFiles


#: What Run says when there is nothing to run on.
NO_DATA = "Import data first: File › Import data… (Ctrl+I), or open a project whose input files are present."


def _run(plan: RunPlan, dataset: Any, control: TaskControl) -> Iterator[ArrivedResult | RunStep]:
    """The project's run, each result with the record the plots read made here, in the worker (large
    results take a while to convert)."""
    for step in run_steps(plan, dataset, control):
        yield ArrivedResult(step, step.to_dict()) if isinstance(step, ProfileResult) else step


class RunHooks:
    """Mixin of ``MainWindow``: starting, following and cancelling a risk run."""

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
        if not self.session.has_data():
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
        """Start the project's run in the task runner; each finished profile is added to the project and
        plotted at once, the analyses derived from them are kept as they come."""
        if not self.session.has_data():
            self.error(NO_DATA)
            return None
        if self.run_worker is not None and not self.run_worker.spread_only:
            self.log("A run is already going on: cancel it first", "warning")
            return None
        settings = {**self.session.project.settings, **settings}
        try:
            risk = self.session.project.with_attributes(RiskSettings.from_dict(settings))
            risk.validate()
        except ValueError as exc:
            self.error(f"These settings cannot be run: {exc}")
            return None
        if not self._replace_results_agreed():
            self.log("Run not started: the earlier results are kept")
            return None
        self.session.set_settings(settings)
        try:
            files = self._events_files()
        except ProjectError as exc:
            self.error(f"The data exceed the memory and their files cannot be read: {exc}")
            return None
        plan = self._plan(files)
        if plan is None:
            return None
        self._stop_spread()
        if self.session.project.results:
            self.log(f"The {len(self.session.project.results)} profiles of the previous run are replaced")
        self.session.project.clear_results()  # and the analyses derived from them
        self.session.results_changed.emit([])
        self.run_worker = self._run_worker(plan)
        self.show_step("run")
        self.grid.run_button.setEnabled(False)
        self.run_action.setEnabled(False)
        self.log(
            f"Running {len(settings['cells'])} profiles, "
            f"p = {settings['p_values'][0]}..{settings['p_values'][-1]}, "
            f"on the {plan.engine.resolved(files)} engine"
        )
        self.runner.start(self.run_worker)
        return self.run_worker

    def _run_worker(self, plan: RunPlan) -> Worker:
        """The run's worker, its signals connected; a run superseded by a newer one (stopped during its seed
        spread) is no longer heard: its late steps would land in the new run's project."""
        name = plan.engine.name
        worker = Worker(_run, plan, self.session.dataset, name=f"risk grid and analyses ({name})")
        worker.spread_only = False  # set when only the seed spread is left: Run may then start anew
        project, dataset = self.session.project, self.session.dataset

        def current() -> bool:  # neither a newer run nor another project or data since it started
            same_data = self.session.project is project and self.session.dataset is dataset
            return worker is self.run_worker and same_data

        def cancelled(steps: list) -> None:
            if current():  # else stopped by a new run, which said so
                done = sum(isinstance(s, ArrivedResult) for s in steps)
                self.log(f"Run cancelled: the {done} profiles finished before are kept", "warning")

        worker.signals.partial.connect(lambda step: self._on_step(step) if current() else None)
        worker.signals.finished.connect(
            lambda steps: (
                self.log(f"Run finished: {sum(isinstance(s, ArrivedResult) for s in steps)} profiles")
                if current()
                else None
            )
        )
        worker.signals.cancelled.connect(cancelled)
        worker.signals.failed.connect(
            lambda msg, details: self.error(f"The run failed: {msg}", details) if current() else None
        )
        if self.session.dataset is None:
            grid = dict(self.session.project.settings)  # the grid this run and its loss are about
            worker.signals.finished.connect(
                lambda _steps: self._measure_sampled_loss(plan, grid) if current() else None
            )
        worker.signals.done.connect(self._run_done)
        return worker

    def _stop_spread(self) -> None:
        """A new run replaces the previous one's results: stop its seed spread, the only work it had left."""
        old, self.run_worker = self.run_worker, None
        if old is not None:
            old.cancel()
            self.log("The seed spread of the previous run is stopped: the new run replaces its results")

    def _spread_left(self) -> None:
        """Every profile and the decision are in: only the seed spread is left, so Run may start anew."""
        if self.run_worker is not None:
            self.run_worker.spread_only = True
        self.grid.run_button.setEnabled(True)
        self.run_action.setEnabled(True)
        self.log("Profiles done; measuring the headline's seed spread (Run now starts anew and stops it)")

    @Slot(str)
    def choose_attributes(self, path: str) -> bool:
        """A user-attributes file chosen in the Grid tab: the project names it and its columns are offered
        as sensitive attributes (risk by group follows it too)."""

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

        source = project.attributes_source()
        try:
            columns = attribute_columns(source.path) if source is not None and source.exists() else []
        except ValueError as exc:
            self.log(str(exc), "warning")
            columns = []
        self.grid.attribute_box.set_file(source.path if source is not None else None, columns)

    def _plan(self, files: EventFiles | None) -> RunPlan | None:
        """The project's run plan (None, said, when it cannot run); on data that exceed memory its engine
        reads the files out of core and information loss follows on a sample."""
        try:
            plan = RunPlan.of_project(self.session.project, files)
        except ValueError as exc:
            self.error(f"These settings cannot be run: {exc}")
            return None
        if self.session.dataset is None:
            plan = replace(plan, engine=run_engine(plan.engine, ProjectData(None, self.session.overview)))
        return plan

    def _events_files(self) -> EventFiles | None:
        """For engines that read files themselves, the project's events files (None: the data in memory)."""
        if self.session.dataset is None:  # the window holds no events to give the engine
            return self.session.project.events_files()  # ProjectError if missing: start_run says so
        try:
            return project_files(self.session.project)
        except ProjectError:
            self.log("The input files are not there: the engine works on the data in memory", "warning")
            return None

    def _measure_sampled_loss(self, plan: RunPlan, grid: dict[str, Any]) -> Worker:
        """Information loss of data that exceed memory, on a sample of people the log and the import
        report name (``core.overview.run``); the worker gets the run's plan and the overview, never the
        project."""

        project, overview = self.session.project, self.session.overview
        data = ProjectData(None, overview)
        worker = Worker(sampled_loss, plan, overview, name="information loss (sample)")
        worker.signals.finished.connect(lambda loss: self._sampled_loss_found(project, grid, data, loss))
        worker.signals.failed.connect(
            lambda msg, _details: self.log(f"Information loss not computed: {msg}", "warning")
        )
        self.runner.start(worker)
        return worker

    def _sampled_loss_found(self, project: Project, grid: dict[str, Any], data: Any, loss: Any) -> None:
        if project is not self.session.project or project.settings != grid:
            return  # another project was opened, or the grid changed, meanwhile: the loss is not theirs
        project.import_report = report_with(data.overview.report, loss.coverage)
        self.tradeoff.set_loss(loss.utility, loss.sizes)
        self._show_import_report()  # it now says whom the loss covers
        self.log(loss.coverage)

    @Slot(object)
    def _on_step(self, step: ArrivedResult | RunStep) -> None:
        """One step of the run, on the GUI thread: a finished profile is added and shown; the information
        loss and profile sizes go to the Decide step, which keeps them; the seed spread is kept."""
        if isinstance(step, ArrivedResult):
            self.session.add_result(step.result, step.record)
            self.log(f"Profile {profile_label(step.result)} done")
        elif isinstance(step, ComputedUtility):
            self.tradeoff.set_computed_utility(step)
        elif isinstance(step, ProfileSizes):  # the Decide step shows them and keeps them in the project
            self.tradeoff.set_unit_areas(step.unit_areas, step.period_seconds)
        elif isinstance(step, TradeoffAnalysis):  # yielded just before the seed spread
            self._spread_left()
        else:  # the seed spread (the decision is derived again on demand, and the Decide step says it)
            self.session.keep_step(step)
            if isinstance(step, SeedSpread):
                self.tradeoff.refresh()

    @Slot(object)
    def _run_done(self, worker: Worker) -> None:
        if worker is not self.run_worker:
            return  # superseded by a newer run, which is going on
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

    def _show_results(self, results: list[ProfileResult]) -> None:
        """Plots take the results' records at once (each redraws when shown); the table is rebuilt once a
        burst of results is over."""
        records = self.session.records(results)
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
        self.results_table.set_results(self.session.project.results)
