"""Writing on a full disk, Ctrl-C and kill -9: the command says so and exits non-zero, and the previous
output is intact (no half file, no temporary file left after the next start)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from privacy_studio.core import atomic
from tests.faults.conftest import write_events
from tests.faults.harness import (
    PREVIOUS,
    environment_for_subprocess,
    judge_error,
    judge_result,
    prepare_outputs,
    run_cli,
)


@contextlib.contextmanager
def full_disk(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A folder whose disk is full: a small tmpfs filled up when mounting works (root), else a writer whose
    flush fails with ENOSPC. Yields which of the two it is."""
    folder.mkdir()
    mounted = (
        os.geteuid() == 0
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", str(folder)], capture_output=True
        ).returncode
        == 0
    )
    try:
        if not mounted:
            real_fsync = os.fsync

            def failing_fsync(fd: int) -> None:
                if stat.S_ISREG(os.fstat(fd).st_mode) and os.readlink(f"/proc/self/fd/{fd}").startswith(
                    str(folder)
                ):
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                real_fsync(fd)

            monkeypatch.setattr(atomic.os, "fsync", failing_fsync)
        yield "tmpfs" if mounted else "failing writer"
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def _fill(folder: Path) -> None:
    """Fill the small tmpfs mounted at ``folder`` (never anything else)."""
    assert os.path.ismount(folder), folder
    with contextlib.suppress(OSError), open(folder / "filler", "wb") as fh:
        while True:
            fh.write(b"\0" * 4096)
            fh.flush()
            os.fsync(fh.fileno())


WRITERS = {
    "inspect": ["inspect", "{data}", "--json", "{out}.json", "--no-cache"],
    "risk": ["risk", "{data}", "--spatial", "raw", "--temporal", "6h", "--p", "1", "--json", "{out}.json"],
    "theory": ["theory", "--n", "100", "--q", "0.05", "--d", "10", "--json", "{out}.json"],
    "attack_features": ["attack", "features", "--data", "{data}", "--out", "{out}.csv"],
}


@pytest.mark.parametrize("name", sorted(WRITERS))
def test_full_disk_keeps_the_previous_output(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: Callable
) -> None:
    data = write_events(tmp_path / "events.csv")
    with full_disk(tmp_path / "disk", monkeypatch) as kind:
        argv = [a.format(data=data, out=tmp_path / "disk" / "out") for a in WRITERS[name]]
        (out,) = [Path(a) for a in argv if a.startswith(str(tmp_path / "disk"))]
        prepare_outputs(out)
        if kind == "tmpfs":
            _fill(out.parent)
        run = run_cli(argv)
        record(judge_error(run, (out,)), f"{kind}: {run.err}{run.raised or ''}")


def test_full_disk_project_save_keeps_the_file_and_its_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: Callable
) -> None:
    from privacy_studio.core.project import Project, ProjectError

    sample = Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj"
    project = Project.load(sample)
    with full_disk(tmp_path / "disk", monkeypatch) as kind:
        target = tmp_path / "disk" / "p.psproj"
        prepare_outputs(target)
        target.chmod(0o640)
        if kind == "tmpfs":
            _fill(target.parent)
        try:
            project.save(target)
            outcome = "silent wrong result"
        except ProjectError:
            kept = target.read_text() == PREVIOUS and stat.S_IMODE(target.stat().st_mode) == 0o640
            outcome = "clear error" if kept else "output lost"
        record(outcome, kind)


def test_saving_keeps_the_permissions(tmp_path: Path, record: Callable) -> None:
    from privacy_studio.core.project import Project

    project = Project.load(Path(__file__).resolve().parents[2] / "sample_data" / "sample.psproj")
    target = tmp_path / "p.psproj"
    prepare_outputs(target)
    target.chmod(0o644)
    project.save(target)
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(atomic.TEMP_PREFIX)]
    ok = stat.S_IMODE(target.stat().st_mode) == 0o644 and not leftovers and Project.load(target).name
    record("worked" if ok else "output lost")


def _start(tmp_path: Path, out: Path) -> subprocess.Popen:
    data = write_events(tmp_path / "events.csv", users=150, events=40)
    argv = [sys.executable, "-m", "privacy_studio", "risk", str(data), "--spatial", "raw", "--temporal"]
    argv += ["1h,6h,1d,1w,all", "--p", "1-6", "--json", str(out)]
    env = environment_for_subprocess() | {"PRIVACY_STUDIO_CACHE": str(tmp_path / "cache")}
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _output_whole(out: Path) -> bool:
    """The output holds the previous text or a complete new result, and nothing is left beside it."""
    text = out.read_text()
    leftovers = [p for p in out.parent.iterdir() if p.name.startswith(atomic.TEMP_PREFIX)]
    if leftovers:
        return False
    if text == PREVIOUS:
        return True
    with contextlib.suppress(ValueError):
        return bool(json.loads(text)["profiles"])
    return False


@pytest.mark.parametrize("delay", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
def test_ctrl_c_exits_130_and_keeps_the_output(delay: float, tmp_path: Path, record: Callable) -> None:
    out = tmp_path / "out.json"
    prepare_outputs(out)
    process = _start(tmp_path, out)
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    try:
        _, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        record("hang")
        return
    if "Traceback" in err:
        outcome = "traceback"
    elif not _output_whole(out):
        outcome = "output lost"
    elif process.returncode == 130 and "interrupted" in err:
        outcome = "clear error"
    elif process.returncode == 0:
        outcome = "worked"  # finished before the signal: the new result is complete
    else:
        outcome = "crash"
    at = max(err.find("Traceback"), 0)
    record(outcome, f"rc={process.returncode} {err[max(at - 300, 0) : at + 2500]}")


PROBE = """
import os, signal
from privacy_studio.cli import _interrupted, _watch_ctrl_c

_watch_ctrl_c()
try:  # Ctrl-C while numba or a dataclass runs generated source text
    exec("import os, signal, time\\nos.kill(os.getpid(), signal.SIGINT)\\ntime.sleep(30)")
except KeyboardInterrupt:
    raise SystemExit(_interrupted(final=True))
"""


def test_ctrl_c_inside_generated_code_still_exits_130(tmp_path: Path) -> None:
    """Run with ``python -m`` as the tests' commands are: CPython remembers a KeyboardInterrupt that left an
    ``exec`` of source text and, once the module returned, killed itself with SIGINT (status -2, seen in CI
    one run in fifty when Ctrl-C met numba's compiler)."""
    (tmp_path / "ctrl_c_probe").mkdir()
    (tmp_path / "ctrl_c_probe" / "__main__.py").write_text(PROBE)
    env = environment_for_subprocess()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    done = subprocess.run(
        [sys.executable, "-m", "ctrl_c_probe"], env=env, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr.strip()) == (130, "interrupted")


@pytest.mark.parametrize("delay", [1.5, 4.0])
def test_kill_9_leaves_the_output_whole_after_the_next_start(
    delay: float, tmp_path: Path, record: Callable
) -> None:
    out = tmp_path / "out.json"
    prepare_outputs(out)
    process = _start(tmp_path, out)
    time.sleep(delay)
    process.kill()
    process.communicate(timeout=60)
    stale = out.parent / f"{atomic.TEMP_PREFIX}out.json.killed"
    stale.write_text("half")  # what a kill during the rename window leaves
    run = run_cli(["theory", "--n", "100", "--q", "0.05", "--d", "10", "--json", tmp_path / "other.json"])
    record("worked" if run.code == 0 and _output_whole(out) else "output lost", run.err)


def test_output_to_a_pipe_is_written_into_it(tmp_path: Path, record: Callable) -> None:
    """``--json PIPE`` (like ``/dev/null``) writes into the pipe; it is not replaced by a plain file."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()))
    reader.start()
    run = run_cli(["theory", "--n", "100", "--q", "0.05", "--d", "10", "--json", pipe], seconds=30)
    reader.join(30)
    still_pipe = stat.S_ISFIFO(os.stat(pipe).st_mode)
    record(judge_result(run, lambda r: still_pipe and bool(received) and '"d"' in received[0]), run.err)
