"""The window's run on data that exceed memory reads its project on the GUI thread only: the run and the
information loss on a sample get a plan (``RunPlan``) and the overview, so a worker never reads a project
the window may be editing meanwhile (issue #31)."""

from __future__ import annotations

import threading

from privacy_studio.core.project import Project
from tests.gui.project_files import WAIT_MS

from .test_flow import run_and_wait
from .test_large_project import open_large


def test_no_worker_reads_the_project_of_a_run_larger_than_memory(
    window, qtbot, sample_subset, tmp_path, monkeypatch
) -> None:
    path, _loaded = open_large(window, qtbot, sample_subset, tmp_path, monkeypatch)
    off_thread: list[str] = []
    for name in ("events_files", "engine_choice", "with_attributes"):
        real = getattr(Project, name)

        def spy(self, *args, _real=real, _name=name, **kwargs):
            if threading.current_thread() is not threading.main_thread():
                off_thread.append(_name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(Project, name, spy)

    run_and_wait(qtbot, window, Project.load(path).settings)
    qtbot.waitUntil(
        lambda: any("Information loss measured on" in text for _, text in window.log_panel.lines),
        timeout=WAIT_MS,
    )
    assert off_thread == [], "a worker read the project"
