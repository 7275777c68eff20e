"""A numba cache locator whose entries stay valid when the studio is moved: the frozen program ships them.

numba files a kernel's compiled code under a folder named after the absolute path of its source and, in a
frozen program, checks it against a hash of the executable. Here the folder is named after the source's
path inside the installation and the check is a hash of the source itself, so a cache made by the
installer build is found, and trusted only for unchanged sources, wherever the program is unpacked.
Selected through ``NUMBA_CACHE_LOCATOR_CLASSES`` (``privacy_studio.numba_cache.configure_portable_cache``).

Both locators here trust an entry only while every kernel module is unchanged (:func:`kernels_stamp`): numba
checks a cached function against its own source file only, but its machine code holds the functions it
inlined from other kernel modules, so after an edit of one kernel the others kept running its old version.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from numba.core.caching import UserProvidedCacheLocator

#: The folder holding the ``privacy_studio`` package (a checkout, site-packages, or the frozen bundle).
INSTALL_ROOT = Path(__file__).resolve().parents[1]
#: The kernel modules: every cached kernel may hold code inlined from any of them.
KERNELS = Path(__file__).resolve().parent / "core" / "kernels"


@functools.cache
def _source_hash(path: str, mtime: float, size: int) -> str:
    """SHA-256 of a source file, memoized per (path, mtime, size) so an edited file is hashed again."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def kernels_stamp() -> str:
    """A digest of the source of every kernel module (each file hashed once per modification)."""
    digest = hashlib.sha256()
    for path in sorted(KERNELS.glob("*.py")):
        stat = path.stat()
        digest.update(f"{path.name}:{_source_hash(str(path), stat.st_mtime, stat.st_size)};".encode())
    return digest.hexdigest()


class KernelsCacheLocator(UserProvidedCacheLocator):
    """numba's own locator under ``NUMBA_CACHE_DIR``, its entries valid only for the same kernel sources."""

    def get_source_stamp(self) -> tuple:
        return (super().get_source_stamp(), kernels_stamp())


class PortableCacheLocator(UserProvidedCacheLocator):
    """Under ``NUMBA_CACHE_DIR``, keyed by the source's path relative to the installation and its content."""

    @classmethod
    def get_suitable_cache_subpath(cls, py_file: str) -> str:
        folder = Path(py_file).resolve().parent
        try:
            relative = folder.relative_to(INSTALL_ROOT).as_posix()
        except ValueError:  # another package's kernel: numba's own naming
            return super().get_suitable_cache_subpath(py_file)
        return f"{folder.name}_{hashlib.sha1(relative.encode()).hexdigest()}"

    def get_source_stamp(self) -> str:
        stat = os.stat(self._py_file)
        return f"{_source_hash(self._py_file, stat.st_mtime, stat.st_size)}:{kernels_stamp()}"
