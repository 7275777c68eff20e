"""The privacy-utility trade-off view: expert scores, Pareto plot, ordinal equivalence, recommendation,
power law, population extrapolation and risk by group — a self-contained widget fed with risk results."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.analyses import (
    ComputedUtility,
    PopulationExtrapolation,
    ProfileSizes,
    RiskByGroup,
    TradeoffChoice,
)
from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import interval, number, share
from privacy_studio.core.risk.catalogue import RISK_FIELDS, format_value
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.tradeoff import GridTable, grid_table
from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis, measure_name
from privacy_studio.core.tradeoff.criteria import DEFAULT_CRITERIA, OPTIONAL_CRITERIA, REASONS_KEY
from privacy_studio.core.tradeoff.decision import DEFAULT_COMPUTED, DecisionInputs, decide
from privacy_studio.core.tradeoff.extrapolation import (
    MODELS,
    SubsampleCurve,
    extrapolate,
    fit_trend,
    runner_estimator,
    subsample_curve,
)
from privacy_studio.core.tradeoff.grid import RISK_MEASURES
from privacy_studio.core.tradeoff.groups import GroupReport, read_attributes, risk_by_group_of
from privacy_studio.core.tradeoff.powerlaw import dataset_unit_areas
from privacy_studio.core.user_keys import project_salt
from privacy_studio.core.utility import COMPUTED_SCORES, UtilityGrid, utility_title
from privacy_studio.gui.column_fit import fit_columns
from privacy_studio.gui.panels.aggregates_tab import AggregatesTab
from privacy_studio.gui.plots.base import REDRAW_DELAY_MS
from privacy_studio.gui.workers import TaskRunner, Worker

FRONT_PEN = pg.mkPen("#0072B2", width=2)
CEILING_PEN = pg.mkPen("#D55E00", style=Qt.PenStyle.DashLine)
POINT_BRUSH, DOMINATED_BRUSH = pg.mkBrush("#0072B2"), pg.mkBrush("#BBBBBB")


#: Row labels of the optional release criteria in the choices form.
CRITERIA_LABELS = {
    "max_unique_traces": "Max unique whole traces",
    "max_worst_share": "Max at worst-case risk 1",
    "max_excluded": "Max people excluded",
    "max_homogeneous": "Max in homogeneous classes",
    "max_below_distinct_l": "Max below distinct l",
    "max_below_entropy_l": "Max below entropy l",
    "max_above_t": "Max farther than t",
}


def _limit_box(key: str, what: str) -> QDoubleSpinBox:
    """A limit in percent strictly below 100 %; 0 means its default: the ceiling for the criteria always
    checked, "off" (not used) for the others."""
    box = QDoubleSpinBox()
    box.setRange(0.0, 99.999)
    box.setDecimals(3)
    box.setSuffix(" %")
    default = "= ceiling" if key in DEFAULT_CRITERIA else "off"
    box.setSpecialValueText(default)
    box.setToolTip(
        f"Release criterion: the largest acceptable {what}; {default} by default. A changed limit needs a "
        "reason (below), which the decision record prints."
    )
    return box


def _table(headers: list[str]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    return table


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QTableWidgetItem(text)
            item.setToolTip(text)  # the whole text where a narrowed column cuts it
            table.setItem(r, c, item)
    fit_columns(table)


#: Share of the plotted utility range and of the risk scale a Pareto point's label takes.
LABEL_WIDTH, LABEL_HEIGHT = 0.25, 0.1


def _spaced_labels(x: np.ndarray, y: np.ndarray, candidates: list[int]) -> list[int]:
    """The candidates (most wanted first) whose label can be written without covering an earlier one: a
    label spans about a quarter of the plotted points' width and a tenth of the risk scale."""
    shown = np.isfinite(x) & np.isfinite(y)
    dx = LABEL_WIDTH * (float(np.ptp(x[shown])) if shown.any() else 0.0) or 1.0
    dy = LABEL_HEIGHT * max(float(np.ptp(y[shown])) if shown.any() else 0.0, 1.0)
    kept: list[int] = []
    for i in candidates:
        if all(abs(x[i] - x[j]) >= dx or abs(y[i] - y[j]) >= dy for j in kept):
            kept.append(i)
    return kept


def _page(*parts: QWidget | QLayout | tuple[QWidget, int]) -> QWidget:
    """A tab page stacking widgets (optionally with a stretch factor) and layouts top to bottom."""
    page = QWidget()
    layout = QVBoxLayout(page)
    for part in parts:
        if isinstance(part, QLayout):
            layout.addLayout(part)
        elif isinstance(part, tuple):
            layout.addWidget(*part)
        else:
            layout.addWidget(part)
    return page


def _plot(bottom: str, left: str) -> pg.PlotWidget:
    plot = pg.PlotWidget(background="w")
    plot.setLabel("bottom", bottom)
    plot.setLabel("left", left)
    plot.showGrid(x=True, y=True, alpha=0.2)
    for axis in ("left", "bottom"):
        plot.getAxis(axis).enableAutoSIPrefix(False)  # "risk (x0.001)" reads as a unit, not a scale
    return plot


def _read_attributes(path: str, control: Any = None) -> Any:
    """``read_attributes`` as a worker task (one pandas read: nothing to report)."""
    return read_attributes(path)


class TradeoffPanel(QWidget):
    """Call :meth:`set_results` with the risk records (live, as they arrive); edits are announced by
    ``utility_changed`` (the project's ``utility`` dict) and ``choices_changed`` (its ``tradeoff`` dict)."""

    utility_changed = Signal(dict)
    choices_changed = Signal(dict)

    def __init__(self, session: Any, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.records: list[dict] = []
        self.grid: GridTable | None = None
        self.scores = UtilityGrid()
        self.computed: dict[str, dict[str, float]] = {}
        self.unit_areas: dict[str, float] = {}
        self.period_seconds = math.nan
        self.analysis: TradeoffAnalysis | None = None
        self.curve: SubsampleCurve | None = None
        self.curve_of: tuple[str, int | None, str] | None = None  # measure, p and profile of the curve
        self.attributes = None
        self.group_report: GroupReport | None = None
        self._filling = False
        self._wanted: dict | None = None
        self.runner = runner  # the window's: its tasks show in the status bar and stop on close
        self._arrived: list | None = None  # results of a run not shown yet (the panel was hidden)
        self._arrival_timer = QTimer(self)
        self._arrival_timer.setSingleShot(True)
        self._arrival_timer.setInterval(REDRAW_DELAY_MS)
        self._arrival_timer.timeout.connect(self.catch_up)
        self._build()
        if session is not None:
            session.results_changed.connect(self._results_arrived)
            session.dataset_changed.connect(self.measure_unit_areas)
            session.changed.connect(self._project_maybe_replaced)
            session.changed.connect(self.show_aggregates)
            self._project = None
            self._project_maybe_replaced()

    # -- results of a run: analysed when the panel is shown or the run ends ---------------------------
    def _results_arrived(self, records: list) -> None:
        self._arrived = records
        if not self.window().isVisible():  # off screen (tests, report): at once
            self.catch_up()
        elif self.isVisible() and not self._arrival_timer.isActive():
            self._arrival_timer.start()

    def catch_up(self) -> None:
        """Analyse the results that arrived while the panel was hidden (a run's end calls it once)."""
        self._arrival_timer.stop()
        if self._arrived is not None:
            records, self._arrived = self._arrived, None
            self.set_results(records)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._arrived is not None:
            self._arrival_timer.start(0)

    # -- construction ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.score_table = QTableWidget(0, 0)
        self.score_table.itemChanged.connect(self._score_edited)
        self.score_table.horizontalHeader().sectionDoubleClicked.connect(self._ask_rename)
        self.score_table.setToolTip("Expert scores 0-10 (10 = most useful). Double-click a header to rename.")
        add, remove = QPushButton("Add domain…"), QPushButton("Remove domain")
        add.clicked.connect(self._ask_add)
        remove.clicked.connect(self._remove_current)
        self.measure = QComboBox()
        for key in RISK_MEASURES:  # in words; the key, which the project keeps, as the item's data
            self.measure.addItem(RISK_FIELDS[key].label, key)
        self.p_choice = QComboBox()
        self.utility_choice = QComboBox()
        self.ceiling = QDoubleSpinBox()
        self.ceiling.setRange(0.001, 99.999)  # a ceiling is strictly between 0 and 1
        self.ceiling.setDecimals(3)
        self.ceiling.setSuffix(" %")
        self.ceiling.setValue(5.0)
        self.criteria_boxes = {key: _limit_box(key, what) for key, what in OPTIONAL_CRITERIA.items()}
        self.limit_reason = QLineEdit()
        self.limit_reason.setPlaceholderText("why a limit differs from its default (decision record)")
        self.limit_reason.editingFinished.connect(self._choices_edited)
        for widget in (self.measure, self.p_choice, self.utility_choice):
            widget.currentIndexChanged.connect(self._choices_edited)
        for box in (self.ceiling, *self.criteria_boxes.values()):
            box.valueChanged.connect(self._choices_edited)
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #D55E00")

        left = QWidget()
        left_layout = QVBoxLayout(left)
        heading = QLabel("Expert utility scores (0-10) per profile and application domain")
        heading.setWordWrap(True)  # the column stays narrow enough for the plots beside it
        left_layout.addWidget(heading)
        left_layout.addWidget(self.score_table, 1)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        left_layout.addLayout(buttons)
        form = QFormLayout()
        form.addRow("Risk measure", self.measure)
        form.addRow("Known points p", self.p_choice)
        form.addRow("Utility", self.utility_choice)
        form.addRow("Risk ceiling", self.ceiling)
        for key, label in CRITERIA_LABELS.items():
            form.addRow(label, self.criteria_boxes[key])
        form.addRow("Reason for changed limits", self.limit_reason)
        left_layout.addLayout(form)
        left_layout.addWidget(self.message)

        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_pareto(), "Pareto")
        self.tabs.addTab(self._build_ordinal(), "Ordinal equivalence")
        self.tabs.addTab(self._build_power_law(), "Power law")
        self.tabs.addTab(self._build_population(), "Population")
        self.tabs.addTab(self._build_groups(), "Risk by group")
        self.aggregates = AggregatesTab()
        self.tabs.addTab(self.aggregates, "Aggregates")
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.tabs)
        splitter.setSizes([300, 560])
        QVBoxLayout(self).addWidget(splitter)
        self._refresh_choices()

    def _build_pareto(self) -> QWidget:
        self.pareto_plot = _plot("utility (reversed: more useful to the left)", "risk")
        self.pareto_plot.invertX(True)
        self.pareto_plot.setRange(xRange=(0, 10), yRange=(0, 1))  # utility 0-10, risk 0-1 until data
        self.points = pg.ScatterPlotItem(size=10, pen=pg.mkPen("w"))
        self.front_line = pg.PlotDataItem(pen=FRONT_PEN)
        self.ceiling_line = pg.InfiniteLine(self.ceiling.value() / 100.0, angle=0, pen=CEILING_PEN)
        self.chosen = pg.ScatterPlotItem(size=20, brush=None, pen=pg.mkPen("#D55E00", width=2))
        for item in (self.front_line, self.points, self.chosen, self.ceiling_line):
            self.pareto_plot.addItem(item)
        self.pareto_plot.getViewBox().setDefaultPadding(0.1)
        self.point_labels: list[pg.TextItem] = []
        self.recommendation = QLabel("No results yet.")
        self.recommendation.setWordWrap(True)
        self.recommendation.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.evidence = QLabel("")
        self.evidence.setWordWrap(True)
        self.evidence.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.dominance = _table(
            ["profile", "risk", "utility", "Pareto", "dominated by", "criteria", "people"]
        )
        return _page((self.pareto_plot, 3), self.recommendation, self.evidence, (self.dominance, 2))

    def _build_ordinal(self) -> QWidget:
        self.tau_table = QTableWidget(0, 0)
        self.tau_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.tau_message = QLabel("")
        self.tau_message.setWordWrap(True)
        title = QLabel("Kendall's tau between the profile rankings of each pair of risk measures")
        return _page(title, (self.tau_table, 1), self.tau_message)

    def _build_power_law(self) -> QWidget:
        self.power_plot = _plot("unit area × bin width (km²·h)", "risk")
        self.power_plot.setLogMode(x=True, y=True)
        self.power_points = pg.ScatterPlotItem(size=9, brush=POINT_BRUSH)
        self.power_line = pg.PlotDataItem(pen=FRONT_PEN)
        self.power_ceiling = pg.InfiniteLine(angle=0, pen=CEILING_PEN)
        for item in (self.power_points, self.power_line, self.power_ceiling):
            self.power_plot.addItem(item)
        self.power_text = QLabel("")
        self.power_text.setWordWrap(True)
        return _page((self.power_plot, 1), self.power_text)

    def _build_population(self) -> QWidget:
        self.population_plot = _plot("users in the file (n)", "risk")
        self.population_plot.setLogMode(x=True, y=False)
        self.sub_points = pg.ScatterPlotItem(size=8, brush=POINT_BRUSH)
        self.trend_line = pg.PlotDataItem(pen=pg.mkPen("#0072B2", width=2, style=Qt.PenStyle.DashLine))
        self.extrapolated = pg.ScatterPlotItem(size=14, symbol="star", brush=pg.mkBrush("#D55E00"))
        self.extrapolated_label = pg.TextItem("", color="#D55E00", anchor=(1, 1))
        for item in (self.sub_points, self.trend_line, self.extrapolated, self.extrapolated_label):
            self.population_plot.addItem(item)
        self.model = QComboBox()
        self.model.addItems(list(MODELS))
        self.model.setToolTip("\n".join(f"{k}: {v}" for k, v in MODELS.items()))
        self.population = QSpinBox()
        self.population.setRange(1, 2_000_000_000)
        self.population.setGroupSeparatorShown(True)
        self.population.setValue(1_000_000)
        self.model.currentIndexChanged.connect(self._refresh_population)
        self.population.valueChanged.connect(self._refresh_population)
        run = QPushButton("Measure on subsamples")
        run.setToolTip("Run the risk engine on 10 % … 100 % of the users for the recommended profile")
        run.clicked.connect(self.measure_subsamples)
        self.population_text = QLabel(
            "Measure the risk on 10 % … 100 % of the users to see how it depends on n."
        )
        self.population_text.setWordWrap(True)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Trend"))
        controls.addWidget(self.model)
        controls.addWidget(QLabel("Population to extrapolate to"))
        controls.addWidget(self.population)
        controls.addStretch(1)
        controls.addWidget(run)
        return _page(controls, (self.population_plot, 1), self.population_text)

    def _build_groups(self) -> QWidget:
        load = QPushButton("Load user attributes…")
        load.clicked.connect(self._ask_attributes)
        self.group_profile = QComboBox()
        self.group_profile.currentIndexChanged.connect(self._refresh_groups)
        self.group_table = _table(
            [
                "attribute",
                "group",
                "users",
                "mean uniqueness",
                "mean EM",
                "odds ratio of being unique [95 % interval]",
            ]
        )
        self.group_text = QLabel("Load a CSV with a user id column and attributes (gender, age band, …).")
        self.group_text.setWordWrap(True)
        controls = QHBoxLayout()
        controls.addWidget(load)
        controls.addWidget(QLabel("Profile"))
        controls.addWidget(self.group_profile, 1)
        return _page(controls, (self.group_table, 1), self.group_text)

    # -- inputs ------------------------------------------------------------------------------------
    def set_results(self, records: list[Any]) -> None:
        """Show these risk results (``ProfileResult`` objects or their records); called after each one."""
        self.records = [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in records]
        try:
            self.grid = grid_table(self.records)
        except ValueError as exc:
            self.grid = None
            self.message.setText(str(exc))
        self._refresh_scores()
        self._refresh_choices()
        self.refresh()
        self._refresh_group_profiles()

    def set_utility(self, utility: dict) -> None:
        """Load the project's expert scores (``{"domains": [...], "scores": {...}}``)."""
        self.scores = UtilityGrid.from_dict(utility)
        self._refresh_scores()
        self._refresh_choices()
        self.refresh()

    def utility(self) -> dict:
        return self.scores.to_dict()

    def set_choices(self, choices: dict) -> None:
        """Restore the project's trade-off choices (risk_measure, risk_p, utility, ceiling)."""
        self._filling = True
        measure = str(choices.get("risk_measure") or "unicity")
        self.measure.setCurrentIndex(max(0, self.measure.findData(measure)))
        self.ceiling.setValue(100.0 * float(choices.get("ceiling", 0.05)))
        for key, box in self.criteria_boxes.items():
            box.setValue(100.0 * float(choices.get(key) or 0.0))  # 0 shows the default
        reasons = choices.get(REASONS_KEY) or {}
        self.limit_reason.setText(next(iter(dict.fromkeys(reasons.values())), ""))
        self._filling = False
        self._wanted = choices
        self._refresh_choices()
        self.refresh()

    def choices(self) -> dict:
        """The choices as the project keeps them; limits only when set, with the reason for those set."""
        limits = {key: box.value() / 100.0 for key, box in self.criteria_boxes.items() if box.value() > 0}
        reason = self.limit_reason.text().strip()
        return {
            "risk_measure": self.measure.currentData(),
            "risk_p": self.p_choice.currentData(),
            "utility": self.utility_choice.currentData() or None,
            "ceiling": self.ceiling.value() / 100.0,
            **limits,
            **({REASONS_KEY: {key: reason for key in limits}} if reason and limits else {}),
        }

    def set_computed_utility(self, computed: ComputedUtility | dict[str, dict[str, float]]) -> None:
        """Computed 0-10 scores per profile label (``core.project_run.computed_utility``, or its scores);
        kept in the project as a :class:`ComputedUtility` analysis."""
        if not isinstance(computed, ComputedUtility):
            computed = ComputedUtility(dict(computed))
        self.computed = dict(computed.scores)
        self._refresh_choices()
        self.refresh()
        self._store(computed)

    def _store(self, analysis: Any) -> None:
        """Keep an analysis the panel computed in the project (marking it modified when it changed)."""
        if self.session is None:
            return
        before = self.session.project.analyses.get(analysis.KEY)
        self.session.project.store(analysis)
        if self.session.project.analyses[analysis.KEY] != before:
            self.session.set_dirty(True)

    def set_unit_areas(self, areas: dict[str, float], period_seconds: float = math.nan) -> None:
        """Mean unit area (km²) per spatial level (``core.tradeoff.powerlaw.unit_areas``): power law."""
        self.unit_areas = dict(areas)
        self.period_seconds = period_seconds
        self.refresh()
        if self.session is not None:  # measured from the data on opening it: kept, but not a user's edit
            self.session.project.store(ProfileSizes(self.unit_areas, period_seconds))

    def measure_unit_areas(self, dataset: Any) -> Worker | None:
        """Work out the new dataset's unit areas off the GUI thread, then refit the power law with them."""
        if dataset is None or getattr(dataset, "events", None) is None:
            return None
        worker = Worker(dataset_unit_areas, dataset, name="unit areas")
        # A bound slot, not a lambda: Qt drops the connection if the panel is gone before the worker ends.
        worker.signals.finished.connect(self._unit_areas_found)
        self.runner.start(worker, kind="unit areas")
        return worker

    @Slot(object)
    def _unit_areas_found(self, found: tuple[dict[str, float], float]) -> None:
        self.set_unit_areas(*found)

    def set_subsample_curve(self, curve: SubsampleCurve) -> None:
        """Risk measured on random user subsets (``core.tradeoff.extrapolation.subsample_curve``)."""
        self.curve = curve
        self._refresh_population()

    def set_attributes(self, attributes) -> None:
        """A user-attributes table (``core.tradeoff.groups.read_attributes``)."""
        self.attributes = attributes
        self._refresh_groups()

    def measure_subsamples(self) -> Worker | None:
        """Measure the chosen risk on 10 % … 100 % of the users, at the recommended profile (else the first),
        in a worker; the curve arrives through :meth:`set_subsample_curve`."""
        dataset = getattr(self.session, "dataset", None)
        if dataset is None or self.analysis is None or self.grid is None:
            self.population_text.setText("Import the data and compute the risk grid first.")
            return None
        a = self.analysis
        i = a.labels.index(a.recommendation.label or a.labels[0])
        try:
            settings = RiskSettings.from_dict(self.session.project.settings)
        except (ValueError, TypeError) as exc:
            self.population_text.setText(f"The project's risk settings cannot be used: {exc}")
            return None
        cell = (self.grid.spatial[i], self.grid.temporal[i])
        ps = {} if a.p is None else {"p_values": [a.p], "reference_p": a.p}
        settings = replace(
            settings, cells=[cell], price=[self.grid.price[i]], sensitive=[], ordered=[], **ps
        )  # the risk only
        estimate = runner_estimator(dataset, settings, a.measure, a.p)
        self._population_of(a.measure, a.p, a.labels[i])
        worker = Worker(subsample_curve, dataset.events.n_users, estimate, name="population extrapolation")
        worker.signals.finished.connect(self.set_subsample_curve)
        worker.signals.failed.connect(lambda message, _trace: self.population_text.setText(message))
        worker.signals.progress.connect(lambda f, m: self.population_text.setText(f"{a.labels[i]}: {m}"))
        self.runner.start(worker, kind="population extrapolation")
        return worker

    def _population_of(self, measure: str, p: int | None, profile: str) -> None:
        """Name the measure, p and profile the subsample curve is (being) measured for."""
        self.curve_of = (measure, p, profile)
        self.population_plot.setTitle(f"{measure_name(measure, p)} at {profile}")
        self.population_plot.setLabel("left", measure_name(measure, p))

    def _restore_population(self, project: Any) -> None:
        """Show the population extrapolation the project keeps (curve, model and population) as saved; a
        project without one clears the previous project's."""
        saved = project.analysis(PopulationExtrapolation)
        self.curve = self.curve_of = None
        for item in (self.sub_points, self.trend_line, self.extrapolated):
            item.setData([], [])
        self.extrapolated_label.setText("")
        if saved is None:
            return
        self._population_of(saved.measure, saved.p, saved.profile)
        with QSignalBlocker(self.model), QSignalBlocker(self.population):
            self.model.setCurrentText(saved.model)
            self.population.setValue(saved.population)
        self.set_subsample_curve(SubsampleCurve(np.asarray(saved.n, float), np.asarray(saved.risk, float)))

    # -- the analysis ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Recompute the analysis for the current choices and redraw every view."""
        self.analysis = None
        if self.grid is None or not self.grid.labels:
            self._draw_pareto()
            self.show_aggregates()
            return
        name = self.utility_choice.currentText()
        if not name:
            self.message.setText("Add a utility domain and type expert scores (0-10) to see the trade-off.")
            self._draw_pareto()
            self.show_aggregates()
            return
        try:
            inputs = DecisionInputs(
                self.records,
                self.scores,
                TradeoffChoice.from_dict(self.choices()),
                ComputedUtility(self.computed) if self.computed else None,
                ProfileSizes(self.unit_areas, self.period_seconds),
            )
            self.analysis = decide(inputs)
            self.message.setText("")
        except ValueError as exc:
            self.message.setText(str(exc))
        self._draw_pareto()
        self._draw_ordinal()
        self._draw_power_law()
        self.show_aggregates()

    def show_aggregates(self) -> None:
        """The recorded aggregates beside the microdata candidates, with this tab's recommendation."""
        rec = None if self.analysis is None else self.analysis.recommendation.label
        why = "no risk results yet" if self.grid is None else "no profile meets the criteria"
        self.aggregates.show_project(getattr(self.session, "project", None), rec, why)

    def _draw_pareto(self) -> None:
        for label in self.point_labels:
            self.pareto_plot.removeItem(label)
        self.point_labels = []
        a = self.analysis
        if a is None:
            self.points.setData([], [])
            self.chosen.setData([], [])
            self.front_line.setData([], [])
            self.recommendation.setText("No results yet." if self.grid is None else "")
            self.evidence.setText("")
            _fill(self.dominance, [])
            self.pareto_plot.setRange(xRange=(0, 10), yRange=(0, 1))
            return
        known = np.isfinite(a.risk) & np.isfinite(a.utility)
        brushes = [POINT_BRUSH if label in a.pareto.front else DOMINATED_BRUSH for label in a.labels]
        idx = np.flatnonzero(known)
        self.points.setData(a.utility[idx], a.risk[idx], brush=[brushes[i] for i in idx], data=idx)
        front = [a.labels.index(label) for label in a.pareto.front]
        self.front_line.setData(a.utility[front], a.risk[front], stepMode=None)
        # Utility runs right to left: labels of the least useful third open leftwards to stay in view.
        # Only the recommended profile and front profiles whose names do not collide are written (the
        # table below names every point): twelve names over clustered points covered each other.
        low = a.utility[idx].min() + np.ptp(a.utility[idx]) / 3 if len(idx) else 0.0
        top = 0.9 * a.risk[idx].max() if len(idx) else 0.0
        chosen_first = [a.labels.index(a.recommendation.label)] if a.recommendation.label else []
        candidates = chosen_first + sorted(set(front) - set(chosen_first), key=lambda i: -a.utility[i])
        for i in _spaced_labels(a.utility, a.risk, [i for i in candidates if known[i]]):
            below = a.risk[i] >= top  # under the highest points, not cut off by the plot's top edge
            anchor = (float(a.utility[i] < low), float(not below))
            text = pg.TextItem(label_words(a.labels[i]), color="#333333", anchor=anchor)
            text.setPos(a.utility[i], a.risk[i])
            self.pareto_plot.addItem(text)
            self.point_labels.append(text)
        self.ceiling_line.setPos(a.ceiling)
        self.pareto_plot.setLabel("left", a.risk_name)
        self.pareto_plot.setLabel(
            "bottom", f"{utility_title(a.utility_name)} (reversed: more useful to the left)"
        )
        rec = a.recommendation
        chosen = [a.labels.index(rec.label)] if rec.label else []
        self.chosen.setData(a.utility[chosen], a.risk[chosen])
        self.recommendation.setText(("⚠ " + rec.warning) if rec.warning else rec.reasoning)
        self.evidence.setText("\n".join(a.evidence_lines()))
        rows = []
        for i, label in enumerate(a.labels):
            status = (
                "missing"
                if label in a.pareto.missing
                else ("front" if label in a.pareto.front else "dominated")
            )
            rows.append(
                [
                    label_words(label),
                    format_value(a.measure, a.risk[i]),
                    number(a.utility[i]),
                    status,
                    ", ".join(map(label_words, a.pareto.dominated_by.get(label, []))),
                    "pass"
                    if a.passed(label)
                    else "fail: " + ", ".join(c.name for c in a.checks[i] if not c.passed),
                    a.population[i].sentence(),
                ]
            )
        _fill(self.dominance, rows)

    def _draw_ordinal(self) -> None:
        table = self.analysis.ordinal if self.analysis else None
        names = (
            [] if table is None else [RISK_FIELDS[n].label if n in RISK_FIELDS else n for n in table.names]
        )
        self.tau_table.setRowCount(len(names))
        self.tau_table.setColumnCount(len(names))
        self.tau_table.setHorizontalHeaderLabels(names)
        self.tau_table.setVerticalHeaderLabels(names)
        for i in range(len(names)):
            for j in range(len(names)):
                self.tau_table.setItem(i, j, QTableWidgetItem(number(table.tau[i, j])))
        self.tau_message.setText("" if table is None else table.message())

    def _draw_power_law(self) -> None:
        a = self.analysis
        if a is None:
            return
        ok = np.isfinite(a.coarseness) & (a.coarseness > 0) & (a.risk > 0)
        self.power_plot.setLabel("left", a.risk_name)
        self.power_ceiling.setPos(math.log10(a.ceiling) if a.ceiling > 0 else -12)
        self.power_points.setData(np.log10(a.coarseness[ok]), np.log10(a.risk[ok]))
        if a.power_law is not None:  # drawn only over the measured range, clipped to [0, 1]
            xs = np.geomspace(*a.power_law.measured_range, 50)
            ys = np.clip(a.power_law.fit.predict(xs), 1e-12, 1.0)
            self.power_line.setData(np.log10(xs), np.log10(ys))
        else:
            self.power_line.setData([], [])
        rows = zip(self.grid.spatial, self.grid.price, a.coarseness, strict=True)
        missing = sorted({s for s, price, area in rows if price == "none" and not area > 0})
        extra = f" Unknown unit area for: {', '.join(missing)}." if missing else ""
        self.power_text.setText(a.power_law_text + extra)

    def _refresh_population(self) -> None:
        curve = self.curve
        if curve is None:
            return
        self.sub_points.setData(np.log10(curve.n), curve.risk)
        target = self.population.value()
        try:
            fit = fit_trend(curve.n, curve.risk, self.model.currentText())
        except ValueError as exc:
            self.trend_line.setData([], [])
            self.extrapolated.setData([], [])
            self.population_text.setText(str(exc))
            return
        result = extrapolate(curve.n, curve.risk, target, fit.model)
        xs = np.geomspace(curve.n.min(), max(curve.n.max(), target), 60)
        self.trend_line.setData(xs, fit.predict(xs))
        self.extrapolated.setData([math.log10(target)], [result.value])
        self.extrapolated_label.setText(
            f"extrapolation: {share(result.value)} {interval((result.low, result.high))}"
            + (" — far beyond the data" if result.far else "")
        )
        self.extrapolated_label.setPos(math.log10(target), result.value)
        self.population_text.setText(result.describe())
        if self.curve_of is not None:
            measure, p, profile = self.curve_of
            self._store(
                PopulationExtrapolation(
                    measure, p, profile, curve.n.tolist(), curve.risk.tolist(), target, fit.model
                )
            )

    def _refresh_group_profiles(self) -> None:
        current = self.group_profile.currentText()
        self.group_profile.blockSignals(True)
        self.group_profile.clear()
        self.group_profile.addItems(
            [r.get("label") or f"{r['spatial']} × {r['temporal']}" for r in self.records]
        )
        if current:
            self.group_profile.setCurrentText(current)
        self.group_profile.blockSignals(False)
        self._refresh_groups()

    def _refresh_groups(self) -> None:
        if self.attributes is None or not self.records:
            return
        record = self.records[max(0, self.group_profile.currentIndex())]
        try:
            salt = None if self.session is None else project_salt(self.session.project.analyses)
            report = risk_by_group_of(record, self.attributes, salt)
        except ValueError as exc:
            self.group_text.setText(str(exc))
            return
        self.group_report = report
        self._store(RiskByGroup(self.group_profile.currentText(), report))
        _fill(
            self.group_table,
            [
                [r.attribute, r.group, f"{r.n_users:,}", share(r.mean_unique), number(r.mean_em),
                 report.odds_text(r)]
                for r in report.rows
            ],
        )  # fmt: skip
        self.group_text.setText(
            f"{report.n_matched:,} users with both a risk and attributes; {report.n_without_attributes:,} "
            f"without attributes and {report.n_without_risk:,} in the attributes file without a risk value "
            "(not sampled, not in the data, or too few points) are left out. Odds ratio > 1: the group is "
            "more often unique than everyone else (Woolf 95 % interval)."
        )

    # -- editing -----------------------------------------------------------------------------------
    def _labels(self) -> list[str]:
        return [] if self.grid is None else list(self.grid.labels)

    def _refresh_scores(self) -> None:
        self._filling = True
        labels = self._labels()
        self.score_table.setRowCount(len(labels))
        self.score_table.setColumnCount(len(self.scores.domains))
        self.score_table.setHorizontalHeaderLabels(self.scores.domains)
        for r, label in enumerate(labels):  # profiles in words; the saved key stays the item's data
            header = QTableWidgetItem(label_words(label))
            header.setData(Qt.ItemDataRole.UserRole, label)
            header.setToolTip(label)
            self.score_table.setVerticalHeaderItem(r, header)
        for r, label in enumerate(labels):
            for c, domain in enumerate(self.scores.domains):
                value = self.scores.scores.get(label, {}).get(domain)
                self.score_table.setItem(r, c, QTableWidgetItem("" if value is None else number(value)))
        self._filling = False

    def _score_edited(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        label = self._labels()[item.row()]
        domain = self.scores.domains[item.column()]
        try:
            self.scores.set_score(label, domain, item.text().strip() or None)
        except ValueError as exc:
            self.message.setText(str(exc))
            self._refresh_scores()
            return
        self.message.setText("")
        self._utility_edited()

    def add_domain(self, name: str) -> None:
        self.scores.add_domain(name.strip())
        self._utility_edited()

    def rename_domain(self, old: str, new: str) -> None:
        self.scores.rename_domain(old, new.strip())
        self._utility_edited()

    def remove_domain(self, name: str) -> None:
        self.scores.remove_domain(name)
        self._utility_edited()

    def _utility_edited(self) -> None:
        self._refresh_scores()
        self._refresh_choices()
        self.refresh()
        if self.session is not None:
            self.session.set_utility(self.scores.to_dict())
        self.utility_changed.emit(self.scores.to_dict())

    def _choices_edited(self) -> None:
        if self._filling:
            return
        self.refresh()
        try:  # a changed limit without its reason is not kept: the message above says what is missing
            TradeoffChoice.from_dict(self.choices())
        except ValueError:
            return
        if self.session is not None:
            self.session.set_tradeoff(self.choices())
        self.choices_changed.emit(self.choices())

    def _refresh_choices(self) -> None:
        """Fill the p and utility choosers from the results and scores, keeping the current choices."""
        wanted = self._wanted or {}
        self._wanted = None
        p_now = wanted.get("risk_p", self.p_choice.currentData() if self.p_choice.count() else 4)
        u_now = wanted.get("utility") or self.utility_choice.currentData()
        self._filling = True
        self.p_choice.clear()
        for p in [] if self.grid is None else self.grid.p_values():
            self.p_choice.addItem("explicit" if p is None else str(p), p)
        index = self.p_choice.findData(p_now)
        self.p_choice.setCurrentIndex(index if index >= 0 else self.p_choice.count() - 1)
        self.utility_choice.clear()
        computed = sorted({k for row in self.computed.values() for k in row if k in COMPUTED_SCORES})
        for domain in self.scores.domains:  # an expert domain named like a computed score comes first
            self.utility_choice.addItem(domain, domain)
        for key in computed:  # in words; the saved choice is the score's key
            self.utility_choice.addItem(f"{utility_title(key)} (computed)", key)
            self.utility_choice.setItemData(
                self.utility_choice.count() - 1, COMPUTED_SCORES[key], Qt.ItemDataRole.ToolTipRole
            )
        if not u_now and not self.scores.scores and DEFAULT_COMPUTED in computed:
            u_now = DEFAULT_COMPUTED  # no expert scores: the decision's default
        if u_now and self.utility_choice.findData(u_now) >= 0:
            self.utility_choice.setCurrentIndex(self.utility_choice.findData(u_now))
        self._filling = False

    def _ask_add(self) -> None:
        name, ok = QInputDialog.getText(
            self, "Add utility domain", "Application domain (e.g. transport planning):"
        )
        if ok:
            self._try(lambda: self.add_domain(name))

    def _ask_rename(self, column: int) -> None:
        old = self.scores.domains[column]
        name, ok = QInputDialog.getText(self, "Rename utility domain", "New name:", text=old)
        if ok:
            self._try(lambda: self.rename_domain(old, name))

    def _remove_current(self) -> None:
        column = self.score_table.currentColumn()
        if 0 <= column < len(self.scores.domains):
            self.remove_domain(self.scores.domains[column])

    def _ask_attributes(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "User attributes", "", "CSV (*.csv *.txt);;All files (*)")
        if path:
            self._try(lambda: self.set_attributes(read_attributes(path)))

    def _try(self, action) -> None:
        try:
            action()
        except ValueError as exc:
            self.message.setText(str(exc))

    # -- the session (when mounted in the studio window) --------------------------------------------
    def _project_maybe_replaced(self) -> None:
        project = self.session.project
        if project is self._project:
            return
        self._project = project
        self._arrived = None
        self.scores = UtilityGrid.from_dict(project.utility)
        stored = project.analysis(ComputedUtility)
        self.computed = {} if stored is None else dict(stored.scores)
        self.set_choices(project.tradeoff)
        self.set_results(project.results)
        self._restore_population(project)
        self.load_project_attributes(project)

    def load_project_attributes(self, project: Any) -> Worker | None:
        """Read the project's own user-attributes file (role ``attributes``) in the background, so risk by
        group is ready without asking for a file the project already names."""
        source = next((s for s in project.sources if s.role == "attributes"), None)
        if source is None or not source.exists():
            return None
        worker = Worker(_read_attributes, source.path, name="user attributes")
        worker.signals.finished.connect(lambda table: self.set_attributes(table))
        worker.signals.failed.connect(lambda message, _trace: self.group_text.setText(message))
        self.runner.start(worker, kind="user attributes")
        return worker
