"""Running one fault case and saying what happened: a clear error, a correct result, or one of the failures
the suite exists to rule out (traceback, hang, crash, silent wrong result, output lost)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from privacy_studio import cli
from privacy_studio.core.atomic import TEMP_PREFIX

OUTCOMES = ("clear error", "worked", "traceback", "hang", "crash", "silent wrong result", "output lost")
GOOD_OUTCOMES = ("clear error", "worked")
#: What an output file holds before a case runs; a failed case must leave exactly this.
PREVIOUS = "previous output, must survive a failed run\n"


@dataclass
class Run:
    """What one command did: its exit code (None when it hung or raised) and what it printed."""

    code: int | None
    out: str
    err: str
    hung: bool = False
    raised: str | None = None

    @property
    def message(self) -> str:
        """The error text without progress-bar redraws."""
        lines = [line for line in self.err.replace("\r", "\n").splitlines() if line.strip()]
        return "\n".join(line for line in lines if not line.lstrip().startswith("["))


@dataclass
class Tally:
    """Outcome of every case, written to ``artifacts/faults.json`` and printed at the end of the run."""

    cases: dict[str, str] = field(default_factory=dict)
    #: case -> the fault class it belongs to (the generator module that made it).
    classes: dict[str, str] = field(default_factory=dict)

    def record(self, case: str, outcome: str, fault_class: str = "") -> str:
        assert outcome in OUTCOMES
        self.cases[case] = outcome
        self.classes[case] = fault_class
        return outcome

    def table(self, cases: list[str] | None = None) -> dict[str, int]:
        chosen = list(self.cases) if cases is None else cases
        counts = Counter(self.cases[c] for c in chosen)
        return {"tried": len(chosen), **{name: counts.get(name, 0) for name in OUTCOMES}}

    def by_class(self) -> dict[str, dict[str, int]]:
        """The table of each fault class."""
        names = sorted(set(self.classes.values()))
        return {n: self.table([c for c, k in self.classes.items() if k == n]) for n in names}

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "faults.json"
        document = {"table": self.table(), "by_class": self.by_class(), "cases": self.cases}
        path.write_text(json.dumps(document, indent=1) + "\n")
        return path


class _Hang(BaseException):
    pass


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raise ``_Hang`` in the main thread after ``seconds`` (a blocked open() or read() is interrupted)."""

    def on_alarm(signum: int, frame: object) -> None:
        raise _Hang

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_cli(argv: list[str], seconds: int = 60) -> Run:
    """``privacy-studio ARGV`` in this process, with its output captured and a time limit."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(seconds), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main([str(a) for a in argv])
    except _Hang:
        return Run(None, out.getvalue(), err.getvalue(), hung=True)
    except SystemExit as exc:  # argparse's own usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    except BaseException:
        return Run(None, out.getvalue(), err.getvalue(), raised=traceback.format_exc())
    return Run(code, out.getvalue(), err.getvalue())


def prepare_outputs(*paths: Path) -> None:
    """Give every output file the PREVIOUS content, so a failed run can be seen to keep it."""
    for path in paths:
        path.write_text(PREVIOUS)


def outputs_intact(*paths: Path) -> bool:
    """True when every output still holds PREVIOUS and no temporary file was left beside it."""
    for path in paths:
        if not path.is_file() or path.read_text(errors="replace") != PREVIOUS:
            return False
        if any(p.name.startswith(TEMP_PREFIX) for p in path.parent.iterdir()):
            return False
    return True


def judge_error(run: Run, outputs: tuple[Path, ...] = (), codes: tuple[int, ...] = (1, 2)) -> str:
    """Outcome of a case that must be refused: a short message without traceback, and outputs kept."""
    if run.hung:
        return "hang"
    if run.raised is not None or "Traceback" in run.err:
        return "traceback"
    if run.code == 0:
        return "silent wrong result"
    if not outputs_intact(*outputs):
        return "output lost"
    message = run.message
    lines = message.splitlines()
    said = any(line.startswith(("privacy-studio", "usage: privacy-studio")) for line in lines)
    if run.code not in codes or not said or len(lines) > 12:
        return "crash"
    return "clear error"


def judge_result(run: Run, correct: Callable[[Run], bool]) -> str:
    """Outcome of a case that must work and give the right answer (``correct`` checks it)."""
    if run.hung:
        return "hang"
    if run.raised is not None or "Traceback" in run.err:
        return "traceback"
    if run.code != 0:
        return "crash"
    return "worked" if correct(run) else "silent wrong result"


def environment_for_subprocess() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env
