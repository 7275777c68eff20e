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
        width = min(width, int(available.width() * SCREEN_SHARE))
        height = min(height, int(available.height() * SCREEN_SHARE))
    widget.resize(max(width, widget.minimumSizeHint().width()), height)
