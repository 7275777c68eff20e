"""Settings shared by the whole suite: headless Qt, a private numba cache, and hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


GUI_FOLDER = Path(__file__).resolve().parent / "gui"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every Qt test ``gui`` (everything under tests/gui, and any test that drives widgets with qtbot),
    so ``pytest -m gui`` selects them and ``-m "not gui"`` leaves them out."""
    for item in items:
        if GUI_FOLDER in Path(str(item.path)).parents or "qtbot" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.gui)
