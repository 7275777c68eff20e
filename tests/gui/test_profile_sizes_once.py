"""The run's profile sizes go one way into the window: the Decide step shows them and keeps them in the
project, once (they were kept by the run hook and again by the panel, and a run whose areas matched the
shown ones left the panel's observation period behind)."""

from __future__ import annotations

import math

from privacy_studio.core.analyses import ProfileSizes
from privacy_studio.core.project import Project

AREAS = {"district": 12.5, "zip": 3.0}
WEEKS = 4 * 7 * 86400.0


def test_the_runs_profile_sizes_are_shown_and_kept_once(window, monkeypatch) -> None:
    window.tradeoff.set_unit_areas(dict(AREAS))  # measured on opening the data: no period yet
    assert math.isnan(window.tradeoff.period_seconds)
    stored: list[ProfileSizes] = []
    real = Project.store

    def counted(self, analysis):
        if isinstance(analysis, ProfileSizes):
            stored.append(analysis)
        return real(self, analysis)

    monkeypatch.setattr(Project, "store", counted)
    window._on_step(ProfileSizes(dict(AREAS), WEEKS))
    assert (window.tradeoff.unit_areas, window.tradeoff.period_seconds) == (AREAS, WEEKS)
    assert len(stored) == 1, "kept once"
    sizes = window.session.project.analysis(ProfileSizes)
    assert (sizes.unit_areas, sizes.period_seconds) == (AREAS, WEEKS)
