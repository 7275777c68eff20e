"""Starting the studio: numba cache in a user folder, the QApplication, the window, kernels warmed up."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from privacy_studio.numba_cache import configure_numba_cache

#: The window icon, from the repository's ``resources`` folder when running from a checkout or a bundle.
ICON = Path(__file__).resolve().parents[2] / "resources" / "privacy-studio.svg"

#: Environment variable naming a file to create once the window is shown and the event loop has gone idle
#: (``benchmarks/bench_wait.py`` times the window's start with it).
READY_FILE = "PRIVACY_STUDIO_READY_FILE"


def run_app(argv: list[str]) -> int:
    """Open the main window (on the project or data file given as the first argument) and run until closed."""
    configure_numba_cache()  # effective only if numba is not loaded yet; kernels warm up below either way
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from privacy_studio import __version__
    from privacy_studio.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "privacy-studio"])
    app.setOrganizationName("PrivacyStudio")
    app.setApplicationName("Privacy Studio")
    app.setApplicationVersion(__version__)
    if ICON.exists():
        app.setWindowIcon(QIcon(str(ICON)))
    window = MainWindow()
    window.show()
    window.warm_up()
    if argv:
        window.open_path(argv[0])
    ready_file = os.environ.get(READY_FILE)
    if ready_file:
        from PySide6.QtCore import QTimer

        QTimer.singleShot(0, lambda: Path(ready_file).touch())  # runs once the queued events are handled
    return int(app.exec())
