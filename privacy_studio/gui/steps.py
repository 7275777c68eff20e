"""The officer's path through the window: Data → Grid → Run → Decide → Release → Report, one step at a time.

A step bar stays at the top; below it one step fills the window. Each step's page opens with a line saying
what is still missing before the step can be done ("Import data first", "Run the grid first"), and the bar
names the next step and what it still needs.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)


@dataclass(frozen=True)
class Step:
    """One step of an assessment: its key, the bar's title and what the step is for (the bar's tooltip)."""

    key: str
    title: str
    purpose: str


STEPS: tuple[Step, ...] = (
    Step("data", "Data", "Bring the data in: import a file or open a project, and check how it was read"),
    Step("grid", "Grid", "Choose the generalizations (place × time) to try and how the attacker is modelled"),
    Step("run", "Run", "Measure the risk of every ticked profile; the plots and the results table"),
    Step("decide", "Decide", "Weigh risk against usefulness: trade-off, criteria and candidate profiles"),
    Step("release", "Release", "Write the data at the chosen profile, measured again; attack the release"),
    Step("report", "Report", "The decision record and the PDF report"),
)
KEYS = tuple(step.key for step in STEPS)

IMPORT_FIRST = "Import data first (File › Import data…, Ctrl+I) or open a project."
TICK_FIRST = "Tick at least one cell of the grid first (Grid step)."
RUN_FIRST = "Run the grid first (Run in the toolbar, Ctrl+R)."


@dataclass(frozen=True)
class Progress:
    """How far the open project is: what each step's "missing" line is worked out from."""

    has_data: bool
    cells: int
    results: int


def missing(key: str, progress: Progress) -> str:
    """What is still missing before step ``key`` can be done; empty when nothing is."""
    if key == "data":
        return "" if progress.has_data or progress.results else IMPORT_FIRST
    if key == "grid":
        return "" if progress.has_data else IMPORT_FIRST
    if key == "run" and not progress.results:
        if not progress.has_data:
            return IMPORT_FIRST
        return TICK_FIRST if not progress.cells else RUN_FIRST
    if key == "release" and not progress.has_data:
        return IMPORT_FIRST
    if key in ("decide", "release", "report") and not progress.results:
        return RUN_FIRST
    return ""


def scrolled(widget: QWidget) -> QScrollArea:
    """``widget`` in a scroll area that scrolls only up and down: the widget always gets the area's width,
    so nothing hides off to the side."""
    area = QScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return area


class StepPage(QWidget):
    """A step's page: the line saying what is missing (hidden when nothing is) above the step's content."""

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.content = content
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet("QLabel { background: #fff3cd; color: #5c4400; padding: 6px; }")
        self.banner.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addWidget(content, 1)

    def set_missing(self, text: str) -> None:
        self.banner.setText(text)
        self.banner.setVisible(bool(text))


class StepBar(QWidget):
    """The numbered steps as buttons (the current one pressed, done ones ticked) and the next step's need."""

    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StepBar")
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.buttons: dict[str, QToolButton] = {}
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 4, 6, 4)
        for number, step in enumerate(STEPS, 1):
            button = QToolButton()
            button.setCheckable(True)
            button.setAutoRaise(True)
            button.setText(f"{number} {step.title}")
            button.setToolTip(step.purpose)
            button.clicked.connect(lambda _=False, key=step.key: self.chosen.emit(key))
            self.group.addButton(button)
            self.buttons[step.key] = button
            row.addWidget(button)
            if number < len(STEPS):
                row.addWidget(QLabel("›"))
        self.next_label = QLabel()
        self.next_label.setWordWrap(True)
        self.next_button = QPushButton()
        self.next_button.clicked.connect(self._next_clicked)
        row.addSpacing(12)
        row.addWidget(self.next_label, 1)
        row.addWidget(self.next_button)
        self.current = STEPS[0].key

    def show_state(self, current: str, needs: dict[str, str]) -> None:
        """Press ``current``'s button, tick the steps that need nothing, and say what the next one needs."""
        self.current = current
        for number, step in enumerate(STEPS, 1):
            button = self.buttons[step.key]
            button.setChecked(step.key == current)
            button.setText(f"{number} {step.title}" + ("" if needs[step.key] else " ✓"))
            tip = step.purpose + (f"\n\nMissing: {needs[step.key]}" if needs[step.key] else "")
            button.setToolTip(tip)
        index = KEYS.index(current)
        following = STEPS[index + 1] if index + 1 < len(STEPS) else None
        if following is None:
            self.next_label.setText("Last step: write the report once the decision is recorded.")
            self.next_button.hide()
            return
        need = needs[following.key]
        self.next_label.setText(f"Before {following.title}: {need}" if need else "")
        self.next_button.setText(f"Next: {following.title} ›")
        self.next_button.show()

    def _next_clicked(self) -> None:
        index = KEYS.index(self.current)
        if index + 1 < len(KEYS):
            self.chosen.emit(KEYS[index + 1])


class StepView(QWidget):
    """The step bar above a stack holding one page per step; ``show_step`` turns to one."""

    step_shown = Signal(str)

    def __init__(self, contents: dict[str, QWidget], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = StepBar()
        self.stack = QStackedWidget()
        self.pages = {key: StepPage(contents[key]) for key in KEYS}
        for key in KEYS:
            self.stack.addWidget(self.pages[key])
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.bar)
        layout.addWidget(line)
        layout.addWidget(self.stack, 1)
        self.needs = {key: "" for key in KEYS}
        self.bar.chosen.connect(self.show_step)

    @property
    def current(self) -> str:
        return self.bar.current

    def show_step(self, key: str) -> None:
        """Fill the window with step ``key``."""
        self.stack.setCurrentWidget(self.pages[key])
        self.bar.show_state(key, self.needs)
        self.step_shown.emit(key)

    def update_needs(self, progress: Progress) -> None:
        """Work out each step's missing line again (after any change to the project)."""
        self.needs = {key: missing(key, progress) for key in KEYS}
        for key, page in self.pages.items():
            page.set_missing(self.needs[key])
        self.bar.show_state(self.current, self.needs)
