"""The messages dock: time-stamped lines of what the studio did, warnings and errors in colour."""

from __future__ import annotations

import html
from datetime import datetime

from PySide6.QtWidgets import QTextEdit, QWidget

_COLOURS = {"info": "#202020", "warning": "#a05a00", "error": "#b00020"}


class LogPanel(QTextEdit):
    """Read-only log; ``details`` (e.g. a traceback) are kept below the line in grey."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.lines: list[tuple[str, str]] = []

    def log(self, message: str, level: str = "info", details: str = "") -> None:
        self.lines.append((level, message))
        stamp = datetime.now().strftime("%H:%M:%S")
        colour = _COLOURS.get(level, _COLOURS["info"])
        text = f'<span style="color:{colour}">{stamp} {html.escape(message)}</span>'
        if details:
            text += f'<pre style="color:#808080">{html.escape(details)}</pre>'
        self.append(text)
