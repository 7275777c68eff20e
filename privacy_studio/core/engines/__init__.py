"""Risk-engine back ends (issue #9): ``numba`` in memory, ``duckdb`` embedded out-of-core, ``spark`` cluster.

All three yield the same :class:`~privacy_studio.core.risk.results.ProfileResult` objects and, for a seed,
identical class sizes (hence unicity, k-disclosure and worst-case risk)::

    with open_engine("duckdb", memory_limit="4GB", temp_dir="/scratch") as engine:
        for result in engine.run_grid(source, settings, control):
            ...

``source`` is a ``core.io`` Dataset, an EventTable, or :class:`EventFiles` (files the engine reads itself;
the numba engine loads them with ``load_dataset``). docs/engines.md explains the plan and what each supports.
"""

from __future__ import annotations

from privacy_studio.core.engines.api import ENGINES, EventFiles, open_engine
from privacy_studio.core.engines.auto import resolve_engine

__all__ = ["ENGINES", "EventFiles", "open_engine", "resolve_engine"]
