"""The embedded out-of-core back end: DuckDB runs the relational plan, spilling to ``temp_dir`` when the
tables outgrow ``memory_limit``; it reads CSV/Parquet files itself, so the events never enter Python."""

from __future__ import annotations

import re
import tempfile

import pyarrow as pa

from privacy_studio.core.engines import plan
from privacy_studio.core.engines.relational import FileRead, RelationalEngine
from privacy_studio.core.progress import Cancelled

_MEMORY_RE = re.compile(r"^\s*\d+(\.\d+)?\s*([KMGT]i?B|[KMGT]|B)\s*$", re.IGNORECASE)


class DuckDBEngine(RelationalEngine):
    """One private in-process DuckDB database (in memory, spilling to ``temp_dir``)."""

    dialect = plan.DUCKDB

    def __init__(
        self, memory_limit: str | None = None, temp_dir: str | None = None, threads: int | None = None
    ) -> None:
        import duckdb

        if memory_limit is not None and not _MEMORY_RE.match(str(memory_limit)):
            raise ValueError(f"memory limit {memory_limit!r} not understood (use e.g. 4GB, 512MB)")
        if threads is not None and (isinstance(threads, bool) or int(threads) < 1):
            raise ValueError(f"threads must be a whole number ≥ 1, got {threads!r}")
        self._own_temp = None
        if temp_dir is None:
            self._own_temp = tempfile.TemporaryDirectory(prefix="privacy-studio-duckdb-")
            temp_dir = self._own_temp.name
        self._duckdb = duckdb
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET temp_directory = {plan.quote(temp_dir)}")
        self.con.execute("SET preserve_insertion_order = false")
        if memory_limit is not None:
            self.con.execute(f"SET memory_limit = {plan.quote(memory_limit)}")
        if threads is not None:
            self.con.execute(f"SET threads = {int(threads)}")
        self._arrow: dict[str, pa.Table] = {}

    def execute(self, sql: str) -> pa.Table:
        try:
            return self.con.sql(sql).to_arrow_table()
        except self._duckdb.InterruptException:
            raise Cancelled("cancelled by the user") from None

    def register(self, name: str, table: pa.Table) -> None:
        self.drop(name)
        self._arrow[name] = table
        self.con.register(name, table)

    def create_table(self, name: str, sql: str) -> None:
        self.drop(name)
        try:
            self.con.execute(f"CREATE TABLE {name} AS {sql}")
        except self._duckdb.InterruptException:
            raise Cancelled("cancelled by the user") from None

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
            opts += ["all_varchar = true", "quote = '\"'", "escape = '\"'"]
            if files.names:
                opts.append("names = [" + ", ".join(plan.quote(n) for n in files.names) + "]")
            source = f"read_csv({paths}, {', '.join(opts)})"
        self.drop(name)
        self.con.execute(f"CREATE VIEW {name} AS SELECT * FROM {source}")

    def close(self) -> None:
        self.con.close()
        if self._own_temp is not None:
            self._own_temp.cleanup()
            self._own_temp = None
