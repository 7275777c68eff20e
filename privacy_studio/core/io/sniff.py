"""Looking at the first bytes of an input: container (plain, gzip, zip, Parquet), text or not, delimiter."""

from __future__ import annotations

import gzip
import os
import stat
import zipfile
from collections import Counter
from dataclasses import dataclass
from typing import BinaryIO

import pyarrow as pa

from privacy_studio.core.io.errors import ReaderError

SAMPLE_BYTES = 1 << 16
DELIMITERS = (",", "\t", ";", "|")
_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}


def delimiter_name(delimiter: str) -> str:
    return _NAMES.get(delimiter, repr(delimiter))


@dataclass
class Sniffed:
    """What the first bytes say about a file."""

    kind: str  # "parquet" | "csv"
    compression: str | None  # None | "gzip" | "zip"
    sample: str  # decoded text of the first (decompressed) bytes, csv only
    zip_member: str | None = None


def check_readable(path: str, folder_allowed: bool = True) -> None:
    """ReaderError unless ``path`` is a readable regular file (or folder): a FIFO or a device would block or
    never end, so special files are refused before anything opens them."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise ReaderError("file not found", path) from None
    except OSError as exc:
        raise ReaderError(f"cannot be read ({exc.strerror or exc})", path) from None
    if stat.S_ISDIR(mode) and folder_allowed:
        kind = None
    elif stat.S_ISDIR(mode):
        kind = "a folder"
    elif not stat.S_ISREG(mode):
        kind = _SPECIAL_KINDS.get(stat.S_IFMT(mode), "a special file")
    else:
        kind = None
    if kind is not None:
        raise ReaderError(f"is {kind}, not a data file", path)
    if not os.access(path, os.R_OK if not stat.S_ISDIR(mode) else os.R_OK | os.X_OK):
        raise ReaderError("no permission to read it", path)


#: Largest side file (attributes, scores, knowledge, links, antennas, hierarchy, locations) read: these are
#: tables of a few columns per person or place, so a larger one is a wrong file, read whole into memory.
MAX_SIDE_FILE_BYTES = 1 << 30


def check_input(path: str, side: bool = False, folder_allowed: bool = True) -> None:
    """The one check every input goes through before it is opened: a readable regular file (or a folder of
    data files), never a FIFO or device; a side file (``side``) also no larger than MAX_SIDE_FILE_BYTES."""
    check_readable(path, folder_allowed=folder_allowed and not side)
    if side:
        size = os.stat(path).st_size
        if size > MAX_SIDE_FILE_BYTES:
            raise ReaderError(
                f"is {size / 2**30:.1f} GiB, larger than any side table the studio reads "
                f"(at most {MAX_SIDE_FILE_BYTES / 2**30:.0f} GiB): check that this is the right file",
                path,
            )


def check_side_table(path: str) -> None:
    """:func:`check_input` for a side table read by code that reports problems as ValueError (attributes,
    knowledge, links), so the window's readers refuse what the command line refuses; a missing file is left
    to the reader, which names the table it expected."""
    if not os.path.lexists(path):
        return
    try:
        check_input(path, side=True)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None


_SPECIAL_KINDS = {
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def sniff(path: str) -> Sniffed:
    """Classify ``path``; raise :class:`ReaderError` for missing, special, empty or binary files."""
    check_readable(path)
    if os.path.isdir(path):
        raise ReaderError("is a folder; a folder is read as the toolbox CDR layout (one file per user)", path)
    with open(path, "rb") as fh:
        head = fh.read(8)
    if not head:
        raise ReaderError("the file is empty", path)
    if head.startswith(b"PAR1"):
        return Sniffed("parquet", None, "")
    if head.startswith(b"PK\x05\x06"):
        raise ReaderError("this zip archive is empty: it holds no data file", path)
    compression, member = None, None
    if head.startswith(b"\x1f\x8b"):
        compression = "gzip"
    elif head.startswith(b"PK\x03\x04"):
        compression = "zip"
        member = _zip_member(path)
    with open_binary(path, compression, member) as fh:
        try:
            raw = fh.read(SAMPLE_BYTES)
        except (OSError, EOFError, zipfile.BadZipFile) as exc:
            raise ReaderError(f"the {compression} data is damaged ({exc})", path) from None
    if not raw.strip():
        raise ReaderError("the file is empty", path)
    refuse_unreadable_text(raw, compression, member, path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(raw) - 4:  # not merely a multi-byte character cut by the sample's end
            raise ReaderError(
                f"this is not UTF-8 text (undecodable byte at offset {exc.start}); save it as UTF-8 CSV", path
            ) from None
        text = raw[: exc.start].decode("utf-8")
    return Sniffed("csv", compression, text.lstrip("\ufeff"), member)


def refuse_unreadable_text(raw: bytes, compression: str | None, member: str | None, path: str) -> None:
    """ReaderError naming what the first bytes are when they are not UTF-8 text: an archive inside the
    archive, UTF-16/32 text, or binary data."""
    inside = f"the {compression} archive's file {member or ''}".replace(" ''", "")
    if compression and raw.startswith((b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b", b"PAR1")):
        raise ReaderError(f"{inside} is itself an archive or Parquet file: unpack it and read that", path)
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")) or _looks_utf16(raw):
        raise ReaderError("this is UTF-16 (or UTF-32) text: save it as UTF-8 CSV", path)
    if b"\x00" in raw:
        raise ReaderError("this is not a text (CSV/TSV) file: it contains binary data", path)


def _looks_utf16(raw: bytes) -> bool:
    """Text of two bytes per character without a byte-order mark: every other byte is zero."""
    sample = raw[:4096]
    half = len(sample) // 2
    return half > 8 and max(sample[0::2].count(0), sample[1::2].count(0)) > 0.8 * half


def _zip_member(path: str) -> str:
    try:
        with zipfile.ZipFile(path) as zf:
            names = [n for n in zf.namelist() if not n.endswith("/") and not n.startswith("__MACOSX")]
    except zipfile.BadZipFile as exc:
        raise ReaderError(f"damaged zip archive ({exc})", path) from None
    if len(names) != 1:
        raise ReaderError(f"a zip archive must hold exactly one data file, this one holds {len(names)}", path)
    return names[0]


def open_binary(path: str, compression: str | None, member: str | None = None) -> BinaryIO:
    """A binary stream of the (decompressed) content."""
    if compression == "gzip":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if compression == "zip":
        zf = zipfile.ZipFile(path)
        return zf.open(member or zf.namelist()[0])  # type: ignore[return-value]
    return open(path, "rb")


def sample_lines(sample: str, limit: int = 200) -> list[str]:
    """Complete non-empty lines of the sample (the last, possibly cut, line is dropped when more follow)."""
    lines = sample.splitlines()
    if len(sample) >= SAMPLE_BYTES - 4 and len(lines) > 1:
        lines = lines[:-1]
    return [ln for ln in lines[:limit] if ln.strip()]


def detect_delimiter(lines: list[str], path: str) -> str:
    """The candidate delimiter giving the same column count (>1) on the most sample lines."""
    best, best_score = None, (0, 0)
    for d in DELIMITERS:
        counts = Counter(ln.count(d) for ln in lines)
        n_fields, agree = counts.most_common(1)[0]
        score = (agree, n_fields) if n_fields > 0 else (0, 0)
        if score > best_score:
            best, best_score = d, score
    if best is None:
        return ","  # a single-column file: nothing to split on
    return best


def to_stream(path: str, sniffed: Sniffed) -> pa.NativeFile | BinaryIO:
    """What pyarrow's CSV reader reads: the file itself, or its decompressed content."""
    if sniffed.compression == "gzip":
        return pa.input_stream(path, compression="gzip")
    if sniffed.compression == "zip":
        return open_binary(path, "zip", sniffed.zip_member)
    # Buffered reads (a memory map would count the whole file as resident), and no guess from the name:
    # a plain file called x.csv.gz was found to be plain by its first bytes.
    return pa.input_stream(path, compression=None)
