"""A project's choice of risk engine and its options: stored in the project file, used by the window and CLI.

The engine is a run option, not part of the risk settings: the same settings give the same class sizes on
every engine. ``auto`` picks DuckDB when the input files would not fit in memory, else the numba engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from typing import Any

from privacy_studio.core.engines.api import ENGINES, open_engine
from privacy_studio.core.engines.auto import resolve_engine
from privacy_studio.core.engines.inputs import EventFiles
from privacy_studio.core.engines.memory import is_memory_size
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings

#: What the user may choose: an engine by name, or ``auto``.
CHOICES = ("auto", *ENGINES)


@dataclass(frozen=True)
class EngineChoice:
    """Which engine runs the grid; memory limit and spill folder apply to DuckDB and Spark."""

    name: str = "numba"
    memory_limit: str | None = None  # e.g. "8GB"
    temp_dir: str | None = None  # where out-of-core engines spill
    spark_master: str | None = None  # local[2], spark://host:7077, yarn, k8s://…

    def validate(self) -> None:
        """Raise ``ValueError`` naming the problem for an unknown engine or an option of the wrong type."""
        if self.name not in CHOICES:
            raise ValueError(f"unknown engine {self.name!r}; choose one of {', '.join(CHOICES)}")
        for f in fields(self)[1:]:
            value = getattr(self, f.name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError(f"engine option {f.name} must be a non-empty text or null, got {value!r}")
        if self.memory_limit is not None and not is_memory_size(self.memory_limit):
            raise ValueError(f"memory limit {self.memory_limit!r} not understood (use e.g. 8GB or 512MB)")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EngineChoice:
        """Build and validate a choice read from a project file; unknown keys are an error."""
        unknown = sorted(set(d) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"unknown engine option(s): {', '.join(unknown)}")
        choice = cls(**d)
        choice.validate()
        return choice

    def resolved(self, files: EventFiles | None) -> str:
        """The engine that will run: ``auto`` looks at the input files' size (numba without files)."""
        if self.name != "auto":
            return self.name
        return resolve_engine("auto", [files.path], files.options) if files is not None else "numba"

    def run_grid(
        self,
        dataset: object,
        settings: RiskSettings,
        files: EventFiles | None = None,
        control: TaskControl | None = None,
    ) -> Iterator[ProfileResult]:
        """Run ``settings`` on the chosen engine: the in-memory ``dataset`` for numba, else ``files`` when
        given (the engine reads them itself) or the dataset registered in the engine."""
        name = self.resolved(files)
        use_files = files is not None and (name != "numba" or dataset is None)
        source = files if use_files else dataset
        with open_engine(
            name, memory_limit=self.memory_limit, temp_dir=self.temp_dir, spark_master=self.spark_master
        ) as engine:
            yield from engine.run_grid(source, settings, control)
