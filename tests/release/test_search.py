"""Issue #29: the protection search against a brute force over every candidate, its record, and cancel.

The reference prepares and judges the release of every (profile, suppression) with ``prepare_release`` — no
pruning, no ordering — and takes as utility 10 × the rows written over the most rows any profile writes
without suppression (the computed "points kept" score on the released rows). The search must recommend a
candidate that passes there and is as useful as the best one there.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.io import Dataset, ReaderOptions
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.project import Project, jsonable
from privacy_studio.core.project_run import computed_utility
from privacy_studio.core.release import prepare_release
from privacy_studio.core.release.defaults import measure_settings, policy
from privacy_studio.core.release.search import options_of, search
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.core.tradeoff.candidates import (
    FROM_RUN,
    MEASURED,
    SKIPPED,
    Candidate,
    SearchResult,
    Suppression,
)

TZ = "UTC"
START = int(datetime(2024, 3, 4, tzinfo=UTC).timestamp())
TEMPORAL = ["1h", "1d", "all"]
LADDER = (Suppression(), Suppression(2), Suppression(3), Suppression(2, 2), Suppression(2, 2, 2))

events_strategy = st.lists(
    st.tuples(st.integers(0, 9), st.integers(0, 3 * 86400), st.sampled_from(["a", "b", "c", "d"])),
    min_size=4,
    max_size=70,
)


def _dataset(rows: list[tuple[int, int, str]]) -> Dataset:
    users, offsets, places = zip(*rows, strict=True)
    events = build_event_table(
        np.asarray([f"u{u}" for u in users]), START + np.asarray(offsets), np.asarray(places), tz=TZ
    )
    return Dataset(events, None, ImportReport("test"), [], ReaderOptions(tz=TZ))


def _project(dataset: Dataset, ceiling: float) -> Project:
    """A project whose run (risk grid and computed utility) was made in memory on ``dataset``."""
    risk = RiskSettings(spatial=["raw"], temporal=TEMPORAL, p_values=[2], samples=500, seed=1, reference_p=2)
    project = Project(name="search test", settings=risk.to_dict())
    project.tradeoff.update(risk_measure="unicity", risk_p=2, ceiling=ceiling)
    project.results = [jsonable(r.to_dict()) for r in run_grid(dataset.events, risk, None)]
    project.store(computed_utility(dataset, risk))
    return project


def brute_force(project: Project, dataset: Dataset) -> list[tuple[str, Suppression, float, bool]]:
    """Every candidate prepared, measured as written and judged: (profile, suppression, utility, passes)."""
    out = []
    written = {}
    for temporal in TEMPORAL:
        for suppression in LADDER:
            profile = f"raw:{temporal}"
            options = options_of(("raw", temporal, "none"), suppression)
            prepared = prepare_release(dataset, options, measure_settings(project), None, policy(project))
            rows = prepared.rows.table.num_rows if prepared.released.people else 0
            if suppression.none:
                written[profile] = rows
            out.append((profile, suppression, rows, prepared.passes and prepared.released.people > 0))
    finest = max(written.values())
    return [(p, s, 10 * rows / finest, ok) for p, s, rows, ok in out]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events_strategy, st.sampled_from([0.05, 0.3, 0.6]))
def test_the_pruned_search_recommends_what_the_brute_force_finds(rows, ceiling):
    dataset = _dataset(rows)
    project = _project(dataset, ceiling)
    found = search(project, dataset, LADDER)
    every = brute_force(project, dataset)
    passing = [(p, s, u) for p, s, u, ok in every if ok]
    assert len(found.candidates) == len(every)
    if not passing:
        assert found.recommended is None and found.why_none
        return
    best = max(u for _, _, u in passing)
    rec = found.recommended
    assert rec is not None, f"the brute force finds {passing}"
    assert math.isclose(rec.utility, best, rel_tol=1e-9, abs_tol=1e-12)
    assert (rec.profile, rec.suppression, True) in {(p, s, ok) for p, s, _, ok in every}
    # everything measured before the recommendation was more useful (or as useful) and failed
    judged = found.measured()
    assert judged[-1] == rec and all(not c.passes and c.utility >= rec.utility - 1e-12 for c in judged[:-1])
    assert all(c.utility <= rec.utility + 1e-12 for c in found.candidates if c.verdict == SKIPPED)


def test_the_record_round_trips_and_old_projects_open_without_it(tmp_path):
    dataset = _dataset([(u % 5, 3600 * (u % 7), "abcd"[u % 3]) for u in range(40)])
    project = _project(dataset, 0.3)
    found = search(project, dataset, LADDER)
    assert SearchResult.from_dict(found.to_dict()) == found
    assert found.seconds > 0 and found.ladder == LADDER and found.utility_name == "points_kept"
    assert {c.verdict for c in found.candidates} <= {MEASURED, FROM_RUN, SKIPPED}
    path = tmp_path / "p.psproj"
    project.save(path)
    assert Project.load(path).analysis(SearchResult) is None  # an older project: no search, still opens
    project.store(found)
    project.save(path)
    assert Project.load(path).analysis(SearchResult) == found


def test_a_suppression_reads_and_describes_itself():
    s = Suppression(5, 2, 10)
    assert Suppression.from_dict(s.to_dict()) == s
    assert s.to_dict() == {"k_anonymity": 5, "min_people_per_point": 2, "max_points_per_person": 10}
    assert (
        s.describe() == "at most 10 points per person, points of fewer than 2 people dropped, k-anonymity 5"
    )
    assert s.flags() == ["--max-points-per-person", "10", "--min-people-per-point", "2", "--k-anonymity", "5"]
    assert Suppression().describe() == "no suppression" and Suppression().none
    with pytest.raises(ValueError):
        Suppression(0)
    with pytest.raises(ValueError):
        Suppression.from_dict({"k": 2})
    c = Candidate("raw:1d", "raw × 1d", s, 10, 4, 6, 9, 2.5)
    assert Candidate.from_dict(c.to_dict()) == c and c.released_share == 0.4


def test_cancel_stops_the_search_and_leaves_the_project_unchanged():
    dataset = _dataset([(u % 6, 3600 * (u % 5), "abcd"[u % 4]) for u in range(50)])
    project = _project(dataset, 0.3)
    before = project.to_dict()
    control = TaskControl()
    seen = []

    def cancel_midway(fraction: float, message: str) -> None:
        seen.append(fraction)
        if fraction > 0.2:
            control.cancel()

    control = TaskControl(cancel_midway)
    with pytest.raises(Cancelled):
        search(project, dataset, LADDER, control)
    assert seen and project.to_dict() == before
