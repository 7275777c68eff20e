"""Getting a Spark session for the risk engine: local[N], a cluster master URL, or the one already running.

Local sessions are tuned for small machines and tests (no UI, few shuffle partitions, quiet logs, spills
under ``temp_dir``); cluster sessions only get what the plan needs, so the cluster's own defaults stay in
charge of executors. Every failure to start comes out as one :class:`SparkError` sentence.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import socket
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Master URLs Spark accepts; anything else is refused before a JVM is started.
_MASTER_RE = re.compile(
    r"^(local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|spark://[^\s/]+|yarn|k8s://\S+)$"
)
_LOG4J = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark %p %c{1}: %m%n
"""


class SparkError(ValueError):
    """Spark cannot be used (no pyspark, no Java, bad master URL, failed query); ``str()`` says why."""


@dataclass(frozen=True)
class SparkOptions:
    """How to get a session: ``master`` None means an existing session, else ``local[threads]``."""

    master: str | None = None
    threads: int | None = None
    memory_limit: str | None = None  # driver memory, e.g. "2g"; in local mode the executors live there too
    temp_dir: str | None = None  # spark.local.dir: shuffle files and spills


def check_master(master: str) -> str:
    """The master URL, stripped; a :class:`SparkError` naming the accepted forms if it is not one."""
    url = master.strip()
    if not _MASTER_RE.match(url):
        raise SparkError(
            f"Spark master {master!r} is not a master URL: use local[N], spark://host:7077, yarn or "
            "k8s://https://host:443"
        )
    return url


def check_reachable(master: str, timeout: float = 5.0) -> None:
    """For ``spark://host:port[,host:port]``: SparkError unless one master accepts a connection.

    Spark itself would retry for a minute or more and then fail with a message naming no address.
    """
    if not master.startswith("spark://"):
        return
    problems = []
    for address in master[len("spark://") :].split(","):
        host, _, port = address.rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=timeout):
                return
        except (OSError, ValueError) as exc:
            problems.append(f"{address} ({exc.strerror or exc})" if isinstance(exc, OSError) else address)
    raise SparkError(f"cannot reach the Spark master at {', '.join(problems)}: is the cluster up?")


def java_version() -> str | None:
    """The first line of ``java -version`` (JAVA_HOME first, then PATH), or None when there is no Java."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not Path(java).exists():
        return None
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[0] if done.returncode == 0 and lines else None


def parse_memory(text: str) -> str:
    """Spark's memory notation in MiB (``1536m``) from ``1.5GB``, ``512 MB``, ``2g``; SparkError if not."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt])i?b?\s*", str(text), re.IGNORECASE)
    if not m:
        raise SparkError(f"memory limit {text!r} not understood (use e.g. 2GB, 512MB)")
    mib = float(m.group(1)) * 1024.0 ** ("kmgt".index(m.group(2).lower()) - 1)
    if mib < 256:
        raise SparkError(f"memory limit {text!r} is too small for Spark (it needs at least 256MB)")
    return f"{int(mib)}m"


#: Largest table a local session joins by broadcast (see :func:`local_conf`).
BROADCAST_BYTES = 256 << 20


def local_conf(options: SparkOptions) -> dict[str, str]:
    """Settings for a local[N] session on a small machine or in tests (a cluster keeps its own)."""
    threads = options.threads or os.cpu_count() or 2
    temp = Path(options.temp_dir) if options.temp_dir else None
    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": str(max(2, threads)),
        "spark.default.parallelism": str(max(2, 2 * threads)),
        "spark.driver.memory": parse_memory(options.memory_limit) if options.memory_limit else "2g",
        "spark.driver.bindAddress": os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"),
        "spark.driver.host": os.environ.get("SPARK_LOCAL_IP", "127.0.0.1"),
        "spark.sql.adaptive.enabled": "false",  # re-planning costs more than it saves on small local data
        # One JVM holds every task: a table of up to this size (the user codes of a few million people) is
        # joined by hash in each task instead of shuffling the events by user.
        "spark.sql.autoBroadcastJoinThreshold": str(BROADCAST_BYTES),
    }
    if temp is not None:
        conf["spark.local.dir"] = str(temp)
        conf["spark.sql.warehouse.dir"] = str(temp / "spark-warehouse")
    return conf


#: Per-session SQL settings the plan relies on: UTC times, ANSI SQL with "double-quoted" identifiers (the
#: plan quotes file column names that way, as DuckDB does), Arrow transfers to and from Python.
SQL_CONF = {
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.ansi.enabled": "true",
    "spark.sql.ansi.doubleQuotedIdentifiers": "true",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}


def _log4j_file(temp_dir: str | None) -> Path:
    folder = Path(temp_dir) if temp_dir else Path(os.environ.get("TMPDIR", "/tmp"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "privacy-studio-spark-log4j2.properties"
    if not path.exists() or path.read_text() != _LOG4J:
        path.write_text(_LOG4J)
    return path


def _import_pyspark():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "PySpark does not yet fully support pandas 3"
            from pyspark.sql import SparkSession
    except ImportError:
        raise SparkError(
            "the Spark engine needs PySpark: install privacy-studio[spark] (pip install pyspark)"
        ) from None
    logging.getLogger("py4j").setLevel(logging.ERROR)
    try:  # PySpark 4 logs every failed query with its JVM stack; ours become one SparkError instead
        from pyspark.logger import PySparkLogger
    except ImportError:
        return SparkSession
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)
    return SparkSession


def existing_session() -> SparkSession | None:
    """The session this process already runs (a notebook, spark-submit, a test fixture), if any."""
    session_cls = _import_pyspark()
    try:
        return session_cls.active()  # this thread's session, else the one the builder made last
    except Exception:  # PySparkRuntimeError NO_ACTIVE_OR_DEFAULT_SESSION
        return None


def start_session(options: SparkOptions, app_name: str = "privacy-studio") -> SparkSession:
    """A new session on ``options.master`` (``local[threads]`` when None); :class:`SparkError` if it fails.

    Under spark-submit (``PYSPARK_GATEWAY_PORT`` set) the submitted configuration is kept as it is.
    """
    session_cls = _import_pyspark()
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    if options.master is not None:
        master = check_master(options.master)
    else:
        master = None if submitted else f"local[{options.threads or '*'}]"
    if not submitted and java_version() is None:
        raise SparkError(
            "the Spark engine needs a Java 17+ runtime and none was found: install one "
            "(e.g. apt install default-jre-headless) or set JAVA_HOME"
        )
    if master is not None:
        check_reachable(master)
    builder = session_cls.builder.appName(app_name)
    log4j = _log4j_file(options.temp_dir)
    conf = {
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{log4j}",
        # Dropped tables' blocks are freed when the driver's JVM collects them: collect every minute.
        "spark.cleaner.periodicGC.interval": "1min",
        **SQL_CONF,
    }
    if master is not None:
        builder = builder.master(master)
    if master is not None and master.startswith("local"):
        conf.update(local_conf(options))
    elif options.memory_limit:
        conf["spark.driver.memory"] = parse_memory(options.memory_limit)
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            session = builder.getOrCreate()
    except Exception as exc:  # py4j / PySparkRuntimeError: the JVM did not come up
        raise SparkError(
            f"Spark did not start on {master or 'the submitted master'}: {first_line(exc)}"
        ) from exc
    session.sparkContext.setLogLevel("ERROR")
    return session


def first_line(exc: BaseException) -> str:
    """The readable head of a Spark/py4j error (no JVM stack trace)."""
    text = str(exc).strip()
    for line in text.splitlines():
        line = line.strip().removeprefix(": ")
        if line and not line.startswith(("at ", "Traceback", "JVM stacktrace", "An error occurred while")):
            return line[:500]
    return type(exc).__name__


def get_session(options: SparkOptions) -> tuple[SparkSession, bool]:
    """The session to run on and whether we started it (and so must stop it).

    With no master the running session is reused, else a local one is started; with a master URL a
    running session is reused only when it is on that master (Spark allows one context per process).
    """
    running = existing_session()
    if running is not None:
        current = running.sparkContext.master
        if options.master is None or check_master(options.master) == current:
            return running, False
        raise SparkError(
            f"a Spark session on {current} already runs in this process; Spark allows only one, so "
            f"{options.master} cannot be used (stop the other session or leave the master unset)"
        )
    return start_session(options), True
