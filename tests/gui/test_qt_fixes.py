"""The guard against PySide6 6.12.0 taking references from None / True / False on every call."""

from __future__ import annotations

import sys

from privacy_studio.gui.qt_fixes import SPARE_REFERENCES, _Probe, leaking_singletons

CALLS = 20_000


def test_many_qt_calls_do_not_exhaust_the_singletons():
    import privacy_studio.gui  # noqa: F401  (importing the GUI package applies the guard)

    probe = _Probe()
    for _ in range(CALLS):
        probe.ping.emit()
        probe.setObjectName("x")
        probe.signalsBlocked()
    for singleton in leaking_singletons():
        assert sys.getrefcount(singleton) > SPARE_REFERENCES // 2
