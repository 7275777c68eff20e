"""What "nothing is cut off" means for a window or dialog, as a list of the offending widgets.

A visible widget is cut off when it reaches outside its window or outside its parent (a layout squeezed
below its minimum). Widgets inside a scroll area are reachable by scrolling up and down, so only their
scroll area's width counts: a shown horizontal scroll bar, or content wider than an area that does not
scroll sideways, is a problem. A label or button without word wrap narrower than its text is clipped.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QLabel,
    QScrollArea,
    QTabBar,
    QWidget,
)

#: Pixels a widget may reach past its parent's edge (frames drawn on the border).
SLACK = 2


def _name(widget: QWidget) -> str:
    text = widget.text() if isinstance(widget, QLabel | QAbstractButton) else ""
    label = f" {text[:40]!r}" if text else ""
    return f"{type(widget).__name__}{'#' + widget.objectName() if widget.objectName() else ''}{label}"


def _scrolled_content(widget: QWidget, top: QWidget) -> bool:
    """Whether ``widget`` sits in a scroll area's viewport (below ``top``): reached by scrolling."""
    parent = widget.parentWidget()
    while parent is not None and parent is not top:
        area = parent.parentWidget()
        if isinstance(area, QAbstractScrollArea) and area.viewport() is parent:
            return True
        parent = area
    return False


def _inside(rect: QRect, outer: QRect) -> bool:
    return outer.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(rect)


def _text_clipped(widget: QWidget) -> bool:
    if isinstance(widget, QLabel) and not widget.wordWrap() and widget.text():
        return widget.width() + SLACK < widget.minimumSizeHint().width()
    if (
        isinstance(widget, QAbstractButton)
        and widget.text()
        and not isinstance(widget.parentWidget(), QTabBar)
    ):
        return widget.width() + SLACK < widget.minimumSizeHint().width()
    return False


def cut_off(top: QWidget) -> list[str]:
    """Every visible widget of ``top`` that is cut off, with the reason; empty when everything fits."""
    problems = []
    for widget in top.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow() or widget.window() is not top:
            continue
        if isinstance(widget, QAbstractScrollArea) and widget.horizontalScrollBar().isVisible():
            problems.append(f"{_name(widget)} shows a horizontal scroll bar")
        inner = widget.widget() if isinstance(widget, QScrollArea) else None
        if inner is not None and inner.width() > widget.viewport().width() + SLACK:
            problems.append(f"{_name(inner)} is wider than its scroll area")
        if _scrolled_content(widget, top):
            continue
        where = QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())
        if not _inside(where, top.rect()):
            problems.append(f"{_name(widget)} at {where.getRect()} reaches outside the window")
        elif widget.parentWidget() is not None and not _inside(
            widget.geometry(), widget.parentWidget().rect()
        ):
            problems.append(f"{_name(widget)} reaches outside {_name(widget.parentWidget())}")
        elif _text_clipped(widget):
            problems.append(f"{_name(widget)} is narrower than its text")
    return problems
