"""The one error type readers raise: a readable message naming the file, the place and what was expected."""

from __future__ import annotations


class ReaderError(Exception):
    """Input the studio cannot read; ``str(error)`` is a complete sentence for the user."""

    def __init__(
        self, message: str, path: str | None = None, line: int | None = None, column: str | None = None
    ) -> None:
        where = [p for p in (path, f"line {line}" if line is not None else None) if p]
        if column is not None:
            where.append(f"column {column!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.path = path
        self.line = line
        self.column = column
