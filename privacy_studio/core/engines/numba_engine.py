"""The in-memory numba engine behind the common engine API: ``core.runner.run_grid`` on a loaded dataset."""

from __future__ import annotations

from collections.abc import Iterator

from privacy_studio.core.engines.inputs import EventFiles
from privacy_studio.core.io.report import ImportReport
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid


class NumbaEngine:
    """Loads :class:`EventFiles` with ``load_dataset`` (other sources pass through) and runs the grid."""

    def __init__(self, threads: int | None = None) -> None:
        self.threads = threads
        self.import_report: ImportReport | None = None  # rows read, kept and rejected by the last run

    def __enter__(self) -> NumbaEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def run_grid(
        self, source: object, settings: RiskSettings, control: TaskControl | None = None
    ) -> Iterator[ProfileResult]:
        """``core.runner.run_grid`` (with ``threads`` numba threads when given)."""
        import numba

        control = as_control(control)
        settings.validate()
        if isinstance(source, EventFiles):
            from privacy_studio.core.io import load_dataset
            from privacy_studio.core.knowledge import Explicit, parse_knowledge

            # compact columns (no per-event coordinates) unless explicit knowledge merges in its own events
            compact = not isinstance(parse_knowledge(settings.knowledge), Explicit)
            source = load_dataset(source.path, source.options, control=control.sub(0.0, 0.1), compact=compact)
            control = control.sub(0.1, 1.0)
        self.import_report = getattr(source, "report", None)
        before = numba.get_num_threads()
        if self.threads:
            numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))
        try:
            yield from run_grid(source, settings, control=control)
        finally:
            numba.set_num_threads(before)
