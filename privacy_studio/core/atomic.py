"""Atomic file writes: a temporary file in the target's folder, flushed, checked, then renamed into place.

Every file the studio writes (project, JSON, CSV, PDF, release, manifest) goes through ``atomic_write``, so
a reader never sees half a file, a failure (full disk, Ctrl-C, a failed check) leaves the previous file
intact, and the target keeps the permissions it had.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

#: Prefix of the studio's temporary files, so stale ones left by a killed process can be found and removed.
TEMP_PREFIX = ".ps-tmp-"


class WriteError(OSError):
    """A file could not be written; the message is one sentence for the user and the old file is intact."""


@contextlib.contextmanager
def atomic_write(
    path: str | os.PathLike[str],
    mode: str = "w",
    encoding: str | None = "utf-8",
    check: Callable[[Path], None] | None = None,
) -> Iterator[IO]:
    """Yield a file object for a temporary file beside ``path``; on success check it and rename it into place.

    ``check(temp_path)`` may raise to refuse the written content (e.g. a PDF with the wrong page count). On
    any exception, including KeyboardInterrupt, the temporary file is removed and ``path`` is left as it was.
    A device or pipe (``/dev/null``, ``/dev/stdout``) is written to directly: renaming over it would replace
    the device with a plain file.
    """
    target = Path(path)
    if target.exists() and not target.is_file() and not target.is_dir():
        with _write_error(target), open(target, mode, **_text_args(mode, encoding)) as fh:
            yield fh
        return
    folder = target.resolve().parent
    if not folder.is_dir():
        raise WriteError(f"{target}: the folder {folder} does not exist")
    binary = "b" in mode
    remove_stale_temp_files(folder)  # what a process killed while writing here left behind
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-{target.name}.", dir=folder)
    except OSError as exc:
        raise WriteError(f"{target}: cannot be written ({exc.strerror or exc})") from None
    tmp = Path(tmp_name)
    try:
        text_args = {} if binary else {"encoding": encoding, "newline": "\n"}
        with os.fdopen(fd, mode, **text_args) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if check is not None:
            check(tmp)
        _copy_mode(target, tmp)
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        if isinstance(exc, WriteError):
            raise
        raise WriteError(f"{target}: cannot be written ({exc.strerror or exc})") from None
    except BaseException:
        _remove(tmp)
        raise
    _fsync_folder(folder)


def _text_args(mode: str, encoding: str | None) -> dict:
    return {} if "b" in mode else {"encoding": encoding, "newline": "\n"}


@contextlib.contextmanager
def _write_error(target: Path) -> Iterator[None]:
    """Turn an OSError into the one-sentence WriteError."""
    try:
        yield
    except WriteError:
        raise
    except OSError as exc:
        raise WriteError(f"{target}: cannot be written ({exc.strerror or exc})") from None


def write_text(path: str | os.PathLike[str], text: str, check: Callable[[Path], None] | None = None) -> None:
    """Write ``text`` atomically (UTF-8, ``\\n`` line ends)."""
    with atomic_write(path, "w", check=check) as fh:
        fh.write(text)


def write_bytes(
    path: str | os.PathLike[str], data: bytes, check: Callable[[Path], None] | None = None
) -> None:
    """Write ``data`` atomically."""
    with atomic_write(path, "wb", check=check) as fh:
        fh.write(data)


def remove_stale_temp_files(folder: str | os.PathLike[str]) -> int:
    """Delete the studio's temporary files left in ``folder`` by a process that no longer runs (a kill -9
    while writing); files of a running writer are kept. Return how many were deleted."""
    removed = 0
    with contextlib.suppress(OSError):
        for entry in Path(folder).iterdir():
            if entry.name.startswith(TEMP_PREFIX) and entry.is_file() and not _writer_alive(entry.name):
                with contextlib.suppress(OSError):
                    entry.unlink()
                    removed += 1
    return removed


def _writer_alive(name: str) -> bool:
    """True when the temporary file ``name`` belongs to a process still running (its id follows the prefix;
    names without one predate the id and are stale)."""
    pid, dash, _ = name[len(TEMP_PREFIX) :].partition("-")
    if not dash or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's live process
        return True
    return True


def _copy_mode(target: Path, tmp: Path) -> None:
    """Give the new file the old file's permissions, or the umask's default for a new file."""
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


def _remove(tmp: Path) -> None:
    with contextlib.suppress(OSError):
        tmp.unlink()


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable (best effort: some file systems refuse to fsync a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
