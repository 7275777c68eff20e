"""A real window on a real X server (Xvfb): the main window after a run, grabbed from the screen."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.xvfb

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "artifacts" / "screenshots" / "main_window.png"
SCREEN = "1400x900x24"
LARGE_SCREEN = "1600x1000x24"
TAB_SHOTS = ROOT / "artifacts" / "screenshots"


def free_display() -> int:
    """A display number with neither a lock file nor a socket."""
    for number in range(90, 300):
        if not Path(f"/tmp/.X{number}-lock").exists() and not Path(f"/tmp/.X11-unix/X{number}").exists():
            return number
    raise RuntimeError("no free X display number between :90 and :299")


@pytest.fixture
def xvfb_display():
    """Start Xvfb on a free display for the test and stop exactly that process afterwards."""
    yield from _xvfb(SCREEN)


@pytest.fixture
def large_xvfb_display():
    """An X screen large enough for every window size the screenshots are taken at."""
    yield from _xvfb(LARGE_SCREEN)


def _xvfb(screen: str):
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    number = free_display()
    server = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", screen, "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not Path(f"/tmp/.X11-unix/X{number}").exists():
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.skip("Xvfb did not start")
            time.sleep(0.1)
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def test_main_window_after_a_run_is_not_blank(xvfb_display, sample_subset):
    from PySide6.QtGui import QImage

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    SCREENSHOT.unlink(missing_ok=True)
    env = {**os.environ, "DISPLAY": xvfb_display, "QT_QPA_PLATFORM": "xcb"}
    args = [str(sample_subset[k]) for k in ("events", "antennas", "hierarchy")]
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("xvfb_app.py")), *args, str(SCREENSHOT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    image = QImage(str(SCREENSHOT))
    assert (image.width(), image.height()) == (1400, 900)
    step = 7
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)
    }
    assert len(colours) > 50, "the screenshot is (nearly) one colour"


def test_every_tab_is_screenshot_at_both_sizes(large_xvfb_display, sample_subset):
    """Start page, import dialog, every step (every Run tab) after a run at 1280×720 and 1600×1000, and the
    release preview and report details dialogs."""
    from PySide6.QtGui import QImage

    env = {**os.environ, "DISPLAY": large_xvfb_display, "QT_QPA_PLATFORM": "xcb"}
    args = [str(sample_subset[k]) for k in ("events", "antennas", "hierarchy")]
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("xvfb_tabs.py")), *args, str(TAB_SHOTS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for size in ("1280x720", "1600x1000"):
        shots = sorted((TAB_SHOTS / size).glob("[0-9][0-9]_*.png"))
        assert len(shots) >= 12, f"{size}: one screenshot per step and per tab of the Run step"
        width, height = map(int, size.split("x"))
        for shot in shots:
            image = QImage(str(shot))
            if shot.name.startswith(("00_import", "98_release", "99_report")):
                assert image.height() <= height, f"{shot.name}: the dialog fits a 720-pixel screen"
                continue
            assert (image.width(), image.height()) == (width, height), shot.name
