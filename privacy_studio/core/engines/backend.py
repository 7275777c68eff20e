"""The small SQL back end the relational engines run on (DuckDB, Spark): six primitives and a file reader.

Reading the events (``ingest.py``) and the risk plan (``relational.py``) are written against this
interface only, so each back end implements it once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from privacy_studio.core.engines import plan


@dataclass(frozen=True)
class FileRead:
    """What a back end needs to expose data files as one relation (``SqlBackend.read_files``)."""

    paths: list[str]
    kind: str  # "csv" (also gzip CSV/TSV) or "parquet"
    delimiter: str = ","
    header: bool = True
    names: list[str] | None = None  # column names when the file has no header


class SqlBackend(ABC):
    """A SQL back end: subclasses implement the primitives; use as a context manager (``close`` on exit)."""

    dialect: plan.Dialect = plan.DUCKDB
    #: Whether ``execute`` brings a large result whole into the client anyway (Spark's ``toArrow``): the
    #: fetch then counts each user's rows itself instead of asking a second query.
    collects_whole: bool = False

    # -- the back end's primitives ----------------------------------------------------------------------

    @abstractmethod
    def execute(self, sql: str) -> pa.Table:
        """Run one query and return its whole result (the plan only fetches small results)."""

    @abstractmethod
    def register(self, name: str, table: pa.Table) -> None:
        """Make an Arrow table queryable as ``name`` (replacing any earlier relation of that name)."""

    @abstractmethod
    def create_table(self, name: str, sql: str) -> None:
        """Materialize the result of ``sql`` as table ``name`` (replacing any earlier one)."""

    @abstractmethod
    def drop(self, name: str) -> None:
        """Forget table or view ``name``; no error when it does not exist."""

    @abstractmethod
    def cancel(self) -> None:
        """Interrupt the running query, if any (called from another thread; must be thread-safe)."""

    @abstractmethod
    def read_files(self, name: str, files: FileRead) -> None:
        """Expose the data files as relation ``name`` with the files' column names.

        CSV columns must come as text (VARCHAR / string) so parsing stays the plan's job; Parquet
        columns keep their types.
        """

    def batches(self, sql: str, rows: int) -> Iterator[pa.RecordBatch]:
        """The result of ``sql`` in record batches of about ``rows`` rows (here: fetched whole, then cut)."""
        return iter(self.execute(sql).to_batches(rows))

    def create_fetched(self, name: str, sql: str) -> None:
        """Relation ``name`` that the client then fetches: a table here, as the fetch reads it twice (its
        users' lengths, then its rows); a back end that ``collects_whole`` may leave it a view."""
        self.create_table(name, sql)

    def create_scan(self, name: str, kind: str, sql: str) -> None:
        """Relation ``name`` over the input files (``kind`` csv or parquet), read by a few later queries:
        stored as a table here; a back end that re-reads such files cheaply may keep it a view instead."""
        self.create_table(name, sql)

    def create_ranked(self, name: str, distinct_sql: str, key: str, code: str) -> None:
        """Table ``name(key, code)``: each row of ``distinct_sql`` (distinct ``key`` values) with its 0-based
        rank in ascending order, i.e. the code ``np.unique`` gives it."""
        self.create_table(
            name,
            f"SELECT {key}, CAST(row_number() OVER (ORDER BY {key}) - 1 AS BIGINT) AS {code} "
            f"FROM ({distinct_sql}) d",
        )

    def expect_rows(self, n_rows: int) -> None:  # noqa: B027 - only engines that partition need it
        """Size the coming joins and aggregations for an input of ``n_rows`` events (called once known)."""

    def close(self) -> None:  # noqa: B027 - engines without resources need nothing
        """Release the back end's resources (connection, session)."""

    def __enter__(self) -> SqlBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
