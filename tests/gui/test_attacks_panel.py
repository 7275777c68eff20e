"""The attacks panel reads the project's own file as the project does (issue #27): a headerless,
tab-separated file like the Gowalla check-ins runs an attack, and a project whose data exceed the memory
gets one sentence instead of a failed read."""

from __future__ import annotations

from pathlib import Path

from privacy_studio.core.project import Project
from tests.gui.project_files import WAIT_MS, open_and_wait, settle
from tests.overview.helpers import forced_large

#: Gowalla's layout: user, UTC time, latitude, longitude, venue; no header, tabs.
COLUMNS = ["user", "time", "lat", "lon", "location"]
VENUES = [(40.70 + 0.01 * v, -74.00 + 0.01 * v) for v in range(6)]


def headerless_checkins(path: Path) -> Path:
    """Twelve people, each with four check-ins on distinct days at venues of their own pattern."""
    lines = []
    for user in range(12):
        for visit in range(4):
            venue = (user + visit * (1 + user % 3)) % len(VENUES)
            lat, lon = VENUES[venue]
            when = f"2010-10-{1 + visit + user % 5:02d}T{8 + user % 9:02d}:15:00Z"
            lines.append(f"{user}\t{when}\t{lat:.4f}\t{lon:.4f}\t{venue}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_an_attack_reads_a_headerless_project_file_with_the_projects_reader(
    window, qtbot, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("PRIVACY_STUDIO_CACHE", str(tmp_path / "cache"))
    events = headerless_checkins(tmp_path / "checkins.tsv")
    project = Project(name="checkins")
    project.add_source(events, {"delimiter": "\t", "header": False, "columns": COLUMNS})
    path = project.save(tmp_path / "checkins.psproj")
    assert open_and_wait(qtbot, window, path, data=True)

    panel = window.attacks
    assert panel.identified.data.value() == str(events)  # the project's file fills the attacker's side
    panel.apply_inputs({"anonymous.data": str(events), "spatial": "raw", "temporal": "1d"})
    request = panel.matching_request()
    worker = panel.start(request)
    assert worker is not None
    qtbot.waitUntil(lambda: worker not in window.runner.active, timeout=WAIT_MS)
    settle(window)
    assert "failed" not in panel.status.text(), panel.status.text()
    result = panel.results["matching"]
    assert result["n_identified"] == result["n_anonymous"] == 12
    for side in ("identified", "anonymous"):
        reader = request[side]["reader"]
        assert reader["header"] is False and reader["delimiter"] == "\t" and reader["columns"] == COLUMNS


def test_another_file_keeps_the_default_reader(window, qtbot, tmp_path) -> None:
    project = Project(name="checkins")
    project.add_source(headerless_checkins(tmp_path / "checkins.tsv"), {"header": False, "columns": COLUMNS})
    window.session.replace(project)
    window.attacks.apply_inputs({"anonymous.data": str(tmp_path / "release.csv")})
    reader = window.attacks.matching_request()["anonymous"]["reader"]
    assert "header" not in reader and "columns" not in reader


def test_attacks_on_data_larger_than_memory_say_they_need_the_events(
    window, qtbot, sample_subset, tmp_path, monkeypatch
) -> None:
    path, loaded = forced_large(sample_subset, tmp_path, monkeypatch)
    assert open_and_wait(qtbot, window, path)
    qtbot.waitUntil(lambda: window.session.overview is not None, timeout=WAIT_MS)
    panel = window.attacks
    assert "needs the events in memory" in panel.status.text()
    panel.apply_inputs({"anonymous.data": str(sample_subset["events"])})
    assert panel.start(panel.matching_request()) is None
    assert panel.status.text().startswith("The matching attack needs the events in memory")
    assert panel.status.text().count(".") == 1  # one sentence
    settle(window)
    assert "matching" not in panel.results and str(sample_subset["events"]) not in loaded
