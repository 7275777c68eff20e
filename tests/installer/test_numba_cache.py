"""The numba cache folder the runtime hook and the app choose is writable and really used by kernels."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from privacy_studio.numba_cache import configure_numba_cache, user_cache_root


def test_default_folder_is_per_user_and_writable(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    path = configure_numba_cache()
    assert path == user_cache_root() / "numba"
    assert os.environ["NUMBA_CACHE_DIR"] == str(path)
    probe = path / "probe"
    probe.write_text("ok")
    assert probe.read_text() == "ok"


def test_a_folder_chosen_by_the_user_is_kept(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert configure_numba_cache() == tmp_path / "mine"
    assert (tmp_path / "mine").is_dir()


def test_runtime_hook_makes_kernels_cache_there(tmp_path: Path) -> None:
    """Run the hook in a fresh interpreter, compile a kernel, and find its cache files in the folder."""
    hook = Path(__file__).parents[2] / "installer" / "hooks" / "rthook_numba_cache.py"
    script = (
        f"exec(open({str(hook)!r}).read())\n"
        "import numpy as np\n"
        "from privacy_studio.core.kernels.csr import dedupe_segments\n"
        "dedupe_segments(np.array([0, 2]), np.array([3, 1]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    env["HOME"] = str(tmp_path)
    subprocess.run([sys.executable, "-c", script], check=True, env=env, timeout=300)
    cached = list((tmp_path / "privacy-studio" / "numba").rglob("*.nbi"))
    assert cached, "numba wrote no index file into the per-user cache folder"
