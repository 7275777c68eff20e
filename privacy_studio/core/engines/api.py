"""The engines' API: the input type (:class:`EventFiles`), the engine names and :func:`open_engine`.

All engines yield the same :class:`~privacy_studio.core.risk.results.ProfileResult` objects; each engine
module is imported only when it is opened, so an installation without Spark still runs the others.
"""

from __future__ import annotations

from privacy_studio.core.engines.inputs import EventFiles

ENGINES = ("numba", "duckdb", "spark")

__all__ = ["ENGINES", "EventFiles", "open_engine"]


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
