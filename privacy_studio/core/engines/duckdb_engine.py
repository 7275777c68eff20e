"""The embedded out-of-core back end: DuckDB runs the relational plan, spilling to ``temp_dir`` when the
tables outgrow ``memory_limit``; it reads CSV/Parquet files itself, so the events never enter Python."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import pyarrow as pa

from privacy_studio.core.engines import plan
from privacy_studio.core.engines.backend import FileRead
from privacy_studio.core.engines.memory import is_memory_size, memory_bytes
from privacy_studio.core.engines.relational import RelationalEngine
from privacy_studio.core.progress import Cancelled

#: CSV read buffer: DuckDB's default (32 MB) alone would not fit under small memory limits.
CSV_BUFFER = 4 << 20


#: Share of ``--memory-limit`` kept out of DuckDB's buffer pool for what it allocates outside the pool (at 5M
#: people an 8 GB pool made a 9.1 GiB process), for limits of at least ``RESERVE_FROM`` bytes.
RESERVE = 0.25
RESERVE_FROM = 1_000_000_000


def buffer_pool_bytes(limit: int) -> int:
    """DuckDB's ``memory_limit`` for a process that may use ``limit`` bytes (small limits go to the pool)."""
    return int(limit * (1 - RESERVE)) if limit >= RESERVE_FROM else limit


class DuckDBEngine(RelationalEngine):
    """A private in-memory DuckDB database whose blocks, tables included, go to a spill folder under
    ``temp_dir`` (deleted on close) beyond its buffer pool, as its operators' intermediates do. The pool
    gets ``memory_limit`` less a reserve (:func:`buffer_pool_bytes`) so the whole process stays within it.

    In memory rather than a database file: tables are then not compressed and written to disk (with a
    checkpoint) when there is room for them, which made building the event tables 2.6× slower at 1M people.
    """

    dialect = plan.DUCKDB

    def __init__(
        self, memory_limit: str | None = None, temp_dir: str | None = None, threads: int | None = None
    ) -> None:
        import duckdb

        if memory_limit is not None and not is_memory_size(str(memory_limit)):
            raise ValueError(f"memory limit {memory_limit!r} not understood (use e.g. 4GB, 512MB)")
        if threads is not None and (isinstance(threads, bool) or int(threads) < 1):
            raise ValueError(f"threads must be a whole number ≥ 1, got {threads!r}")
        try:
            if temp_dir is not None:
                os.makedirs(temp_dir, exist_ok=True)
            self._folder = tempfile.TemporaryDirectory(prefix="privacy-studio-duckdb-", dir=temp_dir)
        except OSError as exc:
            raise ValueError(
                f"the temporary folder {temp_dir} cannot be used ({exc.strerror or exc}): give --temp-dir a "
                "folder the studio can create and write"
            ) from None
        self._duckdb = duckdb
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET temp_directory = {plan.quote(os.path.join(self._folder.name, 'spill'))}")
        self.con.execute("SET preserve_insertion_order = false")
        if memory_limit is not None:
            self.con.execute(f"SET memory_limit = '{buffer_pool_bytes(memory_bytes(memory_limit))}B'")
        if threads is not None:
            self.con.execute(f"SET threads = {int(threads)}")
        self._arrow: dict[str, pa.Table] = {}

    def execute(self, sql: str) -> pa.Table:
        with self._errors():
            return self.con.sql(sql).to_arrow_table()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """DuckDB's interrupt as ``Cancelled``; running out of memory or disk as one readable ValueError."""
        try:
            yield
        except self._duckdb.InterruptException:
            raise Cancelled("cancelled by the user") from None
        except self._duckdb.OutOfMemoryException as exc:
            raise ValueError(
                "the duckdb engine ran out of memory even with spilling "
                f"({str(exc).splitlines()[0]}); raise --memory-limit or use fewer threads"
            ) from None
        except self._duckdb.IOException as exc:
            raise ValueError(
                f"the duckdb engine could not read or spill: {str(exc).splitlines()[0]}"
            ) from None
        except self._duckdb.InvalidInputException as exc:  # e.g. CSV rows with a wrong number of fields
            raise ValueError(
                f"the duckdb engine could not read the input ({str(exc).splitlines()[0]}); "
                "the numba engine (--engine numba) rejects such rows one by one and names their lines"
            ) from None
        except self._duckdb.Error as exc:
            raise ValueError(f"the duckdb engine failed: {str(exc).splitlines()[0]}") from None
        except RuntimeError as exc:  # an interrupt can also surface as a plain "Query interrupted"
            if "interrupted" in str(exc).lower():
                raise Cancelled("cancelled by the user") from None
            raise

    def register(self, name: str, table: pa.Table) -> None:
        self.drop(name)
        self._arrow[name] = table
        self.con.register(name, table)

    def create_table(self, name: str, sql: str) -> None:
        self.drop(name)
        with self._errors():
            self.con.execute(f"CREATE TABLE {name} AS {sql}")

    def drop(self, name: str) -> None:
        if self._arrow.pop(name, None) is not None:
            self.con.unregister(name)
        for kind in ("TABLE", "VIEW"):
            kinds = self.con.execute(
                "SELECT table_type FROM information_schema.tables WHERE table_name = ?", [name]
            ).fetchall()
            if any(k[0].startswith("BASE" if kind == "TABLE" else "VIEW") for k in kinds):
                self.con.execute(f"DROP {kind} {name}")

    def cancel(self) -> None:
        self.con.interrupt()

    def read_files(self, name: str, files: FileRead) -> None:
        paths = "[" + ", ".join(plan.quote(p) for p in files.paths) + "]"
        if files.kind == "parquet":
            source = f"read_parquet({paths})"
        else:
            opts = [f"delim = {plan.quote(files.delimiter)}", f"header = {str(files.header).lower()}"]
            opts += ["all_varchar = true", "quote = '\"'", "escape = '\"'", f"buffer_size = {CSV_BUFFER}"]
            if files.names:
                opts.append("names = [" + ", ".join(plan.quote(n) for n in files.names) + "]")
            source = f"read_csv({paths}, {', '.join(opts)})"
        self.drop(name)
        with self._errors():
            self.con.execute(f"CREATE VIEW {name} AS SELECT * FROM {source}")

    def close(self) -> None:
        self.con.close()
        self._folder.cleanup()
