"""Session edits of the trade-off fields: the project changes, the flag is set and ``changed`` is emitted;
an edit that changes nothing is not an edit."""

from __future__ import annotations

import pytest

from privacy_studio.core.risk.results import ProfileResult


@pytest.mark.parametrize("method, field", [("set_utility", "utility"), ("set_tradeoff", "tradeoff")])
def test_setting_a_tradeoff_field_marks_the_project_changed(qtbot, method: str, field: str) -> None:
    from privacy_studio.gui.session import Session

    session = Session()
    seen: list[str] = []
    session.changed.connect(lambda: seen.append("changed"))
    session.dirty_changed.connect(lambda dirty: seen.append(f"dirty={dirty}"))
    value = {"domains": ["transport"], "scores": {}} if field == "utility" else {"ceiling": 0.02}
    getattr(session, method)(value)
    assert getattr(session.project, field) == value and session.dirty
    assert seen == ["changed", "dirty=True"]
    value["ceiling"] = 0.5  # the project keeps its own copy
    assert getattr(session.project, field) != value
    session.set_dirty(False)
    seen.clear()
    getattr(session, method)(dict(getattr(session.project, field)))
    assert seen == [] and not session.dirty


def test_importing_new_data_drops_what_described_the_old_people(qtbot) -> None:
    from types import SimpleNamespace

    from privacy_studio.core.project import DataSource
    from privacy_studio.gui.session import Session

    session = Session()
    project = session.project
    project.sources = [
        DataSource("old.csv", "aa", {}),
        DataSource("attributes.csv", "bb", {}, role="attributes"),
    ]
    project.results = [ProfileResult(label="old")]
    project.analyses = {"attacks": {"matching": {}}}
    project.utility = {"domains": ["transport"], "scores": {"zip × 1h": {"transport": 7.0}}}
    report = SimpleNamespace(to_dict=lambda: {"rows_read": 3})
    session.set_dataset(SimpleNamespace(report=report), "new.csv", {"format": "events"}, "cc")
    assert [(s.path, s.role) for s in project.sources] == [("new.csv", "events")]
    assert project.results == [] and project.analyses == {}
    assert project.utility["scores"] == {"zip × 1h": {"transport": 7.0}}  # scores are per profile: kept
    assert session.dirty
