"""The Grid step's known-points field: p as people write it ("1,2,4-6"), read as the commands' ``--p``."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from privacy_studio.core.risk.settings import p_values_of

DEFAULT_P = list(range(1, 11))


def p_text(values: list[int]) -> str:
    """``[1, 2, 3, 4, 6]`` → ``1-4,6``: runs of three or more as ranges, the way the field is typed."""
    parts: list[str] = []
    run: list[int] = []
    for value in [*sorted(set(values)), None]:
        if run and (value is None or value != run[-1] + 1):
            parts.append(f"{run[0]}-{run[-1]}" if len(run) >= 3 else ",".join(map(str, run)))
            run = []
        if value is not None:
            run.append(value)
    return ",".join(parts)


def p_problem(text: str) -> str:
    """One sentence saying what is wrong with ``text`` as p values, or ``""`` when it reads."""
    try:
        p_values_of(text)
    except ValueError as exc:
        return f"p {text.strip()!r}: {exc}."
    return ""


class PValuesField(QWidget):
    """A line for p (lists and ranges) with one sentence under it while the text does not read; ``values``
    keeps the last text that did, so the other settings stay usable while typing."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.line = QLineEdit(p_text(DEFAULT_P))
        self.line.setPlaceholderText("1-10, or 1,2,4-6")
        self.line.setToolTip(
            "The numbers of points the attacker knows: a list and ranges, e.g. 1-10 or 1,2,4-6 "
            "(the same as the --p option of the commands)."
        )
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020;")
        self.message.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.line)
        layout.addWidget(self.message)
        self._values = list(DEFAULT_P)
        self.line.textChanged.connect(self._read)

    def values(self) -> list[int]:
        """The p values of the field's text (its last readable text while the current one does not read)."""
        return list(self._values)

    def problem(self) -> str:
        """The sentence shown under the field, ``""`` when the text reads."""
        return self.message.text()

    def set_values(self, values: list[int]) -> None:
        """Show saved p values, written compactly."""
        self.line.setText(p_text(values))

    def _read(self, text: str) -> None:
        problem = p_problem(text)
        self.message.setText(problem)
        self.message.setVisible(bool(problem))
        if not problem:
            self._values = p_values_of(text)
            self.edited.emit()
