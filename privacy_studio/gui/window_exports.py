"""The window's File › Export actions and report details: plot, PDF report, release and aggregate, each
long part in the task runner and each written file recorded in the project."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
)

from privacy_studio.core.analyses import record_release
from privacy_studio.core.report.record import project_digest
from privacy_studio.core.report_details import ReportDetails
from privacy_studio.gui.dialogs.report_details_dialog import ReportDetailsDialog
from privacy_studio.gui.plots.base import PlotTab
from privacy_studio.gui.workers import Worker

if TYPE_CHECKING:
    from privacy_studio.core.aggregate import AggregateManifest
    from privacy_studio.core.release import ReleaseManifest
    from privacy_studio.core.tradeoff.candidates import Candidate
    from privacy_studio.gui.dialogs.aggregate_dialog import AggregateDialog
    from privacy_studio.gui.dialogs.release_dialog import ReleaseDialog


class ExportActions:
    """Mixin of ``MainWindow``: the export actions and the report details dialog."""

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
            from privacy_studio.rendering import export_report
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
        record_release(self.session.project.analyses, "aggregate", manifest)
        self.session.set_dirty(True)
        self.session.changed.emit()
        self.log(f"Aggregate written: {manifest.file}, {manifest.options.label} (manifest beside it)")
