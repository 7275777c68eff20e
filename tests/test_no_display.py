"""Without a screen the window refuses in one sentence instead of letting Qt abort the interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import privacy_studio.cli.gui as cli_gui
from privacy_studio.cli.gui import NO_DISPLAY, display_available


@pytest.fixture
def x_sockets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(cli_gui, "X11_SOCKETS", tmp_path)
    (tmp_path / "X7").touch()
    return tmp_path


@pytest.mark.parametrize(
    ("env", "platform", "expected"),
    [
        ({}, "linux", False),
        ({"DISPLAY": ""}, "linux", False),
        ({"DISPLAY": ":7"}, "linux", True),
        ({"DISPLAY": ":7.0"}, "linux", True),
        ({"DISPLAY": "unix:7"}, "linux", True),
        ({"DISPLAY": ":8"}, "linux", False),  # no X server listens there
        ({"DISPLAY": "remote-host:10.0"}, "linux", True),
        ({"WAYLAND_DISPLAY": "wayland-0"}, "linux", True),
        ({"QT_QPA_PLATFORM": "offscreen"}, "linux", True),
        ({}, "darwin", True),
        ({}, "win32", True),
    ],
)
def test_display_available(env: dict[str, str], platform: str, expected: bool, x_sockets: Path) -> None:
    assert display_available(env, platform) is expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a missing display is a Linux situation")
@pytest.mark.parametrize("argv", [["sample_data/sample.psproj"], ["gui"], []])
def test_the_window_without_a_display_exits_2_with_one_sentence(argv: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}}
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "privacy_studio", *argv],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == NO_DISPLAY
    assert done.stdout == ""
