"""Scrolling past a setting does not change it: spin boxes, combo boxes and sliders take the mouse wheel only
once they have the keyboard focus (click or Tab into them); otherwise the wheel scrolls the panel."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QSlider, QWidget

GUARDED = (QAbstractSpinBox, QComboBox, QSlider)


class WheelGuard(QObject):
    """Hands wheel events over a setting without focus to the widget's parent (the scroll area)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Wheel and isinstance(watched, QWidget) and not watched.hasFocus():
            parent = watched.parentWidget()
            if parent is not None:
                QApplication.sendEvent(parent, event)
            return True
        return False


def guard_wheel(root: QWidget, guard: WheelGuard) -> None:
    """Guard every setting inside ``root``; they take the focus on click or Tab, not on wheel."""
    for kind in GUARDED:
        for widget in root.findChildren(kind):
            if widget.property("wheel_guarded"):
                continue
            widget.setProperty("wheel_guarded", True)
            widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            widget.installEventFilter(guard)
