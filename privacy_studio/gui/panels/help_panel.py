"""The measures help panel: every explanation, what it means and what it does not mean."""

from __future__ import annotations

from PySide6.QtWidgets import QTextBrowser, QWidget

from privacy_studio.gui import help as measure_help


class HelpPanel(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(True)
        self.setHtml(measure_help.help_html())
