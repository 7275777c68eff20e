"""The Decide step's release candidates (issue #29 point 4) and what a decision leaves in the project coming
back after save and open (issue #27 point 4): candidates, criteria reasons, sign-off state, extrapolation."""

from __future__ import annotations

import numpy as np

from privacy_studio.core.analyses import PopulationExtrapolation
from privacy_studio.core.report.record import project_digest
from privacy_studio.core.report_details import ReportDetails
from privacy_studio.core.tradeoff.candidates import SearchResult
from privacy_studio.core.tradeoff.extrapolation import SubsampleCurve
from privacy_studio.gui.dialogs.release_dialog import ReleaseDialog
from privacy_studio.gui.main_window import MainWindow
from tests.gui.project_files import WAIT_MS, open_and_wait, save_and_wait, settle
from tests.gui.test_flow import CELLS, run_and_wait, tick_cells

REASON = "the recipient studies frequent travellers only"


def search_and_wait(qtbot, window) -> SearchResult:
    """Search protections from the Decide step, as the button does; the stored search."""
    worker = window.tradeoff.candidates.start_search()
    assert worker is not None and worker.name == "protection search"
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=WAIT_MS)
    found = window.session.project.analysis(SearchResult)
    assert found is not None, window.tradeoff.candidates.summary.text()
    return found


def table_texts(tab) -> list[list[str]]:
    table = tab.table
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def decide(qtbot, window) -> SearchResult:
    """A decision as an officer makes it: a run, a changed limit with its reason, an extrapolation, the
    protection search and a signature over these figures."""
    run_and_wait(qtbot, window, tick_cells(window, CELLS[:2]))
    settle(window)
    panel = window.tradeoff
    panel.criteria_boxes["max_excluded"].setValue(40.0)
    panel.limit_reason.setText(REASON)
    panel.limit_reason.editingFinished.emit()
    assert window.session.project.tradeoff["limit_reasons"] == {"max_excluded": REASON}
    panel._population_of("unicity", 3, panel.analysis.labels[0])
    panel.set_subsample_curve(SubsampleCurve(np.array([50.0, 100.0, 200.0]), np.array([0.5, 0.4, 0.33])))
    found = search_and_wait(qtbot, window)
    details = ReportDetails(signer_name="A. Officer", decision="release approved")
    window.session.set_report_details("Decided", details)
    return found


def test_candidates_are_listed_and_one_sets_the_release_dialog(imported_window, qtbot):
    window = imported_window
    run_and_wait(qtbot, window, tick_cells(window, CELLS[:2]))
    settle(window)
    tab = window.tradeoff.candidates
    assert tab.result is None and tab.table.rowCount() == 0 and "Search protections" in tab.summary.text()
    found = search_and_wait(qtbot, window)
    rows = table_texts(tab)
    assert len(rows) == len(found.candidates) > len(CELLS[:2])  # every profile × the suppression ladder
    assert [r[0] for r in rows] == [c.name() for c in found.candidates]
    assert all("_" not in r[0] and ":" not in r[0] for r in rows), "candidates named in words"
    if found.recommended is not None:
        assert sum(r[3] == "★ recommended" for r in rows) == 1
        assert tab.chosen() == found.recommended and tab.recommended() == found.recommended
        assert found.recommended.name() in window.tradeoff.recommendation.text(), "named on the Pareto tab"
    else:
        assert found.why_none in tab.summary.text()
        tab.table.selectRow(1)
    # the Pareto plot draws every measured candidate at (utility after suppression, risk judged as written)
    views = window.tradeoff
    x, y = views.release_points.getData()
    measured = [
        c for c in found.measured() if c.checks and c.checks[0].value is not None and c.utility == c.utility
    ]
    assert sorted(zip(x, y, strict=True)) == sorted((c.utility, c.checks[0].value) for c in measured)
    assert f"{len(measured)} release candidates" in views.release_note.text()
    if found.recommended is not None:  # named in full in the note; on the plot in full or in short
        assert f"Recommended: {found.recommended.name()}" in views.release_note.text()
        assert views.release_label is not None
        assert "released" in views.release_label.textItem.toPlainText()
    chosen = tab.chosen()
    assert chosen is not None
    with qtbot.waitSignal(tab.use_requested) as signal:
        tab.use_button.click()
    assert signal.args[0] == chosen
    dialogs = window.findChildren(ReleaseDialog)
    assert len(dialogs) == 1, "Use for release opens the release dialog"
    dialog = dialogs[0]
    assert dialog.profile.currentText() == chosen.profile
    assert dialog.rows.currentData() == "points"
    for name, (tick, value) in dialog.thresholds.items():
        threshold = getattr(chosen.suppression, name)
        assert tick.isChecked() == (threshold is not None)
        assert threshold is None or value.value() == threshold
    assert chosen.name() in dialog.start_note.text()
    dialog.close()


def test_why_a_search_could_not_start_gives_way_once_the_run_has_come(imported_window, qtbot):
    """Search pressed before the run says what is missing; once the run and its analysis are in, the tab
    offers the search again (the old sentence stayed, and the window's walk photographed it)."""
    window = imported_window
    tab = window.tradeoff.candidates
    assert tab.start_search() is None and tab.summary.text().startswith("Import the data and run the grid")
    run_and_wait(qtbot, window, tick_cells(window, CELLS[:2]))
    settle(window)
    assert "Search protections" in tab.summary.text()


def test_a_changed_choice_marks_the_search_out_of_date(imported_window, qtbot):
    window = imported_window
    run_and_wait(qtbot, window, tick_cells(window, CELLS[:2]))
    settle(window)
    search_and_wait(qtbot, window)
    tab = window.tradeoff.candidates
    assert tab.current and "Out of date" not in tab.summary.text()
    window.tradeoff.ceiling.setValue(window.tradeoff.ceiling.value() / 2)
    assert not tab.current and tab.summary.text().startswith("⚠ Out of date")
    assert len(window.tradeoff.release_points.getData()[0]) == 0, "an out-of-date search is not drawn"
    assert tab.recommended() is None, "an out-of-date search recommends nothing for the release dialog"


def test_a_decision_comes_back_whole_after_save_and_open(imported_window, qtbot, tmp_path, qsettings):
    window = imported_window
    found = decide(qtbot, window)
    before = {
        "candidates": table_texts(window.tradeoff.candidates),
        "summary": window.tradeoff.candidates.summary.text(),
        "extrapolation": window.tradeoff.extrapolated_label.toPlainText(),
        "points": window.tradeoff.sub_points.getData(),
        "record": window.report_page.record.text(),
    }
    path = tmp_path / "decided.psproj"
    assert save_and_wait(qtbot, window, path)

    other = MainWindow(qsettings)
    qtbot.addWidget(other)
    assert open_and_wait(qtbot, other, path, data=True)
    project = other.session.project
    # candidates: the same search, current, shown the same
    assert project.analysis(SearchResult) == found
    assert other.tradeoff.candidates.current
    assert table_texts(other.tradeoff.candidates) == before["candidates"]
    assert other.tradeoff.candidates.summary.text() == before["summary"]
    # criteria reasons: in the project and in the Decide step's field
    assert project.tradeoff["limit_reasons"] == {"max_excluded": REASON}
    assert other.tradeoff.limit_reason.text() == REASON
    assert other.tradeoff.choices()["limit_reasons"] == {"max_excluded": REASON}
    # sign-off: the same decision, still signed over these figures
    details = ReportDetails.of(project.analyses)
    assert (details.signer_name, details.decision) == ("A. Officer", "release approved")
    assert not details.signed_for_earlier(project_digest(project))
    assert other.report_page.record.text() == before["record"]
    # extrapolation: drawn again as saved
    assert project.analysis(PopulationExtrapolation) is not None
    assert other.tradeoff.extrapolated_label.toPlainText() == before["extrapolation"]
    for got, want in zip(other.tradeoff.sub_points.getData(), before["points"], strict=True):
        np.testing.assert_allclose(got, want)
    assert not other.session.dirty, "showing what was saved is no edit"
    settle(other)
