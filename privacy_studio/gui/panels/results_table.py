"""The results table: one row per profile and p with every number computed, sortable and copyable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem, QWidget

from privacy_studio.core.naming import spatial_name, temporal_name
from privacy_studio.core.numbers import interval, lower_bound, number, one_in, share
from privacy_studio.core.risk.catalogue import FIELD_MEASURE, RISK_FIELDS, WORST_FIELDS, limited_search
from privacy_studio.gui import help as measure_help
from privacy_studio.gui.column_fit import fit_columns
from privacy_studio.gui.results import Record


def _measure_columns() -> list[tuple[str, str, str, str]]:
    """A column per risk field of the catalogue, each interval right after its value."""
    columns = []
    for name, field in RISK_FIELDS.items():
        explanation = FIELD_MEASURE[name].explanation
        columns.append((field.short, "p", name, explanation))
        if field.interval is not None:
            columns.append((f"{field.short} 95% CI", "p", field.interval, explanation))
    return columns


#: (header, where the value is: "profile" or "p" entry, key, explanation key)
COLUMNS = (
    ("spatial", "profile", "spatial", ""),
    ("temporal", "profile", "temporal", ""),
    ("people", "profile", "n_users", ""),
    ("d", "profile", "d", "sparsity_theory"),
    ("fill rate", "profile", "fill_rate", "sparsity_theory"),
    ("p", "p", "p", "adversary_knowledge"),
    ("method", "p", "method", ""),
    *_measure_columns(),
    ("sampled", "p", "n_sampled", ""),
    ("excluded", "p", "n_excluded", ""),
    ("on fewer than p", "p", "n_short", ""),
)


#: Header tooltips of the columns that are counts, not measures (the measures' come from the help texts).
COUNT_TIPS = {
    "spatial": "Spatial level of the profile (how places were generalized)",
    "temporal": "Time width of the profile (how times were generalized)",
    "people": "People in the dataset",
    "method": "exact: every choice of p points of every person in the file was tried (no interval); "
    "sampled: estimated on the people drawn, the worst case being a lower bound from a targeted search",
    "sampled": "People evaluated at this p: everyone in the file when exact, else those drawn",
    "excluded": "Evaluated people with fewer than p points: an attacker cannot know p of their points, so "
    "they are left out of this p's measures",
    "on fewer than p": "People with fewer than p points evaluated on all the points they have "
    "(short traces: all-points), a conservative figure",
}
#: Rows measured to size the columns (every row's numbers have the same form).
WIDTH_ROWS = 12
#: Shown for a measure that was not computed (not ticked in the Grid step).
NOT_COMPUTED = "—"
#: Keys of the shares (and their intervals) the catalogue marks as proportions: shown as percentages,
#: written as the report writes them.
SHARE_KEYS = {name for name, field in RISK_FIELDS.items() if field.proportion}
INTERVAL_KEYS = {field.interval for field in RISK_FIELDS.values() if field.proportion and field.interval}


def _text(value: Any, key: str = "") -> str:
    if value is None:
        return NOT_COMPUTED
    if key in SHARE_KEYS and isinstance(value, int | float):
        return share(value)
    if key in INTERVAL_KEYS and isinstance(value, list | tuple):
        return interval(value) or NOT_COMPUTED
    if key == "fill_rate" and isinstance(value, int | float):
        return one_in(value)
    if isinstance(value, float):
        return number(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    return str(value)


class _Item(QTableWidgetItem):
    """Sorts numerically when both cells hold numbers."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        a, b = self.data(Qt.ItemDataRole.UserRole), other.data(Qt.ItemDataRole.UserRole)
        if isinstance(a, int | float) and isinstance(b, int | float):
            return a < b
        return self.text() < other.text()


#: Profile columns whose codes are explained in words in their cells' tooltips ("grid:1" = 1 km squares).
LEVEL_NAMES = {"spatial": spatial_name, "temporal": temporal_name}


def _level_words(name: Callable[[str], str], code: str) -> str:
    """The level in words, or nothing for a code the naming cannot read."""
    try:
        return name(code)
    except ValueError:
        return ""


def _two_lines(header: str) -> str:
    """A header of several words on two lines, split at the space nearest its middle, or one hyphenated
    word after its hyphen (narrower columns)."""
    spaces = [i for i, c in enumerate(header) if c == " "]
    if len(header) < 9:
        return header
    if not spaces:  # one hyphenated word ("k-disclosure"): cut after its hyphen, which stays
        hyphen = header.find("-")
        return header if hyphen < 1 else f"{header[: hyphen + 1]}\n{header[hyphen + 1 :]}"
    cut = min(spaces, key=lambda i: abs(2 * i - len(header)))
    return f"{header[:cut]}\n{header[cut + 1 :]}"


#: Rows filled per turn of the event loop while the window is shown.
ROWS_PER_STEP = 30


class ResultsTable(QTableWidget):
    """Rows (profile, p) of the result records."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels([_two_lines(c[0]) for c in COLUMNS])
        for j, (header, _, _, key) in enumerate(COLUMNS):
            tip = measure_help.tooltip(key) if key else COUNT_TIPS.get(header, "")
            self.horizontalHeaderItem(j).setToolTip(tip)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        # Column widths from the header and the first rows: measuring every cell of a 120-row table took
        # 30 ms of the GUI thread at the end of each run.
        self.horizontalHeader().setResizeContentsPrecision(WIDTH_ROWS)
        fit_columns(self)  # narrowed to the table's width: it never scrolls sideways
        self._rows: list[tuple[Record, Record]] = []
        self._filled = 0
        self._first_fill = False
        self._step_timer = QTimer(self)
        self._step_timer.setSingleShot(True)
        self._step_timer.timeout.connect(self._fill_step)

    def set_records(self, records: list[Record]) -> None:
        """Show one row per (profile, p); in a shown window the rows are filled ``ROWS_PER_STEP`` at a
        time, the event loop turning between (120 rows took the window's thread 100 ms at once)."""
        self._rows = [(rec, entry) for rec in records for entry in rec.get("by_p") or [{}]]
        self._filled = 0
        self._first_fill = self.rowCount() == 0
        self.setSortingEnabled(False)
        self.setRowCount(len(self._rows))
        if self.window().isVisible():
            self._fill_step()
        else:
            self.flush()

    def flush(self) -> None:
        """Fill every row still waiting for its turn, now."""
        self._step_timer.stop()
        while self._filled < len(self._rows):
            self._fill_step()

    def _fill_step(self) -> None:
        """Fill the next rows; once all are in, sorting comes back (and, first time, the widths)."""
        end = min(len(self._rows), self._filled + ROWS_PER_STEP)
        for i in range(self._filled, end):
            self._fill_row(i, *self._rows[i])
        self._filled = end
        if end < len(self._rows):
            self._step_timer.start(0)
            return
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.setSortingEnabled(True)
        if self._first_fill:  # measuring every cell again on each refill took longer than filling them
            fit_columns(self)

    def _fill_row(self, i: int, rec: Record, entry: Record) -> None:
        for j, (_, where, key, _) in enumerate(COLUMNS):
            value = (rec if where == "profile" else entry).get(key)
            sampled_worst = key in WORST_FIELDS and value is not None and not entry.get("worst_exact", False)
            item = _Item(lower_bound(value) if sampled_worst else _text(value, key))
            if value is None:
                item.setToolTip("not computed: tick this measure in the Grid step and run again")
            elif sampled_worst and entry.get("worst_search_cut"):  # the search budget cut some people short
                item.setText(f"{item.text()} (limited)")
                item.setToolTip(limited_search(entry["worst_search_cut"], entry.get("n_sampled") or 0))
            elif key in LEVEL_NAMES:
                item.setToolTip(_level_words(LEVEL_NAMES[key], str(value)))
            if isinstance(value, int | float):
                item.setData(Qt.ItemDataRole.UserRole, value)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.setItem(i, j, item)

    def cell_value(self, row: int, header: str) -> str:
        """The text shown in ``row`` under ``header`` (used by tests and copy)."""
        self.flush()
        return self.item(row, [c[0] for c in COLUMNS].index(header)).text()
