"""Opening a project whose data exceed memory (forced on the sample subset): the Data step shows the
summary, import report and map of places from DuckDB's counts, the grid runs out of core and the results
are shown — and the project's events are never loaded into the window."""

from __future__ import annotations

from pathlib import Path

from privacy_studio.core.overview.project_data import SIZE_ENV
from privacy_studio.core.project import Project
from tests.gui.project_files import WAIT_MS, open_and_wait
from tests.overview.helpers import forced_large, large_project

from .test_flow import run_and_wait


def form_rows(panel) -> dict[str, str]:
    form = panel.form
    return {
        form.itemAt(i, form.ItemRole.LabelRole).widget().text(): form.itemAt(i, form.ItemRole.FieldRole)
        .widget()
        .text()
        for i in range(form.rowCount())
    }


def open_large(window, qtbot, sample_subset, folder: Path, monkeypatch) -> tuple[Path, list[str]]:
    """The sample subset opened in the window as data larger than memory, its overview in (``forced_large``:
    the project's path and the files the in-memory reader is asked to read)."""
    path, loaded = forced_large(sample_subset, folder, monkeypatch)
    assert open_and_wait(qtbot, window, path)
    qtbot.waitUntil(lambda: window.session.overview is not None, timeout=WAIT_MS)
    return path, loaded


def test_a_project_larger_than_memory_opens_and_runs_without_its_events(
    window, qtbot, sample_subset, tmp_path, monkeypatch
) -> None:
    path, loaded = open_large(window, qtbot, sample_subset, tmp_path, monkeypatch)
    assert window.session.dataset is None
    rows = form_rows(window.summary)
    assert rows["users"] == "200" and "Europe/Paris" in rows["period"] and "out of core" in rows["read by"]
    assert "rows read" in window.summary.report.toPlainText()
    assert window.summary.places.isVisibleTo(window.summary) and window.summary.places.shown_places() > 0
    assert "needs the events in memory" in window.anonymizability.status.text()

    run_and_wait(qtbot, window, Project.load(path).settings)
    assert any("on the duckdb engine" in text for _, text in window.log_panel.lines)
    (result,) = window.session.project.results
    assert result.n_users == window.session.overview.people and [e.p for e in result.by_p] == [1, 2]
    assert window.results_table.model().rowCount() >= 1
    qtbot.waitUntil(
        lambda: any("Information loss measured on" in text for _, text in window.log_panel.lines),
        timeout=WAIT_MS,
    )
    # the summary's import report says whom the loss covers (only the report is redrawn, not the summary)
    coverage = next(text for _, text in window.log_panel.lines if "Information loss measured on" in text)
    assert coverage in window.summary.report.toPlainText() and form_rows(window.summary)["users"] == "200"
    assert str(sample_subset["events"]) not in loaded  # only the sample of people was read in memory


def test_a_project_that_fits_shows_the_same_summary_with_its_events(
    window, qtbot, sample_subset, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv(SIZE_ENV, "fits")
    path = large_project(
        tmp_path, sample_subset["events"], sample_subset["antennas"], sample_subset["hierarchy"]
    )
    assert open_and_wait(qtbot, window, path, data=True)
    rows = form_rows(window.summary)
    assert rows["users"] == "200" and "read by" not in rows
    assert window.summary.people.sum() == 200 and window.summary.places.shown_places() > 0


def test_data_the_engine_could_hold_but_the_window_could_not_open_from_the_overview(
    window, qtbot, sample_subset, tmp_path, monkeypatch
) -> None:
    """With memory for ``--engine auto``'s compact columns but not for the events as a Dataset (a 10M
    month on this machine), the window shows the overview and never loads the events."""
    from privacy_studio.core.engines import auto
    from privacy_studio.core.overview.project_data import DATASET_BYTES_PER_EVENT

    monkeypatch.delenv(SIZE_ENV, raising=False)
    monkeypatch.setenv("PRIVACY_STUDIO_CACHE", str(tmp_path / "cache"))
    events = sample_subset["events"]
    rows = auto.input_rows(str(events))
    need = auto.FIXED_BYTES + rows * (auto.BYTES_PER_EVENT + DATASET_BYTES_PER_EVENT) / 2
    monkeypatch.setattr(auto, "available_memory", lambda: int(need / auto.USABLE_SHARE))
    path = large_project(tmp_path, events, sample_subset["antennas"], sample_subset["hierarchy"])
    assert open_and_wait(qtbot, window, path)
    qtbot.waitUntil(lambda: window.session.overview is not None, timeout=WAIT_MS)
    assert window.session.dataset is None
    assert "out of core" in form_rows(window.summary)["read by"]
