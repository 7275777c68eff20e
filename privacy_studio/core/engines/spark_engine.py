"""The cluster back end: Apache Spark runs the same relational plan as DuckDB (``local[N]`` or a cluster).

Tables live as cached temporary views in a private session (its own SQL settings and view names, sharing
the SparkContext of any session already running). Small results come back through Arrow; a
cancelled run stops its Spark jobs through the engine's own job group.
"""

from __future__ import annotations

import threading
import time
import uuid

import numpy as np
import pyarrow as pa

from privacy_studio.core.engines import plan
from privacy_studio.core.engines.backend import FileRead
from privacy_studio.core.engines.relational import RelationalEngine
from privacy_studio.core.engines.spark_session import (
    SQL_CONF,
    SparkError,
    SparkOptions,
    first_line,
    get_session,
)
from privacy_studio.core.progress import Cancelled, TaskControl
from privacy_studio.core.risk.settings import RiskSettings

#: Events per shuffle partition: the generalization aggregate and the joins keep each task's share small
#: enough for a few GB of executor memory (two partitions for 42M events ran a 4 GB local driver out of
#: memory). The session's own setting is kept when it is larger.
EVENTS_PER_PARTITION = 2_000_000

#: Registered Arrow tables of at least this many rows are stored in the executors once (the plan scans the
#: events again for every profile); smaller ones (knowledge, open queries) are cheaper to resend.
CACHE_ROWS = 50_000


def _new_group() -> str:
    """A Spark job group name of our own, so cancelling never touches other jobs in a shared context."""
    return f"privacy-studio-{uuid.uuid4().hex[:12]}"


class SparkEngine(RelationalEngine):
    """The relational plan on a Spark session (see :func:`~.spark_session.get_session` for which one)."""

    dialect = plan.SPARK
    collects_whole = True  # toArrow brings a result whole to the driver

    def __init__(
        self,
        memory_limit: str | None = None,
        temp_dir: str | None = None,
        threads: int | None = None,
        spark_master: str | None = None,
    ) -> None:
        if threads is not None and (isinstance(threads, bool) or int(threads) < 1):
            raise ValueError(f"threads must be a whole number ≥ 1, got {threads!r}")
        options = SparkOptions(spark_master, threads, memory_limit, temp_dir)
        self._root, self._owned = get_session(options)
        self.session = self._root.newSession()  # our views and SQL settings stay out of the caller's
        for key, value in SQL_CONF.items():
            self.session.conf.set(key, value)
        self._group = _new_group()
        self._frames: dict = {}  # name -> the DataFrame behind each of our temporary views
        self._cached: set[str] = set()  # names whose frame we cached (unpersisted when dropped)
        self._cancelled = False
        self._busy = threading.Event()  # set while one of our Spark actions runs

    @property
    def master(self) -> str:
        return str(self._root.sparkContext.master)

    def _run(self, action, what: str):
        """Run a Spark action in our job group; Cancelled if we interrupted it, else one SparkError.

        Once cancelled, no new action starts until the next ``run_grid`` (cancelling only stops running jobs).
        """
        self._busy.set()  # before looking at the flag: a cancel from now on keeps cancelling until we end
        try:
            if self._cancelled:
                raise Cancelled("cancelled by the user")
            self._root.sparkContext.setJobGroup(
                self._group, f"privacy-studio: {what}", interruptOnCancel=True
            )
            return action()
        except Cancelled:
            raise
        except Exception as exc:
            if self._cancelled:
                raise Cancelled("cancelled by the user") from None
            raise SparkError(f"Spark failed while {what}: {first_line(exc)}") from exc
        finally:
            self._busy.clear()

    def execute(self, sql: str) -> pa.Table:
        return self._run(lambda: self.session.sql(sql).toArrow(), "running a query")

    def register(self, name: str, table: pa.Table) -> None:
        self.drop(name)
        frame = self._run(lambda: self.session.createDataFrame(table), f"sending {name} to Spark")
        if table.num_rows >= CACHE_ROWS:
            frame = self._run(lambda: frame.localCheckpoint(eager=True), f"storing {name}")
        self._frames[name] = frame
        frame.createOrReplaceTempView(name)

    def create_table(self, name: str, sql: str) -> None:
        # Computed before the old table of that name goes (the query may read it) and cached in the
        # executors (compressed columns, spilling to disk). A cache, unlike a local checkpoint, is freed as
        # soon as it is dropped: the events go once the grid's base traces are fetched.
        def compute():
            frame = self.session.sql(sql).persist()  # memory and disk
            frame.count()
            return frame

        frame = self._run(compute, f"computing {name}")
        self.drop(name)
        self._frames[name] = frame
        self._cached.add(name)
        frame.createOrReplaceTempView(name)

    def create_fetched(self, name: str, sql: str) -> None:
        # Left a view: the fetch reads it once, whole (collects_whole), from the cached events.
        frame = self._run(lambda: self.session.sql(sql), f"planning {name}")
        self.drop(name)
        self._frames[name] = frame
        frame.createOrReplaceTempView(name)

    def create_scan(self, name: str, kind: str, sql: str) -> None:
        if kind != "parquet":  # parsing text again would cost more than storing its rows
            return self.create_table(name, sql)
        frame = self._run(lambda: self.session.sql(sql), f"planning {name}")  # lazy: each use re-reads
        self.drop(name)
        self._frames[name] = frame
        frame.createOrReplaceTempView(name)

    def create_ranked(self, name: str, distinct_sql: str, key: str, code: str) -> None:
        # A window without PARTITION BY ranks every key in one task (100M ids on one executor). Instead a
        # global sort spreads the keys over range partitions, each row gets its partition and a
        # per-partition increasing id, and the rank is the partition's offset plus the row's place in it.
        from pyspark.sql import functions as F

        def sort_and_number():
            ordered = self.session.sql(f"SELECT {key} FROM ({distinct_sql}) d ORDER BY {key}")
            numbered = ordered.select(
                key, F.spark_partition_id().alias("pid"), F.monotonically_increasing_id().alias("mid")
            )
            return numbered.localCheckpoint(eager=True)  # the sampled range bounds must not be redrawn

        numbered = self._run(sort_and_number, f"sorting {name}")
        parts = self._run(
            lambda: (
                numbered.groupBy("pid").agg(F.count("*").alias("n"), F.min("mid").alias("first")).toArrow()
            ),
            f"counting {name} per partition",
        ).sort_by("pid")
        counts = parts.column("n").to_numpy()
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        self.register(
            "ps_rank_parts",
            pa.table({"pid": parts.column("pid"), "start": starts, "first": parts.column("first")}),
        )
        self._frames["ps_rank_numbered"] = numbered
        numbered.createOrReplaceTempView("ps_rank_numbered")
        self.create_table(
            name,
            f"SELECT r.{key} AS {key}, CAST(p.start + r.mid - p.first AS BIGINT) AS {code} "
            "FROM ps_rank_numbered r JOIN ps_rank_parts p ON p.pid = r.pid",
        )
        self.drop("ps_rank_numbered")
        self.drop("ps_rank_parts")

    def expect_rows(self, n_rows: int) -> None:
        key = "spark.sql.shuffle.partitions"
        wanted = -(-int(n_rows) // EVENTS_PER_PARTITION)
        if wanted > int(self.session.conf.get(key)):
            self.session.conf.set(key, str(wanted))

    def drop(self, name: str) -> None:
        self.session.catalog.dropTempView(name)
        frame = self._frames.pop(name, None)
        if name in self._cached:
            self._cached.discard(name)
            if frame is not None and all(f is not frame for f in self._frames.values()):  # not aliased
                frame.unpersist()

    def run_grid(self, source: object, settings: RiskSettings, control: TaskControl | None = None):
        # A fresh job group per run: a cancel still looping for the previous run cannot reach this one.
        self._group = _new_group()
        self._cancelled = False
        return super().run_grid(source, settings, control)

    def cancel(self) -> None:
        self._cancelled = True
        threading.Thread(target=self._cancel_jobs, args=(self._group,), daemon=True).start()

    def _cancel_jobs(self, group: str) -> None:
        """Cancel ``group`` until the running action of that run ends.

        An action still being planned when the user cancelled starts its jobs afterwards, and cancelling a
        group only stops the jobs it already has.
        """
        sc = self._root.sparkContext
        while True:
            sc.cancelJobGroup(group)
            if not self._busy.is_set() or self._group != group:
                return
            time.sleep(0.2)

    def read_files(self, name: str, files: FileRead) -> None:
        reader = self.session.read
        if files.kind == "parquet":
            frame = self._run(lambda: reader.parquet(*files.paths), f"reading {files.paths[0]}")
        else:
            reader = reader.options(
                sep=files.delimiter,
                header=str(files.header).lower(),
                quote='"',
                escape='"',
                inferSchema="false",
                mode="PERMISSIVE",
            )
            if files.names:
                from pyspark.sql.types import StringType, StructField, StructType

                reader = reader.schema(StructType([StructField(n, StringType()) for n in files.names]))
            frame = self._run(lambda: reader.csv(list(files.paths)), f"reading {files.paths[0]}")
        self.session.catalog.dropTempView(name)
        self._frames[name] = frame
        frame.createOrReplaceTempView(name)

    def close(self) -> None:
        for name in list(self._frames):
            self.drop(name)
        if self._owned:
            self._root.stop()
            self._owned = False
        else:  # a session we leave running: its cleaner frees our stored tables once the JVM collects them
            self._root.sparkContext._jvm.System.gc()
