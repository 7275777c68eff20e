"""Time the protection search (issue #29) on Gowalla NYC, against measuring every candidate (same run).

Makes the project of the issue (grid:1, grid:5, grid:20 × 1h, 1d, 1w; p 1, 2, 4, 6; ceiling 5 %), runs it
without the search, then times ``search`` (best first: stops at the first passing candidate) and, unless
``--no-baseline``, the same ladder with every candidate measured as written (what a search without pruning
costs). Prints a table and writes JSON (``--json``).

    .venv/bin/python benchmarks/bench_search.py [--project P.psproj] [--no-baseline] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from privacy_studio import cli
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.project import Project
from privacy_studio.core.project_run import decision_inputs
from privacy_studio.core.release.search import grid_profiles, measure_candidate, score_all, search
from privacy_studio.core.tradeoff.candidates import DEFAULT_LADDER
from privacy_studio.core.tradeoff.decision import decide

GOWALLA = Path("/work/shared/real_data/gowalla_nyc/gowalla_events_nyc.tsv.gz")


def make_project(folder: Path) -> Path:
    out = folder / "gowalla.psproj"
    args = ["project", "new", str(GOWALLA), "--no-header", "--columns", "user,time,lat,lon,location",
            "--spatial", "grid:1,grid:5,grid:20", "--temporal", "1h,1d,1w", "--p", "1,2,4,6",
            "--name", "Gowalla NYC", "--out", str(out)]  # fmt: skip
    assert cli.main(args) == 0
    assert cli.main(["project", "run", str(out), "--no-search"]) == 0
    return out


def every_candidate(project: Project, dataset) -> tuple[float, int, int]:
    """(seconds, candidates measured, candidates passing) when every candidate is measured as written."""
    start = time.perf_counter()
    analysis = decide(decision_inputs(project, dataset))
    scored = score_all(grid_profiles(project, analysis), dataset, DEFAULT_LADDER, TaskControl())
    judged = [measure_candidate(c, project, dataset, TaskControl()) for c in scored]
    return time.perf_counter() - start, len(judged), sum(c.passes for c in judged)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, help="an existing run project (default: make Gowalla's)")
    parser.add_argument("--no-baseline", action="store_true", help="skip measuring every candidate")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.project or make_project(Path(tmp))
        project = Project.load(path)
        dataset = project.load_dataset()
        search(project, dataset)  # warm: numba kernels compiled and cached before timing
        found = search(project, dataset)
        rec = found.recommended
        row = {
            "search_seconds": round(found.seconds, 2),
            "candidates": len(found.candidates),
            "measured": len(found.measured()),
            "recommended": None if rec is None else rec.name(),
            "released_people": None if rec is None else rec.released_people,
            "total_people": None if rec is None else rec.total_people,
            "utility": None if rec is None else rec.utility,
        }
        if not args.no_baseline:
            seconds, measured, passing = every_candidate(project, dataset)
            row |= {"baseline_seconds": round(seconds, 2), "baseline_measured": measured, "passing": passing}
    width = max(len(k) for k in row) + 2
    print("\n".join(f"{k:<{width}}{v}" for k, v in row.items()))
    if args.json:
        args.json.write_text(json.dumps(row, indent=2) + "\n")


if __name__ == "__main__":
    main()
