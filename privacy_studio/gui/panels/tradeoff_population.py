"""The trade-off panel's Population tab: risk measured on 10 % … 100 % of the people and its trend
extrapolated to a larger population, kept in the project as saved."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QWidget,
)

from privacy_studio.core.analyses import PopulationExtrapolation
from privacy_studio.core.numbers import interval, share
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.tradeoff.analysis import measure_name
from privacy_studio.core.tradeoff.extrapolation import (
    MODELS,
    SubsampleCurve,
    extrapolate,
    fit_trend,
    runner_estimator,
    subsample_curve,
)
from privacy_studio.gui.panels.tradeoff_widgets import (
    POINT_BRUSH,
    plot_widget,
    tab_page,
)
from privacy_studio.gui.workers import Worker


class PopulationViews:
    """Mixin of ``TradeoffPanel``: the subsample curve, its fitted trend and the extrapolated point."""

    def _build_population(self) -> QWidget:
        self.population_plot = plot_widget("users in the file (n)", "risk")
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
        return tab_page(controls, (self.population_plot, 1), self.population_text)

    def set_subsample_curve(self, curve: SubsampleCurve) -> None:
        """Risk measured on random user subsets (``core.tradeoff.extrapolation.subsample_curve``)."""
        self.curve = curve
        self._refresh_population()

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
