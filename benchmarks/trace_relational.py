"""Where a relational run's time goes: ``privacy-studio risk`` run in process, with every back-end
statement, fetch, coarsening and progress message time-stamped on stderr (seconds since start).

    python benchmarks/trace_relational.py risk events.parquet ... --engine duckdb --json out.json

Arguments are those of ``privacy-studio``; each profile's own stages (k-anonymity, index, draws, search)
are in the written JSON's ``timings``. Used for docs/engines-benchmark.md's statement tables.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable

from privacy_studio.numba_cache import configure_numba_cache

configure_numba_cache()  # as the command does, before numba loads: the kernels its warm-up compiled

from privacy_studio.cli import _progress, main  # noqa: E402
from privacy_studio.core.engines import duckdb_engine, fetch, relational  # noqa: E402
from privacy_studio.core.generalize import Profile, Traces  # noqa: E402

START = time.perf_counter()


def log(message: str) -> None:
    """One time-stamped line on stderr."""
    sys.stderr.write(f"\n[{time.perf_counter() - START:8.1f} s] {message}\n")
    sys.stderr.flush()


def first_words(sql: object) -> str:
    """A statement's first 90 characters on one line."""
    return " ".join(str(sql).split())[:90]


def labels(value: object) -> str:
    """A profile's label, "from" the label of traces' profile, or nothing for other arguments."""
    if isinstance(value, Traces):
        return f"from {value.profile.label}"
    return value.label if isinstance(value, Profile) else ""


def timed(owner: object, name: str, describe: Callable[..., str]) -> None:
    """Replace ``owner.name`` by a wrapper that logs its duration (a generator: until it is exhausted)."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def call(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            log(f"{name} {describe(*args, **kwargs)}: {time.perf_counter() - t0:.1f} s")

    @functools.wraps(original)
    def stream(*args, **kwargs):
        t0 = time.perf_counter()
        yield from original(*args, **kwargs)
        log(f"{name} {describe(*args, **kwargs)}: {time.perf_counter() - t0:.1f} s")

    wrapper = stream if name == "batches" else call
    setattr(owner, name, wrapper)


def install() -> None:
    """Wrap the back end's primitives, the fetch and the coarsening, and log every new progress message."""
    engine = duckdb_engine.DuckDBEngine
    for name in ("execute", "create_table", "create_scan", "read_files", "batches"):
        timed(engine, name, lambda self, *a: first_words(" ".join(map(str, a))))
    timed(engine, "release_memory", lambda self: "")
    timed(fetch, "user_lengths", lambda *a: "")
    timed(fetch, "sort_segments", lambda *a: f"{len(a[1]):,} user-points")
    timed(relational, "fetch_traces", lambda engine, profile, *a: profile.label)
    for coarsening in ("coarsened", "from_pool"):  # before and after 71c40cc
        if hasattr(relational, coarsening):
            timed(relational, coarsening, lambda *a: " ".join(map(labels, a)))
    shown = _progress.ProgressBar.__call__
    last: list[str] = [""]

    def progress(self, fraction: float, message: str) -> None:
        if message != last[0]:
            last[0] = message
            log(f"progress {100 * fraction:5.1f} % {message}")
        shown(self, fraction, message)

    _progress.ProgressBar.__call__ = progress


if __name__ == "__main__":
    install()
    code = main(sys.argv[1:])
    log(f"exit {code}")
    raise SystemExit(code)
