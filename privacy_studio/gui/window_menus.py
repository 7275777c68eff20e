"""The window's menus, toolbar and Help: every action with its shortcut and tip."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QMessageBox,
    QToolBar,
)

from privacy_studio import __version__
from privacy_studio.gui.steps import STEPS
from privacy_studio.versions import library_versions

if TYPE_CHECKING:
    pass


class MenuBar:
    """Mixin of ``MainWindow``: builds the menu bar and the Run toolbar."""

    def _action(self, menu: Any, text: str, slot: Any, shortcut: Any = None, tip: str = "") -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&New project", self.new_project, QKeySequence.StandardKey.New)
        self._action(file_menu, "&Open project…", self.ask_open, QKeySequence.StandardKey.Open)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self._action(file_menu, "&Save", self.save, QKeySequence.StandardKey.Save)
        self._action(file_menu, "Save &as…", self.save_as, QKeySequence.StandardKey.SaveAs)
        file_menu.addSeparator()
        self._action(
            file_menu, "&Import data…", lambda: self.show_import(), "Ctrl+I", "Read a data file or folder"
        )
        self._action(
            file_menu, "&Export plot…", self.export_plot, "Ctrl+E", "Save the current plot or its data"
        )
        self._action(file_menu, "Export &report…", self.export_report, "Ctrl+Shift+E", "Write the PDF report")
        self._action(
            file_menu,
            "Export re&lease…",
            lambda: self.export_release(),
            tip="Write the data at a profile, measured again",
        )
        self._action(
            file_menu,
            "Export a&ggregate…",
            self.export_aggregate,
            tip="Write people per place (or per move) and time bin with differential privacy (OpenDP)",
        )
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        project_menu = self.menuBar().addMenu("&Project")
        self._action(
            project_menu,
            "Report &details…",
            self.edit_report_details,
            tip="The project's name and description, and the texts of the report's decision record",
        )
        run_menu = self.menuBar().addMenu("&Run")
        self.run_action = self._action(
            run_menu, "&Run", self.request_run, "Ctrl+R", "Measure the risk of the ticked cells (Ctrl+R)"
        )
        self.cancel_action = self._action(
            run_menu, "&Cancel", self.cancel_shown, "Esc", "Stop the running computation (Esc)"
        )
        self.cancel_action.setEnabled(False)
        view_menu = self.menuBar().addMenu("&View")
        for number, step in enumerate(STEPS, 1):
            self._action(
                view_menu,
                f"&{number} {step.title}",
                lambda _=False, k=step.key: self.show_step(k),
                f"Ctrl+{number}",
                step.purpose,
            )
        view_menu.addSeparator()
        view_menu.addAction(self.help_dock.toggleViewAction())
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&Measures help", self.show_help, QKeySequence.StandardKey.HelpContents)
        self._action(help_menu, "&About Privacy Studio", self.show_about)
        self._update_recent_menu()

    def _build_toolbar(self) -> None:
        """Run and Cancel where they are always in view, whatever the window's size."""
        bar = QToolBar("Run")
        bar.setObjectName("RunToolbar")
        bar.setMovable(False)
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for action in (self.run_action, self.cancel_action):
            bar.addAction(action)
            action.setToolTip(action.statusTip())
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.toolbar = bar

    def show_help(self) -> None:
        self.help_dock.show()
        self.help_dock.raise_()

    def about_text(self) -> str:

        rows = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in library_versions().items())
        return (
            f"<h3>Privacy Studio {__version__}</h3>"
            "<p>Measures how identifiable the people in a behavioural dataset are, "
            "across generalizations.</p>"
            f"<table>{rows}</table>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self, "About Privacy Studio", self.about_text())
