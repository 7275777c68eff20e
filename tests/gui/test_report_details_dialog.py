"""Project ▸ Report details: the name and the decision-record texts are edited in a dialog, kept in the
project (saved with it) and an empty name is refused."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog

from privacy_studio.core.project import Project
from privacy_studio.core.report_details import DEFAULT_P_RATIONALE, ReportDetails


def test_dialog_gives_back_what_was_typed(qtbot) -> None:
    from privacy_studio.gui.dialogs.report_details_dialog import ReportDetailsDialog

    dialog = ReportDetailsDialog("Old name", ReportDetails(purpose="before"))
    qtbot.addWidget(dialog)
    assert dialog.texts["purpose"].toPlainText() == "before"
    assert dialog.texts["p_rationale"].placeholderText() == DEFAULT_P_RATIONALE
    dialog.name.setText("  Night buses 2026 ")
    dialog.texts["purpose"].setPlainText("Plan night buses")
    dialog.lines["recipient"].setText("Transport office")
    dialog.lines["signer_name"].setText("A. Officer")
    dialog.decision.setCurrentText("release approved with conditions")
    name, details = dialog.values()
    assert name == "Night buses 2026"
    assert details == ReportDetails(
        purpose="Plan night buses",
        recipient="Transport office",
        signer_name="A. Officer",
        decision="release approved with conditions",
    )


def test_an_empty_name_cannot_be_accepted(qtbot) -> None:
    from privacy_studio.gui.dialogs.report_details_dialog import ReportDetailsDialog

    dialog = ReportDetailsDialog("A project", ReportDetails())
    qtbot.addWidget(dialog)
    dialog.name.setText("   ")
    assert not dialog.ok.isEnabled() and "needs a name" in dialog.problem.text()
    dialog.name.setText("B")
    assert dialog.ok.isEnabled() and dialog.problem.text() == ""


def test_window_keeps_the_details_in_the_saved_project(window, qtbot, monkeypatch, tmp_path) -> None:
    from privacy_studio.gui.dialogs import report_details_dialog

    def fill(dialog) -> QDialog.DialogCode:
        dialog.name.setText("Night buses")
        dialog.lines["release_format"].setText("district, week")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(report_details_dialog.ReportDetailsDialog, "exec", fill)
    action = next(a for a in window.menuBar().actions() if a.text() == "&Project").menu().actions()[0]
    action.trigger()
    assert window.session.dirty and "Night buses" in window.windowTitle()
    path = window.session.save(tmp_path / "p.psproj")
    saved = Project.load(path)
    assert saved.name == "Night buses"
    assert ReportDetails.of(saved.analyses).release_format == "district, week"


def test_cancel_changes_nothing(window, monkeypatch) -> None:
    from privacy_studio.gui.dialogs import report_details_dialog

    def cancel(dialog) -> QDialog.DialogCode:
        dialog.name.setText("Something else")
        return QDialog.DialogCode.Rejected

    monkeypatch.setattr(report_details_dialog.ReportDetailsDialog, "exec", cancel)
    before = window.session.project.name
    window.edit_report_details()
    assert window.session.project.name == before and not window.session.dirty


def test_results_table_explains_level_codes_in_words(qtbot) -> None:
    from privacy_studio.gui.panels.results_table import ResultsTable

    table = ResultsTable()
    qtbot.addWidget(table)
    table.set_records(
        [{"spatial": "grid:1", "temporal": "6h", "n_users": 3, "by_p": [{"p": 1, "unicity": 0.5}]}]
    )
    assert table.cell(0, "spatial").tip == "1 km squares"
    assert table.cell(0, "temporal").tip == "6-hour bins"


def test_a_signature_made_over_other_figures_is_marked_and_can_be_renewed(window, monkeypatch) -> None:
    """Issue #24: sign, change the seed, and the window shows 'signed for earlier results' until re-signed."""
    from privacy_studio.core.report.record import project_digest
    from privacy_studio.gui.dialogs import report_details_dialog

    def sign(dialog) -> QDialog.DialogCode:
        dialog.lines["signer_name"].setText("A. Officer")
        dialog.decision.setCurrentText("release approved")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(report_details_dialog.ReportDetailsDialog, "exec", sign)
    window.edit_report_details()
    project = window.session.project
    assert not ReportDetails.of(project.analyses).signed_for_earlier(project_digest(project))
    project.settings["seed"] = int(project.settings.get("seed", 0)) + 1  # a change after signing
    assert ReportDetails.of(project.analyses).signed_for_earlier(project_digest(project))
    seen = {}

    def renew(dialog) -> QDialog.DialogCode:
        seen["marked"] = not dialog.stale.isHidden() and "earlier results" in dialog.stale.text()
        dialog.resign.setChecked(True)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(report_details_dialog.ReportDetailsDialog, "exec", renew)
    window.edit_report_details()
    assert seen["marked"]
    assert not ReportDetails.of(project.analyses).signed_for_earlier(project_digest(project))
