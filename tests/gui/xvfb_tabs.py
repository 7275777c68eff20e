"""Run by test_xvfb.py on a real X server: the start page, then every tab after a run, at each window size.

Usage: python xvfb_tabs.py EVENTS ANTENNAS HIERARCHY OUT_DIR  (writes OUT_DIR/WxH/NN_name.png)
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from xvfb_app import wait_for  # the same wait as the main-window script beside this one

from privacy_studio.gui.main_window import MainWindow

SIZES = ((1280, 720), (1600, 1000))


def settle(app: QApplication, seconds: float = 0.4) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def save(window: MainWindow, folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    if not window.grab().save(str(folder / f"{slug}.png")):
        raise SystemExit(f"cannot write {folder / slug}.png")


def main(events: str, antennas: str, hierarchy: str, out: str) -> int:
    app = QApplication(["privacy-studio"])
    window = MainWindow(QSettings(str(Path(out) / "settings.ini"), QSettings.Format.IniFormat))
    window.move(0, 0)
    window.resize(*SIZES[0])
    window.show()
    settle(app)
    first = Path(out) / "{}x{}".format(*SIZES[0])
    save(window, first, "00 start page")
    dialog = window.show_import()
    dialog.set_source(events, antennas=antennas, hierarchy=hierarchy)
    dialog.tz.setText("Europe/Paris")
    settle(app, 1.5)
    dialog.grab().save(str(first / "00_import_dialog.png"))
    dialog.start_import()
    wait_for(app, lambda: window.session.dataset is not None, "the import")
    dialog.close()
    grid = window.grid
    grid.set_all(False)
    for spatial in ("antenna", "zip", "district"):
        for temporal in ("1h", "6h", "1w"):
            grid.set_checked(spatial, temporal)
    grid.p_to.setValue(6)
    grid.samples.setValue(300)
    grid.reference_p.setValue(4)
    window.start_run(grid.settings())
    wait_for(app, lambda: window.run_worker is None and window.session.project.results, "the run")
    for width, height in SIZES:
        window.resize(width, height)
        folder = Path(out) / f"{width}x{height}"
        for i in range(window.tabs.count()):
            window.tabs.setCurrentIndex(i)
            settle(app, 0.6)
            save(window, folder, f"{i + 1:02d} {window.tabs.tabText(i)}")
    release = window.export_release()  # issue #15 item 6: the first rows as they would be released
    release.start_preview()
    wait_for(app, lambda: release.preview_table.rowCount() > 0, "the release preview")
    settle(app, 0.6)
    release.grab().save(str(Path(out) / "{}x{}".format(*SIZES[0]) / "10_release_preview.png"))
    release.close()
    window.session.set_dirty(False)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
