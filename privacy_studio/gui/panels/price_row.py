"""The grid's third axis for card transactions: a row of price choices under the places x times table."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from privacy_studio.core.generalize import PriceLevel, price_label
from privacy_studio.core.naming import price_name, price_short

#: Choices offered before any is added: the amount withheld, or 1 to 3 bins per factor of ten.
DEFAULT_PRICES = ("none", "1", "2", "3")


class PriceRow(QWidget):
    """Tickable price choices (``none`` or bins per factor of ten); ``edited`` when the ticks change."""

    edited = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.boxes: dict[str, QCheckBox] = {}
        rows = QVBoxLayout(self)  # the title and Add above, the choices below: fits half of a 1280 px window
        rows.setContentsMargins(0, 0, 0, 0)
        top, self.layout_ = QHBoxLayout(), QHBoxLayout()
        rows.addLayout(top)
        rows.addLayout(self.layout_)
        title = QLabel("Amount (card transactions):")
        title.setToolTip(
            "Each ticked choice evaluates every ticked cell again with the amount released in price bins "
            "(a factor of ten split into N bins); 'no amount' keeps it out of the release."
        )
        top.addWidget(title)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("bins per ×10")
        self.edit.setMaximumWidth(110)
        self.add_button = QPushButton("Add")
        self.add_button.clicked.connect(lambda: self.add(self.edit.text()))
        self.message = ""
        for choice in DEFAULT_PRICES:
            self.add(choice)
        self.boxes["none"].setChecked(True)
        self.layout_.addStretch(1)
        top.addStretch(1)
        top.addWidget(self.edit)
        top.addWidget(self.add_button)

    def add(self, text: str) -> bool:
        """Offer a price choice (unticked); False with ``message`` set for a choice that is not one."""
        try:
            choice = price_label(PriceLevel.parse(text))
        except ValueError as exc:
            self.message = str(exc)
            return False
        self.message = ""
        if choice in self.boxes:
            return False
        box = QCheckBox(price_short(choice))
        box.setToolTip(price_name(choice))
        box.toggled.connect(lambda _checked: self.edited.emit())
        self.layout_.insertWidget(len(self.boxes), box)
        self.boxes[choice] = box
        return True

    def chosen(self) -> list[str]:
        """The ticked choices in the order shown."""
        return [choice for choice, box in self.boxes.items() if box.isChecked()]

    def set_chosen(self, choices: list[str]) -> None:
        """Tick exactly ``choices`` (offering those not shown yet)."""
        wanted = [price_label(PriceLevel.parse(c)) for c in choices]
        for choice in wanted:
            self.add(choice)
        self.blockSignals(True)
        for choice, box in self.boxes.items():
            box.setChecked(choice in wanted)
        self.blockSignals(False)
