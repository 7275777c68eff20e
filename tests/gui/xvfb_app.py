"""Run by test_xvfb.py in a subprocess on a real X server: import, run, screenshot the whole screen.

Usage: python xvfb_app.py EVENTS ANTENNAS HIERARCHY OUT.png
"""

from __future__ import annotations

import sys
import time

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from privacy_studio.gui.main_window import MainWindow

TIMEOUT = 240.0


def wait_for(app: QApplication, condition, what: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.02)


def main(events: str, antennas: str, hierarchy: str, out: str) -> int:
    app = QApplication(["privacy-studio"])
    window = MainWindow(QSettings(out + ".ini", QSettings.Format.IniFormat))
    window.resize(1400, 900)
    window.move(0, 0)
    window.show()
    dialog = window.show_import()
    dialog.set_source(events, antennas=antennas, hierarchy=hierarchy)
    dialog.tz.setText("Europe/Paris")
    dialog.start_import()
    wait_for(app, lambda: window.session.dataset is not None, "the import")
    dialog.close()
    grid = window.grid
    grid.set_all(False)
    for spatial in ("antenna", "zip", "district"):
        for temporal in ("1h", "1w"):
            grid.set_checked(spatial, temporal)
    grid.p_values.line.setText("1-5")
    grid.samples.setValue(200)
    window.start_run(grid.settings())
    wait_for(app, lambda: window.run_worker is None and window.session.project.results, "the run")
    window.tabs.setCurrentIndex(0)
    for _ in range(20):
        app.processEvents()
        time.sleep(0.05)
    if not app.primaryScreen().grabWindow(0).save(out):
        raise SystemExit(f"cannot write {out}")
    window.session.set_dirty(False)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
