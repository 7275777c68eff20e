"""Risk-engine back ends (issue #9): ``numba`` in memory, ``duckdb`` embedded out-of-core, ``spark`` cluster.

All three yield the same :class:`~privacy_studio.core.runner.ProfileResult` objects and, for a given seed,
identical class sizes (hence unicity, k-disclosure and worst-case risk)::

    with open_engine("duckdb", memory_limit="4GB", temp_dir="/scratch") as engine:
        for result in engine.run_grid(source, settings, control):
            ...

``source`` is a ``core.io`` Dataset, an EventTable, or :class:`EventFiles` (files the engine reads itself;
the numba engine loads them with ``load_dataset``). docs/engines.md explains the plan and what each supports.
"""

from __future__ import annotations

from privacy_studio.core.engines.choose import resolve_engine
from privacy_studio.core.engines.sources import EventFiles

ENGINES = ("numba", "duckdb", "spark")

__all__ = ["ENGINES", "EventFiles", "open_engine", "resolve_engine"]


def open_engine(
    name: str,
    *,
    memory_limit: str | None = None,
    temp_dir: str | None = None,
    threads: int | None = None,
    spark_master: str | None = None,
):
    """An engine by name, to use as a context manager; ``ValueError`` for an unknown name.

    ``memory_limit`` (e.g. ``"4GB"``) and ``temp_dir`` (where spills go) apply to DuckDB and Spark;
    ``threads`` to all; ``spark_master`` (``local[2]``, ``spark://host:7077``, …) to Spark only.
    """
    if name == "numba":
        from privacy_studio.core.engines.numba_engine import NumbaEngine

        return NumbaEngine(threads=threads)
    if name == "duckdb":
        from privacy_studio.core.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine(memory_limit=memory_limit, temp_dir=temp_dir, threads=threads)
    if name == "spark":
        try:
            from privacy_studio.core.engines.spark_engine import SparkEngine
        except ModuleNotFoundError as exc:
            if exc.name != "privacy_studio.core.engines.spark_engine":
                raise
            raise ValueError("the spark engine is not part of this installation") from None

        return SparkEngine(
            memory_limit=memory_limit, temp_dir=temp_dir, threads=threads, spark_master=spark_master
        )
    raise ValueError(f"unknown engine {name!r}; use one of {', '.join(ENGINES)} (or auto)")
