"""Run by test_xvfb.py on a real X server: the start page, every step (and tab) after a run, at each size.

Usage: python xvfb_tabs.py EVENTS ANTENNAS HIERARCHY OUT_DIR  (writes OUT_DIR/WxH/NN_name.png)
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from fit import cut_off  # the same check as test_fit_1280.py, here on a real X server
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from xvfb_app import wait_for  # the same wait as the main-window script beside this one

from privacy_studio.core.report_details import ReportDetails
from privacy_studio.gui.dialogs.report_details_dialog import ReportDetailsDialog
from privacy_studio.gui.main_window import MainWindow
from privacy_studio.gui.screen_fit import on_screen
from privacy_studio.gui.steps import KEYS

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


def extra_shots(app: QApplication, window: MainWindow, folder: Path, shot: int) -> list[str]:
    """The Decide step's candidates and the Grid step's p field saying what is wrong with a typed p."""
    size = f"{window.width()}x{window.height()}"
    window.show_step("decide")
    window.tradeoff.tabs.setCurrentWidget(window.tradeoff.candidates)
    settle(app, 0.6)
    save(window, folder, f"{shot + 1:02d} decide candidates")
    problems = [f"{size} decide candidates: {p}" for p in cut_off(window)]
    window.tradeoff.tabs.setCurrentIndex(0)
    window.show_step("grid")
    line = window.grid.p_values.line
    typed = line.text()
    line.setText("1,2,x")
    settle(app, 0.6)
    save(window, folder, f"{shot + 2:02d} grid p that does not read")
    problems += [f"{size} grid p message: {p}" for p in cut_off(window)]
    line.setText(typed)
    return problems


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
    problems = [f"import dialog: {p}" for p in cut_off(dialog)]
    dialog.start_import()
    wait_for(app, lambda: window.session.dataset is not None, "the import")
    dialog.close()
    grid = window.grid
    grid.set_all(False)
    for spatial in ("antenna", "zip", "district"):
        for temporal in ("1h", "6h", "1w"):
            grid.set_checked(spatial, temporal)
    grid.p_values.line.setText("1,2,4-6")
    grid.samples.setValue(300)
    grid.reference_p.setValue(4)
    window.start_run(grid.settings())
    wait_for(app, lambda: window.run_worker is None and window.session.project.results, "the run")
    wait_for(app, lambda: not window.runner.active, "the information loss")
    wait_for(app, lambda: window.tradeoff.analysis is not None, "the trade-off analysis")
    search = window.tradeoff.candidates.start_search()  # issue #29: the Decide step lists candidates
    if search is None:
        raise SystemExit(f"the protection search did not start: {window.tradeoff.candidates.summary.text()}")
    wait_for(app, lambda: search not in window.runner.active, "the protection search")
    for width, height in SIZES:
        window.resize(width, height)
        folder = Path(out) / f"{width}x{height}"
        shot = 0
        for key in KEYS:  # every step; the Run step once per tab
            window.show_step(key)
            titles = [window.tabs.tabText(i) for i in range(window.tabs.count())] if key == "run" else [""]
            for title in titles:
                window.show_step(key, title)
                settle(app, 0.6)
                shot += 1
                save(window, folder, f"{shot:02d} {key} {title}")
                problems += [f"{width}x{height} {key} {title}: {p}" for p in cut_off(window)]
        problems += extra_shots(app, window, folder, shot)
    release = window.export_release()  # issue #15 item 6: the first rows as they would be released
    release.show()
    for width, height in SIZES:  # at the size it opens at on each screen (issue #27: tables of two rows)
        release.resize(*on_screen(*release.SIZE, width, height))
        settle(app, 0.3)
        release.start_preview()
        wait_for(app, lambda: release.worker is None, "the release preview")
        settle(app, 0.6)
        release.grab().save(str(Path(out) / f"{width}x{height}" / "98_release_preview.png"))
        problems += [f"release dialog at {width}x{height}: {p}" for p in cut_off(release)]
    release.close()
    details = ReportDetailsDialog(window.session.project.name, ReportDetails(), window)
    details.show()
    settle(app, 0.6)
    details.grab().save(str(Path(out) / "{}x{}".format(*SIZES[0]) / "99_report_details.png"))
    problems += [f"report details dialog: {p}" for p in cut_off(details)]
    details.close()
    window.session.set_dirty(False)
    window.close()
    if problems:  # cut off on a real screen: the test fails with the list
        print("\n".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
