"""What a read did: rows read / kept / rejected per reason with the first line numbers, and notes."""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

#: How many line numbers are kept per rejection reason.
FIRST_LINES = 10


@dataclass
class SourceFile:
    """One input file with its content hash, so results can say exactly which data they describe."""

    path: str
    sha256: str
    size: int

    @classmethod
    def of(cls, path: str) -> SourceFile:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            while block := fh.read(1 << 22):
                digest.update(block)
        return cls(os.path.abspath(path), digest.hexdigest(), os.path.getsize(path))


@dataclass
class RejectedRows:
    """Rows refused for one reason: how many, and where the first ones are (1-based file lines).

    ``files`` is filled only for multi-file inputs (a folder of one file per user), parallel to
    ``first_lines``.
    """

    count: int = 0
    first_lines: list[int] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def where(self) -> str:
        """Where to look: the first lines (with their files), or that the lines were not tracked."""
        if not self.first_lines:
            return "line numbers not tracked"
        if self.files:
            where = ", ".join(f"{f}:{n}" for f, n in zip(self.files, self.first_lines, strict=True))
        else:
            where = ", ".join(str(n) for n in self.first_lines)
        more = ", ..." if self.count > len(self.first_lines) else ""
        return f"lines {where}{more}"


@dataclass
class ImportReport:
    """Rows read, kept and rejected per reason, plus notes on choices the reader made."""

    source: str
    rows_read: int = 0
    rows_kept: int = 0
    rejected: dict[str, RejectedRows] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def rows_rejected(self) -> int:
        return sum(r.count for r in self.rejected.values())

    def reject(self, reason: str, lines: np.ndarray, file: str | None = None) -> None:
        """Record rejected rows given their 1-based file line numbers."""
        if len(lines) == 0:
            return
        entry = self.rejected.setdefault(reason, RejectedRows())
        entry.count += len(lines)
        room = FIRST_LINES - len(entry.first_lines)
        if room > 0:
            taken = [int(x) for x in np.asarray(lines)[:room]]
            entry.first_lines.extend(taken)
            if file is not None:
                entry.files.extend([file] * len(taken))

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ImportReport:
        rejected = {k: RejectedRows(**v) for k, v in data.get("rejected", {}).items()}
        return cls(
            data["source"], data["rows_read"], data["rows_kept"], rejected, list(data.get("notes", []))
        )

    def summary_text(self) -> str:
        """A few lines an officer can read: counts, each rejection reason with where to look, notes."""
        out = [
            f"{self.source}: {self.rows_read:,} rows read, {self.rows_kept:,} kept, "
            f"{self.rows_rejected:,} rejected"
        ]
        for reason, entry in sorted(self.rejected.items(), key=lambda kv: -kv[1].count):
            out.append(f"  rejected {entry.count:,} × {reason} ({entry.where()})")
        if any(not entry.first_lines for entry in self.rejected.values()):
            out.append("  (the out-of-core engines count rejected rows without their line numbers)")
        out.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(out)
