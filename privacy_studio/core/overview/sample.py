"""A random sample of people of data too large for memory, read whole (every event of each sampled person).

DuckDB keeps the rows of the people whose id hashes below a threshold and writes them to a temporary
Parquet file, which the in-memory reader then reads with the project's own options; analyses that need
events (information loss) run on it and say which people they cover.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from privacy_studio.core.numbers import count
from privacy_studio.core.progress import TaskControl, as_control

if TYPE_CHECKING:
    from privacy_studio.core.engines import EventFiles
    from privacy_studio.core.engines.engine_choice import EngineChoice
    from privacy_studio.core.io import Dataset

#: People read by default for the analyses that need events: enough for stable information-loss scores,
#: a few hundred megabytes at the most.
SAMPLE_PEOPLE = 100_000
#: Resolution of the hash threshold (parts per million of the people).
_PARTS = 1_000_000


@dataclass
class PeopleSample:
    """The sampled people's events and the sentence saying whom they cover."""

    dataset: Dataset
    total_people: int

    @property
    def people(self) -> int:
        return self.dataset.events.n_users

    def coverage(self, what: str) -> str:
        """``what`` measured on … of … people, in one sentence (every person when the sample is whole)."""
        if self.people >= self.total_people:
            return f"{what} measured on all {count(self.total_people)} people"
        return (
            f"{what} measured on a random sample of {count(self.people)} of the {count(self.total_people)} "
            f"people (each person's events whole; {count(self.total_people - self.people)} left out: the "
            "data exceed the memory)"
        )


def sample_people(
    files: EventFiles,
    total_people: int,
    people: int = SAMPLE_PEOPLE,
    seed: int = 0,
    engine: EngineChoice | None = None,
    control: TaskControl | None = None,
) -> PeopleSample:
    """About ``people`` of the ``total_people`` of ``files``, each with all their events, read in memory."""
    from privacy_studio.core.engines import plan
    from privacy_studio.core.engines.backend import FileRead
    from privacy_studio.core.engines.duckdb_engine import DuckDBEngine
    from privacy_studio.core.engines.relational import _Watch
    from privacy_studio.core.io import load_dataset
    from privacy_studio.core.io.source import inspect_file

    control = as_control(control)
    layout = inspect_file(files.path, files.options)
    kind = "parquet" if layout.sniffed.kind == "parquet" else "csv"
    names = None if layout.header or kind == "parquet" else layout.names
    share = min(_PARTS, -(-people * _PARTS // max(total_people, 1)))
    user = plan.ident(layout.roles["user"])
    limit, temp = (engine.memory_limit, engine.temp_dir) if engine is not None else (None, None)
    folder = tempfile.TemporaryDirectory(prefix="privacy-studio-sample-")
    target = os.path.join(folder.name, "sample.parquet")
    try:
        db = DuckDBEngine(memory_limit=limit, temp_dir=temp)
        try:
            with _Watch(db, control):
                db.read_files("ps_raw", FileRead([files.path], kind, layout.delimiter, layout.header, names))
                control.report(0.0, "choosing the sampled people")
                db.con.execute(
                    f"COPY (SELECT * FROM ps_raw WHERE hash(CAST({user} AS VARCHAR) || '#{int(seed)}') "
                    f"% {_PARTS} < {share}) TO {plan.quote(target)} (FORMAT PARQUET)"
                )
        finally:
            db.close()
        options = replace(files.options, use_cache=False, header=True, delimiter=None)
        dataset = load_dataset(target, options, control.sub(0.5, 1.0, "reading the sampled people"))
    finally:
        folder.cleanup()
    return PeopleSample(dataset, total_people)
