"""Windows and dialogs open at a comfortable size that never exceeds the screen (1280×720 laptops too)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

#: Share of the available screen a window may take when it first opens.
SCREEN_SHARE = 0.92


def fit_to_screen(widget: QWidget, width: int, height: int) -> None:
    """Resize ``widget`` to ``width`` × ``height``, shrunk to fit the screen it opens on (title bar and
    task bar included), so every button stays reachable."""
    screen = widget.screen()
    if screen is not None:
        available = screen.availableGeometry()
        width, height = on_screen(width, height, available.width(), available.height())
    widget.resize(max(width, widget.minimumSizeHint().width()), height)


def on_screen(width: int, height: int, screen_width: int, screen_height: int) -> tuple[int, int]:
    """The size ``width`` × ``height`` opens at on a screen of that size (the tests and screenshots use it
    to show a dialog as a 1280×720 laptop would)."""
    return min(width, int(screen_width * SCREEN_SHARE)), min(height, int(screen_height * SCREEN_SHARE))
