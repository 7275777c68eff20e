"""The embedded out-of-core back end: DuckDB runs the relational plan, spilling to ``temp_dir`` when the
tables outgrow ``memory_limit``; it reads CSV/Parquet files itself, so the events never enter Python."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from privacy_studio.core.engines import plan
from privacy_studio.core.engines.auto import available_memory
from privacy_studio.core.engines.backend import FileRead
from privacy_studio.core.engines.inputs import EventFiles
from privacy_studio.core.engines.memory import is_memory_size, memory_bytes
from privacy_studio.core.engines.relational import RelationalEngine
from privacy_studio.core.io.cache import cache_dir
from privacy_studio.core.numbers import count
from privacy_studio.core.progress import Cancelled

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, so orphaned spill folders are left alone
    fcntl = None  # type: ignore[assignment]

#: CSV read buffer: DuckDB's default (32 MB) alone would not fit under small memory limits.
CSV_BUFFER = 4 << 20


#: Share of ``--memory-limit`` kept out of DuckDB's buffer pool for what it allocates outside the pool (at 5M
#: people an 8 GB pool made a 9.1 GiB process), for limits of at least ``RESERVE_FROM`` bytes.
RESERVE = 0.25
RESERVE_FROM = 1_000_000_000
#: Without ``--memory-limit`` the engine takes this share of the memory available when it starts (other
#: programs keep the rest; DuckDB's own default, 80 % of all RAM, let a 10M-person run be killed).
DEFAULT_SHARE = 0.5
#: DuckDB's pool while the kernels measure a profile: its tables wait in the spill folder meanwhile.
RELEASED_POOL = 64 << 20
#: Buffer pool per DuckDB thread: each thread's hash tables and sort runs need room of their own, so a
#: small limit runs fewer threads rather than failing (DuckDB advises 1-4 GB a thread for joins).
POOL_PER_THREAD = 1 << 30
#: The estimate of a run's working set (memory plus spill), per input event: ``ps_ev`` (16 bytes), the
#: generalizing aggregate's hash table and the largest ``ps_gen`` (16 bytes per user-point) at once.
WORK_BYTES_PER_EVENT = 80
#: What the client holds (not spillable), per input event, at most one distinct user-point per event: the
#: grid's finest traces, kept while every coarser profile is coarsened from them (8 bytes a user-point),
#: and the profile being measured, its traces (8) and index (8-16).
TRACE_BYTES_PER_EVENT = 32
#: Text input kept parsed as ``ps_rows`` while the events are coded: bytes per byte of text, and the
#: shortest text row assumed when counting rows from the size (gzip: ~6 bytes of text per byte).
ROWS_PER_TEXT_BYTE = 1.5
SHORTEST_ROW = 30


#: Spill folders are named ``<prefix><pid>-<random>`` and hold :data:`OWNER_LOCK`, locked by their run for as
#: long as it lives, so a folder left by a killed run can be recognized (its lock is free).
SPILL_PREFIX = "privacy-studio-duckdb-"
OWNER_LOCK = "owner.lock"


def remove_orphan_spills(temp_dir: str) -> None:
    """Delete the spill folders under ``temp_dir`` whose run ended without removing them (a killed
    10M-person run leaves tens of GB, which the next run's disk check would count as used). A folder is an
    orphan when its owner lock can be taken: no process id is trusted (ids are reused, and differ between
    machines sharing the folder). Where advisory locks do not exist (Windows) nothing is deleted."""
    if fcntl is None:
        return
    for entry in os.scandir(temp_dir):
        if not entry.name.startswith(SPILL_PREFIX) or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            with open(os.path.join(entry.path, OWNER_LOCK), "rb") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # taken: its run has ended
                shutil.rmtree(entry.path, ignore_errors=True)
        except OSError:  # no lock file (not ours, or an older studio's), or its run still holds it
            continue


def hold_owner_lock(folder: str) -> IO[bytes] | None:
    """Lock ``folder`` as the running process's spill folder; keep the returned file open while it is used
    (None where advisory locks do not exist). The lock is taken before the file gets its name, so no other
    run ever sees the folder's lock file unlocked while its owner lives."""
    if fcntl is None:
        return None
    staging = os.path.join(folder, f".{OWNER_LOCK}")
    lock = open(staging, "wb")  # noqa: SIM115 - held open for the engine's life, closed by close()
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.replace(staging, os.path.join(folder, OWNER_LOCK))
    return lock


def buffer_pool_bytes(limit: int) -> int:
    """DuckDB's ``memory_limit`` for a process that may use ``limit`` bytes (small limits go to the pool)."""
    return int(limit * (1 - RESERVE)) if limit >= RESERVE_FROM else limit


def default_limit() -> int | None:
    """Bytes the engine may use when none is given: half the available memory (None where unknown)."""
    available = available_memory()
    return int(available * DEFAULT_SHARE) if available else None


def default_threads(pool: int | None) -> int:
    """Threads for a buffer pool of ``pool`` bytes: the cores, fewer when the pool is small."""
    cores = os.cpu_count() or 1
    return cores if pool is None else max(1, min(cores, pool // POOL_PER_THREAD))


def work_bytes(files: EventFiles) -> tuple[int, int]:
    """(estimated input events, estimated working-set bytes) of reading and measuring ``files``."""
    paths = [files.path]
    if os.path.isdir(files.path):
        paths = [os.path.join(files.path, f) for f in sorted(os.listdir(files.path))]
    rows = work = 0
    for path in paths:
        if path.lower().endswith(".parquet"):
            n = pq.ParquetFile(path).metadata.num_rows
            rows, work = rows + n, work + n * WORK_BYTES_PER_EVENT
        elif os.path.isfile(path):
            text = os.path.getsize(path) * (6 if path.lower().endswith((".gz", ".zip")) else 1)
            n = text // SHORTEST_ROW
            rows, work = rows + n, work + n * WORK_BYTES_PER_EVENT + int(text * ROWS_PER_TEXT_BYTE)
    return rows, work


class DuckDBEngine(RelationalEngine):
    """A private in-memory DuckDB database whose blocks, tables included, go to a spill folder under
    ``temp_dir`` (deleted on close) beyond its buffer pool, as its operators' intermediates do. The pool
    gets ``memory_limit`` (default: half the memory available) less a reserve (:func:`buffer_pool_bytes`)
    so the whole process stays within it; the spill folder defaults to the studio's cache folder.

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
        temp_dir = str(temp_dir) if temp_dir is not None else str(cache_dir() / "spill")
        try:
            os.makedirs(temp_dir, exist_ok=True)
            remove_orphan_spills(temp_dir)
            prefix = f"{SPILL_PREFIX}{os.getpid()}-"
            self._folder = tempfile.TemporaryDirectory(prefix=prefix, dir=temp_dir)
            self._owner = hold_owner_lock(self._folder.name)
        except OSError as exc:
            raise ValueError(
                f"the temporary folder {temp_dir} cannot be used ({exc.strerror or exc}): give --temp-dir a "
                "folder the studio can create and write"
            ) from None
        self.temp_dir = temp_dir  # named in messages (the private folder inside it goes on close)
        limit = memory_bytes(memory_limit) if memory_limit is not None else default_limit()
        #: DuckDB's buffer pool in bytes (None: DuckDB's own default, where the available memory is unknown).
        self.pool = None if limit is None else buffer_pool_bytes(limit)
        self.threads = int(threads) if threads is not None else default_threads(self.pool)
        self._duckdb = duckdb
        self.con = duckdb.connect(":memory:")
        self.con.execute(f"SET temp_directory = {plan.quote(self.spill_dir)}")
        self.con.execute("SET preserve_insertion_order = false")  # lets scans and joins stream unordered
        if self.pool is not None:
            self.con.execute(f"SET memory_limit = '{self.pool}B'")
        self.con.execute(f"SET threads = {self.threads}")
        self._arrow: dict[str, pa.Table] = {}

    @property
    def spill_dir(self) -> str:
        """The folder DuckDB spills to (created by DuckDB when it first spills; removed on close)."""
        return os.path.join(self._folder.name, "spill")

    def check_capacity(self, source: object) -> None:
        if not isinstance(source, EventFiles) or self.pool is None:
            return  # an in-memory table is already in memory: its copy fits where it does
        rows, need = work_bytes(source)
        free = shutil.disk_usage(self._folder.name).free
        if need > self.pool + free:
            raise ValueError(
                f"this run cannot finish on the duckdb engine: by its estimate about {count(rows)} events "
                f"need {_gb(need)} of memory and spill space, but it may use {_gb(self.pool)} of memory "
                f"and {self.temp_dir} has {_gb(free)} free, so give --temp-dir a folder on a disk "
                f"with at least {_gb(need - self.pool)} free"
            )
        traces, available = rows * TRACE_BYTES_PER_EVENT, available_memory()
        if available is not None and traces > available:
            raise ValueError(
                f"this run cannot finish on the duckdb engine: by its estimate the grid's traces and "
                f"their index (about {count(rows)} events) need {_gb(traces)} of memory, which "
                f"cannot spill, and only {_gb(available)} is available"
            )

    def release_memory(self) -> None:
        """Move DuckDB's tables out of its buffer pool (to the spill folder) while the kernels hold a
        profile's traces: lowering the limit evicts them; the next query may use the whole pool again."""
        if self.pool is None:
            return
        with self._errors():
            self.con.execute(f"SET memory_limit = '{RELEASED_POOL}B'")
            self.con.execute(f"SET memory_limit = '{self.pool}B'")

    def execute(self, sql: str) -> pa.Table:
        with self._errors():
            return self.con.sql(sql).to_arrow_table()

    def batches(self, sql: str, rows: int) -> Iterator[pa.RecordBatch]:
        with self._errors():
            reader = iter(self.con.sql(sql).to_arrow_reader(rows))
        while True:
            with self._errors():
                batch = next(reader, None)
            if batch is None:
                return
            yield batch

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """DuckDB's interrupt as ``Cancelled``; running out of memory or disk as one readable ValueError."""
        try:
            yield
        except self._duckdb.InterruptException:
            raise Cancelled("cancelled by the user") from None
        except self._duckdb.OutOfMemoryException as exc:
            limit = "its" if self.pool is None else f"its {_gb(self.pool)}"
            raise ValueError(
                f"the duckdb engine ran out of {limit} memory limit even with spilling to "
                f"{self.temp_dir} ({str(exc).splitlines()[0]})"
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

    def create_scan(self, name: str, kind: str, sql: str) -> None:
        if kind != "parquet":  # parsing text again would cost more than keeping its rows
            return self.create_table(name, sql)
        self.drop(name)  # a view: Parquet is read again by each of the few queries, never held
        with self._errors():
            self.con.execute(f"CREATE VIEW {name} AS {sql}")

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
        if self._owner is not None:
            self._owner.close()
        self._folder.cleanup()


def _gb(n: int) -> str:
    """Bytes as GB with one decimal (the memory limits' unit)."""
    return f"{n / 1e9:.1f} GB"
