"""The results table: one row per profile and p with every number computed, sortable and copyable."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QTableView, QWidget

from privacy_studio.core.naming import spatial_name, temporal_name
from privacy_studio.core.numbers import interval, lower_bound, number, one_in, share
from privacy_studio.core.risk.catalogue import FIELD_MEASURE, RISK_FIELDS, WORST_FIELDS, limited_search
from privacy_studio.core.risk.results import ProfileResult
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
#: The roles the model answers, as the ints a view passes.
DISPLAY, TOOLTIP, ALIGNMENT = (
    int(role)
    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.TextAlignmentRole)
)
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


@dataclass(frozen=True)
class Cell:
    """One cell as shown: its text, the value it sorts by (numbers by number), its tooltip."""

    text: str
    value: float | str
    tip: str = ""

    @property
    def numeric(self) -> bool:
        return not isinstance(self.value, str)


def cell_of(rec: Record, entry: Record, where: str, key: str) -> Cell:
    """The cell of ``key`` for one profile ``rec`` and one of its p entries."""
    value = (rec if where == "profile" else entry).get(key)
    sampled_worst = key in WORST_FIELDS and value is not None and not entry.get("worst_exact", False)
    text = lower_bound(value) if sampled_worst else _text(value, key)
    tip = ""
    if value is None:
        tip = "not computed: tick this measure in the Grid step and run again"
    elif sampled_worst and entry.get("worst_search_cut"):  # the search budget cut some people short
        text = f"{text} (limited)"
        tip = limited_search(entry["worst_search_cut"], entry.get("n_sampled") or 0)
    elif key in LEVEL_NAMES:
        tip = _level_words(LEVEL_NAMES[key], str(value))
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return Cell(text, float(value) if number else text, tip)


def rows_of(records: list[Record]) -> list[list[Cell]]:
    """One row of cells per (profile, p) of ``records``, in their order."""
    return [
        [cell_of(rec, entry, where, key) for _, where, key, _ in COLUMNS]
        for rec in records
        for entry in rec.get("by_p") or [{}]
    ]


RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class ResultsModel(QAbstractTableModel):
    """The rows as cells computed once: the view asks only for the cells it paints, so a new result costs
    the window one reset, not a widget item per cell (3,600 of them took 100 ms of the GUI thread)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[list[Cell]] = []
        self.headers = [_two_lines(c[0]) for c in COLUMNS]
        self.tips = [measure_help.tooltip(key) if key else COUNT_TIPS.get(h, "") for h, _, _, key in COLUMNS]

    def set_rows(self, rows: list[list[Cell]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = DISPLAY) -> Any:
        cell = self.rows[index.row()][index.column()]
        if role == DISPLAY:
            return cell.text
        if role == TOOLTIP:  # a narrowed column's cells end in "…": hovering reads them whole
            return cell.tip or cell.text
        if role == ALIGNMENT and cell.numeric:
            return RIGHT
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = DISPLAY) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return str(section + 1) if role == DISPLAY else None
        if role == DISPLAY:
            return self.headers[section]
        return self.tips[section] if role == TOOLTIP else None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Numbers by value, then the texts ("—", levels) alphabetically, either way; rows kept whole."""
        if column < 0:
            return
        self.layoutAboutToBeChanged.emit()
        descending = order == Qt.SortOrder.DescendingOrder
        numbers = [row for row in self.rows if row[column].numeric]
        texts = [row for row in self.rows if not row[column].numeric]
        self.rows = [
            *sorted(numbers, key=lambda row: row[column].value, reverse=descending),
            *sorted(texts, key=lambda row: row[column].value, reverse=descending),
        ]
        self.layoutChanged.emit()


class ResultsTable(QTableView):
    """Rows (profile, p) of the result records."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(ResultsModel(self))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)  # the records' order
        self.setSortingEnabled(True)
        # Column widths from the header and the first rows: measuring every cell of a 120-row table took
        # 30 ms of the GUI thread at the end of each run.
        self.horizontalHeader().setResizeContentsPrecision(WIDTH_ROWS)
        fit_columns(self)  # narrowed to the table's width: it never scrolls sideways
        #: The cells of each result shown, by the result's id (the result is kept, so its id stays its own).
        self._known: dict[int, tuple[ProfileResult, list[list[Cell]]]] = {}

    def model(self) -> ResultsModel:
        return cast(ResultsModel, super().model())

    def rowCount(self) -> int:
        return self.model().rowCount()

    def set_records(self, records: list[Record]) -> None:
        """Show one row per (profile, p) of these records."""
        self._show(rows_of(records))

    def set_results(self, results: list[ProfileResult]) -> None:
        """Show a project's typed results; a result shown before (the same object: results are replaced,
        never changed) keeps its cells, so a run's arrival formats only the new profile."""
        known = self._known
        self._known = {
            id(r): known[id(r)] if id(r) in known else (r, rows_of([r.to_dict()])) for r in results
        }
        self._show([row for _, rows in self._known.values() for row in rows])

    def _show(self, rows: list[list[Cell]]) -> None:
        """The rows, in the order the user sorted by, if any; the column widths are measured on the first
        rows shown (measuring on every refill took longer than filling)."""
        first = self.rowCount() == 0
        self.model().set_rows(rows)
        header = self.horizontalHeader()
        self.model().sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        if first and self.rowCount():
            fit_columns(self)

    def cell(self, row: int, header: str) -> Cell:
        return self.model().rows[row][[c[0] for c in COLUMNS].index(header)]

    def cell_value(self, row: int, header: str) -> str:
        """The text shown in ``row`` under ``header`` (used by tests and copy)."""
        return self.cell(row, header).text
