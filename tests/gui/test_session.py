"""Session edits of the trade-off fields: the project changes, the flag is set and ``changed`` is emitted;
an edit that changes nothing is not an edit."""

from __future__ import annotations

import pytest


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
