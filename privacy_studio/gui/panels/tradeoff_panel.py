"""The privacy-utility trade-off view: expert scores, Pareto plot, ordinal equivalence, recommendation,
power law, population extrapolation and risk by group — a self-contained widget fed with risk results."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.analyses import ComputedUtility, ProfileSizes, SeedSpread, TradeoffChoice
from privacy_studio.core.naming import label_words
from privacy_studio.core.numbers import number
from privacy_studio.core.risk.catalogue import RISK_FIELDS, UNICITY
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.tradeoff import GridTable, grid_table
from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis
from privacy_studio.core.tradeoff.criteria import OPTIONAL_CRITERIA, REASONS_KEY
from privacy_studio.core.tradeoff.decision import DEFAULT_COMPUTED, DecisionInputs, decide
from privacy_studio.core.tradeoff.extrapolation import SubsampleCurve
from privacy_studio.core.tradeoff.grid import RISK_MEASURES
from privacy_studio.core.tradeoff.groups import GroupReport
from privacy_studio.core.tradeoff.powerlaw import dataset_unit_areas
from privacy_studio.core.utility import COMPUTED_SCORES, UtilityGrid, utility_title
from privacy_studio.gui.panels.aggregates_tab import AggregatesTab
from privacy_studio.gui.panels.candidates_tab import CandidatesTab
from privacy_studio.gui.panels.tradeoff_groups import GroupViews
from privacy_studio.gui.panels.tradeoff_population import PopulationViews
from privacy_studio.gui.panels.tradeoff_views import AnalysisViews
from privacy_studio.gui.panels.tradeoff_widgets import CRITERIA_LABELS, limit_box
from privacy_studio.gui.plots.base import REDRAW_DELAY_MS
from privacy_studio.gui.workers import TaskRunner, Worker


def _same_number(a: float, b: float) -> bool:
    """Equal, or both not a number."""
    return a == b or (math.isnan(a) and math.isnan(b))


class TradeoffPanel(AnalysisViews, PopulationViews, GroupViews, QWidget):
    """Call :meth:`set_results` with the risk records (live, as they arrive); edits are announced by
    ``utility_changed`` (the project's ``utility`` dict) and ``choices_changed`` (its ``tradeoff`` dict)."""

    utility_changed = Signal(dict)
    choices_changed = Signal(dict)

    def __init__(self, session: Any, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.results: list[ProfileResult] = []
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
            session.changed.connect(self.show_stored)
            self._project = None
            self._project_maybe_replaced()

    # -- results of a run: analysed when the panel is shown or the run ends ---------------------------
    def _results_arrived(self, results: list[ProfileResult]) -> None:
        self._arrived = results
        if not self.window().isVisible():  # off screen (tests, report): at once
            self.catch_up()
        elif self.isVisible() and not self._arrival_timer.isActive():
            self._arrival_timer.start()

    def catch_up(self) -> None:
        """Analyse the results that arrived while the panel was hidden (a run's end calls it once)."""
        self._arrival_timer.stop()
        if self._arrived is not None:
            results, self._arrived = self._arrived, None
            self.set_results(results)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._arrived is not None:
            self._arrival_timer.start(0)

    # -- construction ------------------------------------------------------------------------------
    def _build(self) -> None:
        left = self._build_choices()  # first: the Pareto plot draws the ceiling chosen there
        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_pareto(), "Pareto")
        self.candidates = CandidatesTab(self.session, self.runner)
        self.candidates.searched.connect(lambda _found: self.show_stored())
        self.candidates.before_search = self.keep_choices
        self.tabs.addTab(self.candidates, "Candidates")
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

    def _build_choices(self) -> QWidget:
        """The left column: expert scores, then the measure, p, utility, ceiling and release criteria."""
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
        self.criteria_boxes = {key: limit_box(key, what) for key, what in OPTIONAL_CRITERIA.items()}
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
        return left

    # -- inputs ------------------------------------------------------------------------------------
    def set_results(self, results: list[ProfileResult] | list[dict]) -> None:
        """Show these risk results (``ProfileResult`` objects or their records); called after each one."""
        self._take_results(results)
        self._refresh_choices()
        self.refresh()
        self._refresh_group_profiles()

    def _take_results(self, results: list[ProfileResult] | list[dict]) -> None:
        """Keep the results (typed: the analysis reads them as such) and their grid, and list their profiles
        in the score table (no analysis yet)."""
        try:
            self.grid = grid_table(results)  # says which entry is not a risk result
            self.results = [ProfileResult.from_dict(r) if isinstance(r, dict) else r for r in results]
        except ValueError as exc:
            self.results = []
            self.grid = None
            self.message.setText(str(exc))
        self._refresh_scores()

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
        measure = str(choices.get("risk_measure") or UNICITY)
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
        """Mean unit area (km²) per spatial level (``core.tradeoff.powerlaw.unit_areas``): power law. The
        same areas as shown (an opened project's data measured again) leave the analysis as it is."""
        if self._take_unit_areas(areas, period_seconds):
            self.refresh()

    def _take_unit_areas(self, areas: dict[str, float], period_seconds: float) -> bool:
        """Keep the areas (in the project too); True when they differ from those the analysis used."""
        same = areas == self.unit_areas and _same_number(period_seconds, self.period_seconds)
        self.unit_areas = dict(areas)
        self.period_seconds = period_seconds
        if self.session is not None:  # measured from the data on opening it: kept, but not a user's edit
            self.session.project.store(ProfileSizes(self.unit_areas, period_seconds))
        return not same

    def set_loss(self, computed: ComputedUtility, sizes: ProfileSizes) -> None:
        """The information loss measured on a sample, with the profiles' sizes: analysed once for both
        (each alone redrew the Decide step, 2 x 65 ms of the window's thread at 10M people)."""
        self._take_unit_areas(sizes.unit_areas, sizes.period_seconds)
        self.set_computed_utility(computed)

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

    # -- the analysis ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Recompute the analysis for the current choices and redraw every view."""
        self.analysis = None
        if self.grid is None or not self.grid.labels:
            self._draw_pareto()
            self.show_stored()
            return
        name = self.utility_choice.currentText()
        if not name:
            self.message.setText("Add a utility domain and type expert scores (0-10) to see the trade-off.")
            self._draw_pareto()
            self.show_stored()
            return
        try:
            inputs = DecisionInputs(
                self.results,
                self.scores,
                TradeoffChoice.from_dict(self.choices()),
                ComputedUtility(self.computed) if self.computed else None,
                ProfileSizes(self.unit_areas, self.period_seconds),
                None if self.session is None else self.session.project.analysis(SeedSpread),
            )
            self.analysis = decide(inputs)
            self.message.setText("")
        except ValueError as exc:
            self.message.setText(str(exc))
        self._draw_pareto()
        self._draw_ordinal()
        self._draw_power_law()
        self.show_stored()

    def show_stored(self) -> None:
        """The analyses the project stores beside this one: its aggregates and its protection search."""
        self.show_aggregates()
        self.candidates.show_project(getattr(self.session, "project", None), self.analysis)
        self._draw_release_candidates(self.candidates.result, self.candidates.current)
        found = self.candidates.recommended()
        if self.analysis is not None:  # the Pareto tab names the candidate the search recommends
            rec = self.analysis.recommendation
            text = ("⚠ " + rec.warning) if rec.warning else rec.reasoning
            spread = self.analysis.seed_spread  # the run's, when about this measure and p
            if spread is not None and spread.profile == rec.label:  # as the decision's evidence says it
                text += f"\n{spread.sentence()}"
            if found is not None:
                text += f"\nRelease candidate of the protection search: {found.name()} (Candidates tab)."
            self.recommendation.setText(text)

    def show_aggregates(self) -> None:
        """The recorded aggregates beside the microdata candidates, with this tab's recommendation."""
        rec = None if self.analysis is None else self.analysis.recommendation.label
        why = "no risk results yet" if self.grid is None else "no profile meets the criteria"
        self.aggregates.show_project(getattr(self.session, "project", None), rec, why)

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

    def keep_choices(self) -> str:
        """Write the shown choices into the project (a search judges by them); what is wrong, or ``""``."""
        if self.analysis is None:
            return self.message.text() or "Choose a utility and the criteria first."
        try:
            TradeoffChoice.from_dict(self.choices())
        except ValueError as exc:
            return str(exc)
        if self.session is not None:
            self.session.set_tradeoff(self.choices())
        return ""

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
        sizes = project.analysis(ProfileSizes)  # the data's own, until it is read and measured again
        self.unit_areas = {} if sizes is None else dict(sizes.unit_areas)
        self.period_seconds = math.nan if sizes is None else sizes.period_seconds
        self._take_results(project.results)  # first: the saved p and utility are chosen among its own
        self.set_choices(project.tradeoff)  # one analysis for the opened project, not two
        self._refresh_group_profiles()
        self._restore_population(project)
        self.load_project_attributes(project)
