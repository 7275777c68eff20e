"""The trade-off panel's Risk by group tab: uniqueness and EM-disclosure per attribute group, from the
project's user-attributes file."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from privacy_studio.core.analyses import RiskByGroup
from privacy_studio.core.numbers import number, share
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.tradeoff.groups import GroupReport, read_attributes, risk_by_group_of
from privacy_studio.core.user_keys import project_salt
from privacy_studio.gui.panels.tradeoff_widgets import (
    data_table,
    fill_table,
    read_attributes_task,
    tab_page,
)
from privacy_studio.gui.results import profile_label
from privacy_studio.gui.workers import Worker


def group_report_task(
    result: ProfileResult, attributes: Any, salt: str | None, control: Any = None
) -> GroupReport:
    """``risk_by_group_of`` as a worker task (one pass over the people: nothing to report)."""
    return risk_by_group_of(result, attributes, salt)


class GroupViews:
    """Mixin of ``TradeoffPanel``: reads the user attributes and tabulates risk per group."""

    def _build_groups(self) -> QWidget:
        load = QPushButton("Load user attributes…")
        load.clicked.connect(self._ask_attributes)
        self.group_profile = QComboBox()
        self.group_profile.currentIndexChanged.connect(self._refresh_groups)
        self.group_table = data_table(
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
        return tab_page(controls, (self.group_table, 1), self.group_text)

    def set_attributes(self, attributes) -> None:
        """A user-attributes table (``core.tradeoff.groups.read_attributes``)."""
        self.attributes = attributes
        self._refresh_groups()

    def _refresh_group_profiles(self) -> None:
        current = self.group_profile.currentText()
        self.group_profile.blockSignals(True)
        self.group_profile.clear()
        self.group_profile.addItems([profile_label(r) for r in self.results])
        if current:
            self.group_profile.setCurrentText(current)
        self.group_profile.blockSignals(False)
        self._refresh_groups()

    def _refresh_groups(self) -> None:
        """Tabulate the chosen profile's risk per group in a worker (a newer choice replaces it): 100,000
        people took 0.8 s of the GUI thread when a project was opened (issue #27)."""
        if self.attributes is None or not self.results:
            return
        result = self.results[max(0, self.group_profile.currentIndex())]
        label = self.group_profile.currentText()
        salt = None if self.session is None else project_salt(self.session.project.analyses)
        worker = Worker(group_report_task, result, self.attributes, salt, name="risk by group")
        worker.signals.finished.connect(lambda report: self._show_groups(label, report))
        worker.signals.failed.connect(lambda message, _trace: self.group_text.setText(message))
        self.runner.start(worker, kind="risk by group")

    def _show_groups(self, label: str, report: GroupReport) -> None:
        """The table and sentence of one profile's risk by group, kept in the project."""
        self.group_report = report
        self._store(RiskByGroup(label, report))
        fill_table(
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

    def _ask_attributes(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "User attributes", "", "CSV (*.csv *.txt);;All files (*)")
        if path:
            self._try(lambda: self.set_attributes(read_attributes(path)))

    def load_project_attributes(self, project: Any) -> Worker | None:
        """Read the project's own user-attributes file (role ``attributes``) in the background, so risk by
        group is ready without asking for a file the project already names."""
        source = next((s for s in project.sources if s.role == "attributes"), None)
        if source is None or not source.exists():
            return None
        worker = Worker(read_attributes_task, source.path, name="user attributes")
        worker.signals.finished.connect(lambda table: self.set_attributes(table))
        worker.signals.failed.connect(lambda message, _trace: self.group_text.setText(message))
        self.runner.start(worker, kind="user attributes")
        return worker
