"""Project ▸ Report details: the project's name and description and the texts of the report's decision record
(purpose, recipient, release format, reasons for p and the ceiling, sign-off)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from privacy_studio.core.report_details import (
    DECISIONS,
    DEFAULT_CEILING_RATIONALE,
    DEFAULT_P_RATIONALE,
    ReportDetails,
)

#: Multi-line fields: (ReportDetails field, label, placeholder).
_TEXTS = (
    ("description", "Description", "What the project is about"),
    ("purpose", "Purpose", "Why the data is released"),
    ("data_description", "Data", "The data in words (empty: the report describes the input file)"),
    ("p_rationale", "Why this p", DEFAULT_P_RATIONALE),
    ("ceiling_rationale", "Why this ceiling", DEFAULT_CEILING_RATIONALE),
    ("protections", "Other protections", "Access control, contracts, aggregation … that go with the release"),
)
#: One-line fields.
_LINES = (
    ("recipient", "Recipient", "Who receives the data"),
    ("release_format", "Release format", "The columns that will be published"),
    ("signer_name", "Signed by", "Name"),
    ("signer_role", "Role", "e.g. Data protection officer"),
    ("sign_date", "Date", "YYYY-MM-DD"),
)


class ReportDetailsDialog(QDialog):
    """Edit the name and the decision-record texts; :meth:`values` gives them back when accepted."""

    def __init__(
        self, name: str, details: ReportDetails, parent: QWidget | None = None, *, stale: bool = False
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Project and report details")
        self.resize(720, 640)
        self.name = QLineEdit(name)
        inner = QWidget()
        inner.setLayout(self._form(details, stale))
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #b00020")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel("These texts are printed in the report's decision record; empty reasons use the studio's.")
        )
        layout.addWidget(scroll)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.name.textChanged.connect(self._check)
        self._check()

    def _form(self, details: ReportDetails, stale: bool) -> QFormLayout:
        """The name, the texts and lines of the decision record, the decision and, when the signature is
        for earlier figures, the warning and the box that signs again."""
        form = QFormLayout()
        form.addRow("Project name", self.name)
        self.texts: dict[str, QPlainTextEdit] = {}
        for field, label, placeholder in _TEXTS:
            edit = QPlainTextEdit(getattr(details, field))
            edit.setPlaceholderText(placeholder)
            edit.setFixedHeight(70)
            self.texts[field] = edit
            form.addRow(label, edit)
        self.lines: dict[str, QLineEdit] = {}
        for field, label, placeholder in _LINES:
            edit = QLineEdit(getattr(details, field))
            edit.setPlaceholderText(placeholder)
            self.lines[field] = edit
            form.addRow(label, edit)
        self.decision = QComboBox()
        self.decision.addItems([d or "not signed yet" for d in DECISIONS])
        self.decision.setCurrentIndex(DECISIONS.index(details.decision))
        form.addRow("Decision", self.decision)
        self.stale = QLabel(
            "Signed for earlier results: the settings, results or release changed after this decision was "
            "recorded. The report does not print it as a decision on the current figures until it is "
            "signed again."
        )
        self.stale.setWordWrap(True)
        self.stale.setStyleSheet("color: #b00020")
        self.stale.setVisible(stale)
        self._stale = stale
        self.resign = QCheckBox("sign again over the current figures")
        self.resign.setVisible(stale)
        form.addRow("", self.stale)
        form.addRow("", self.resign)
        return form

    def _check(self) -> None:
        """A project needs a name: OK stays off, with the reason, while it is empty."""
        empty = not self.name.text().strip()
        self.problem.setText("The project needs a name." if empty else "")
        self.ok.setEnabled(not empty)

    def values(self) -> tuple[str, ReportDetails]:
        """The edited name and details."""
        texts = {field: edit.toPlainText().strip() for field, edit in self.texts.items()}
        lines = {field: edit.text().strip() for field, edit in self.lines.items()}
        decision = DECISIONS[self.decision.currentIndex()]
        return self.name.text().strip(), ReportDetails(**texts, **lines, decision=decision)

    def signs_again(self) -> bool:
        """Whether the signer asked to sign the unchanged decision over the current figures."""
        return self._stale and self.resign.isChecked()
