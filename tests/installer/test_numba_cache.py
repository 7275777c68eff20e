"""The numba cache folder the runtime hook and the app choose is writable and really used by kernels."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from privacy_studio.numba_cache import (
    BUILD_STAMP,
    BUNDLED_CACHE,
    configure_numba_cache,
    seed_from_bundle,
    user_cache_root,
)


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


KERNEL_CALL = """
from privacy_studio.numba_cache import configure_portable_cache
configure_portable_cache()
import numpy as np
from privacy_studio.core.kernels.rows import is_sorted
assert is_sorted(np.array([0, 1]), np.array([5, 3]))
print(sum(is_sorted.stats.cache_hits.values()), sum(is_sorted.stats.cache_misses.values()))
"""


def _studio_copy(folder: Path) -> Path:
    """A copy of the package at another place, with new modification times (what unpacking a build does)."""
    shutil.copytree(
        Path(__file__).parents[2] / "privacy_studio",
        folder / "privacy_studio",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return folder


def _hits_and_misses(tree: Path, cache: Path, call: str = KERNEL_CALL) -> tuple[int, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(PYTHONPATH=str(tree), NUMBA_CACHE_DIR=str(cache))
    done = subprocess.run(
        [sys.executable, "-c", call], capture_output=True, text=True, env=env, cwd=tree, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    hits, misses = done.stdout.split()
    return int(hits), int(misses)


def test_the_portable_cache_is_valid_wherever_the_studio_lies_and_only_for_the_same_source(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    first = _studio_copy(tmp_path / "built-here")
    assert _hits_and_misses(first, cache) == (0, 1)  # compiled once
    moved = _studio_copy(tmp_path / "installed-there")
    assert _hits_and_misses(moved, cache) == (1, 0)  # another folder, new mtimes: loaded, nothing compiled
    _edit(moved / "privacy_studio" / "core" / "kernels" / "rows.py")
    assert _hits_and_misses(moved, cache) == (0, 1)  # an edited source never uses the old entry
    _edit(moved / "privacy_studio" / "core" / "kernels" / "intersect.py")
    assert _hits_and_misses(moved, cache) == (0, 1)  # nor one compiled with another kernel's old source


def _edit(kernel: Path) -> None:
    kernel.write_text(kernel.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")


def test_a_cached_kernel_is_compiled_again_when_any_kernel_module_changes(tmp_path: Path) -> None:
    """numba checks a cached kernel against its own file only, while its code holds what it inlined from
    other kernel modules: the studio's locator trusts an entry only for the same sources of them all."""
    call = KERNEL_CALL.replace("configure_portable_cache", "configure_numba_cache")
    cache, tree = tmp_path / "cache", _studio_copy(tmp_path / "tree")
    assert _hits_and_misses(tree, cache, call) == (0, 1)
    assert _hits_and_misses(tree, cache, call) == (1, 0)  # nothing changed: loaded
    _edit(tree / "privacy_studio" / "core" / "kernels" / "intersect.py")
    assert _hits_and_misses(tree, cache, call) == (0, 1)  # rows.py is the same, another kernel is not
    assert _hits_and_misses(tree, cache, call) == (1, 0)


def test_the_shipped_cache_is_copied_once_per_build(tmp_path: Path) -> None:
    bundled, cache = tmp_path / BUNDLED_CACHE, tmp_path / "user"
    (bundled / "kernels_ab").mkdir(parents=True)
    (bundled / "kernels_ab" / "f.nbi").write_bytes(b"index")
    assert not seed_from_bundle(bundled, cache)  # no build stamp: not a finished build, nothing copied
    (bundled / BUILD_STAMP).write_text("1234\n")
    assert seed_from_bundle(bundled, cache)
    assert (cache / "kernels_ab" / "f.nbi").read_bytes() == b"index"
    assert not (cache / BUILD_STAMP).exists()
    (cache / "kernels_ab" / "f.nbi").write_bytes(b"updated by the user's own compilations")
    assert not seed_from_bundle(bundled, cache)  # the same build is not copied again
    assert (cache / "kernels_ab" / "f.nbi").read_bytes() == b"updated by the user's own compilations"
    assert not seed_from_bundle(bundled, bundled)  # the build's own warm-up writes into the bundle
    assert sorted(p.name for p in cache.rglob("*")) == ["f.nbi", "kernels_ab", "shipped-1234"]
