"""``installer/_bootstrap.sh`` waits for another package manager's lock (with a limit and a message) instead
of failing at once; other apt failures pass through unchanged."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

BOOTSTRAP = Path(__file__).resolve().parents[2] / "installer" / "_bootstrap.sh"
LOCKED = "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt)"

#: Fake apt-get behaviours: name -> (shell body, lock wait limit, expected exit code, expected stderr text).
CASES = {
    "lock_never_released": (f'echo "{LOCKED}" >&2; exit 100', "0", 1, "still holds the apt/dpkg lock"),
    "lock_released": (
        f'if [ -e "$STATE" ]; then exit 0; fi; touch "$STATE"; echo "{LOCKED}" >&2; exit 100',
        "30",
        0,
        "Waiting for another package manager",
    ),
    "other_failure": ('echo "E: Unable to locate package nosuch" >&2; exit 100', "30", 1, "Unable to locate"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_apt_lock_is_waited_for(name: str, tmp_path: Path, record: Callable) -> None:
    body, limit, code, text = CASES[name]
    fake = tmp_path / "bin" / "apt-get"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/bash\n{body}\n")
    fake.chmod(0o755)
    script = f'source "{BOOTSTRAP}"; apt_waiting_for_lock update -qq'
    env = {
        "PATH": f"{fake.parent}:/usr/bin:/bin",
        "STATE": str(tmp_path / "state"),
        "PRIVACY_STUDIO_APT_LOCK_WAIT": limit,
        "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
        "HOME": str(tmp_path),
    }
    done = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    ok = done.returncode == code and text in done.stderr
    record("clear error" if ok and code else "worked" if ok else "crash", done.stderr)
