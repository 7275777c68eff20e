"""Where numba keeps compiled kernels: a writable per-user folder, so kernels compile once per machine.

Must run before numba is imported. An installed or frozen studio cannot write next to its own sources,
and without a cache every start would compile every kernel again. The frozen program also ships the
kernels its installer build compiled, and copies them into that folder on its first start.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import tempfile
from pathlib import Path

#: Where the installer build leaves the compiled kernels inside the frozen program's folder.
BUNDLED_CACHE = "numba-cache"
#: The file in ``BUNDLED_CACHE`` naming the build (a hash of the cache's files).
BUILD_STAMP = "BUILD"
#: numba's cache locator for entries that do not depend on where the program is unpacked.
PORTABLE_LOCATOR = "privacy_studio.numba_locator.PortableCacheLocator"
#: numba's cache locator otherwise: its own, with entries valid only while no kernel module changed.
KERNELS_LOCATOR = "privacy_studio.numba_locator.KernelsCacheLocator"
#: The CPU the frozen program compiles for on x86-64 (every such CPU since 2009: SSE4.2 and POPCNT), so
#: code compiled by the build machine is valid, and found, on the user's machine.
PORTABLE_CPU = "x86-64-v2"


def user_cache_root() -> Path:
    """The per-user cache folder of the studio (XDG on Linux, LOCALAPPDATA on Windows, Caches on macOS)."""
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "privacy-studio"


def configure_numba_cache() -> Path:
    """Point ``NUMBA_CACHE_DIR`` at a writable folder (keeping one the user already set) and return it; its
    entries are trusted only for the kernel sources they were compiled from (``numba_locator``)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    path = Path(chosen) if chosen else user_cache_root() / "numba"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        path = Path(tempfile.gettempdir()) / "privacy-studio-numba"
        path.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES", KERNELS_LOCATOR)  # the frozen program's stays
    return path


def configure_portable_cache() -> None:
    """Cache entries keyed by installation-relative paths, source hashes and a fixed CPU model (on x86-64),
    unless the user chose otherwise: what the frozen program needs for a shipped cache to be valid."""
    os.environ.setdefault("NUMBA_CACHE_LOCATOR_CLASSES", PORTABLE_LOCATOR)
    if platform.machine().lower() in ("x86_64", "amd64") and "NUMBA_CPU_NAME" not in os.environ:
        os.environ["NUMBA_CPU_NAME"] = PORTABLE_CPU
        os.environ["NUMBA_CPU_FEATURES"] = ""  # the CPU model's own features, not the build machine's


def seed_from_bundle(bundled: Path, cache: Path) -> bool:
    """Copy the compiled kernels shipped in ``bundled`` into ``cache`` once per build; True if it copied.

    Each file is copied under a temporary name and renamed, so a reader never sees half an entry.
    """
    stamp = bundled / BUILD_STAMP
    if not stamp.is_file() or bundled.resolve() == cache.resolve():
        return False
    marker = cache / f"shipped-{stamp.read_text(encoding='utf-8').strip()}"
    if marker.exists():
        return False

    for source in bundled.rglob("*"):
        if source.is_file() and source != stamp:
            target = cache / source.relative_to(bundled)
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
            shutil.copyfile(source, partial)
            os.replace(partial, target)
    marker.touch()
    return True


def configure_frozen_cache() -> Path:
    """The frozen program's start (its PyInstaller runtime hook): the portable cache in the per-user folder,
    seeded with the kernels the build compiled; a failed copy only means they compile again."""
    configure_portable_cache()
    cache = configure_numba_cache()
    bundle = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    try:
        seed_from_bundle(bundle / BUNDLED_CACHE, cache)
    except OSError as exc:
        print(
            f"privacy-studio: the compiled kernels shipped with the program were not copied ({exc})",
            file=sys.stderr,
        )
    return cache
