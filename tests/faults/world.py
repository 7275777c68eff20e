"""A small world of files for the fault generators: data, every side file, a project naming them (with saved
results, so commands that only read them start at once) and the commands that read each file."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from privacy_studio.core.io import ReaderOptions
from privacy_studio.core.project import Project
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings
from tests.faults.conftest import write_events
from tests.faults.harness import Run, judge_error

#: A saved result the project validation accepts (raw x 1d, 12 people).
RESULT = {
    "spatial": "raw",
    "temporal": "1d",
    "label": "raw × 1d",
    "n_users": 12,
    "d": 8,
    "nnz": 20,
    "fill_rate": 0.4,
    "n_events": 180,
    "by_p": [{"p": 1, "unicity": 0.5, "unicity_ci": [0.4, 0.6], "n_sampled": 12, "n_excluded": 0}],
}


#: The world's twelve people are unique at raw × 1d, so a release of it fails the release criteria: fault
#: cases that release it accept that risk, since what they test is the fault, not the file's risk.
ACCEPT = ["--accept-risk", "fault suite: the tiny world is unique by design"]


@dataclass
class World:
    """Paths of the files one fault case works on (all inside its own temporary folder)."""

    root: Path

    def __getattr__(self, name: str) -> Path:
        return self.root / FILES[name]


FILES = {
    "data": "events.csv",
    "antennas": "antennas.csv",
    "hierarchy": "hierarchy.csv",
    "locations": "locations.csv",
    "attributes": "attributes.csv",
    "scores": "scores.csv",
    "knowledge": "knowledge.csv",
    "links": "links.csv",
    "numeric": "numeric.csv",
    "masked": "masked.csv",
    "project": "p.psproj",
    "folder": "people",
}


def make_world(root: Path, results: bool = True) -> World:
    """Write every file of the world into ``root``; the project names the data, antennas, hierarchy and
    attributes (paths stored relative to it) and holds one saved result unless ``results`` is False."""
    w = World(root)
    write_events(w.data)
    places = [f"L{i}" for i in range(8)]
    w.antennas.write_text(
        "antenna_id,latitude,longitude\n" + "".join(f"{p},45.{i}0,4.{i}0\n" for i, p in enumerate(places))
    )
    w.hierarchy.write_text(
        "location_id,district\n" + "".join(f"{p},D{i % 2}\n" for i, p in enumerate(places))
    )
    w.locations.write_text("location_id\n" + "".join(f"{p}\n" for p in places))
    w.attributes.write_text("user_id,age\n" + "".join(f"u{u},{20 + u}\n" for u in range(12)))
    w.scores.write_text("profile,mobility\nraw × 1d,0.8\n")
    w.knowledge.write_text("user,time,location\nu1,2024-03-01 10:00:00,L1\n")
    w.links.write_text("identified,anonymous\nu1,u1\n")
    w.numeric.write_text("a,b\n" + "".join(f"{i},{i * 2 % 7}\n" for i in range(20)))
    w.masked.write_text("a,b\n" + "".join(f"{i + 0.5},{i * 2 % 7}\n" for i in range(20)))
    w.folder.mkdir()
    for u in range(3):
        (w.folder / f"u{u}.csv").write_text("time,location\n2024-03-01 10:00:00,L1\n2024-03-02 11:00:00,L2\n")
    settings = RiskSettings(spatial=["raw", "district"], temporal=["1d"], p_values=[1], seed=1)
    project = Project(name="faults", settings=settings.to_dict())
    options = ReaderOptions(antennas=str(w.antennas), hierarchy=str(w.hierarchy))
    project.add_source(w.data, options.to_dict())
    project.add_source(w.attributes, {}, role="attributes")
    if results:
        project.results = [ProfileResult.from_dict(copy.deepcopy(RESULT))]
    project.save(w.project)
    return w


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def judge_kept(run: Run, kept: dict[Path, str], outputs: tuple[Path, ...] = ()) -> str:
    """A refusal that left every input byte for byte as it was (else "output lost": an input overwritten)."""
    if any(not path.is_file() or digest(path) != before for path, before in kept.items()):
        return "output lost"
    return judge_error(run, outputs)


def edit_project(path: Path, change) -> None:
    """Apply ``change`` to the project's JSON document in place."""
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))
