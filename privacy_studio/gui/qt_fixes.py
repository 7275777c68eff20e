"""Work-arounds for defects of the installed Qt binding, applied once when the GUI package is imported.

PySide6 / shiboken6 6.12.0 return ``None``, ``True`` and ``False`` from C++ functions (void functions,
``Signal.emit``, bool getters) without adding a reference, so every such call from Python takes one
reference away from the singleton; after some thousands of calls, painting and signals included, the
interpreter aborts with "deallocating None" or "deallocating True or False". When a singleton is found to
lose references, it gets a reference count too large to ever reach zero (CPython 3.12+ makes these objects
immortal anyway). Drop this module once the pinned PySide6 is fixed.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

#: References given to a singleton found to lose them: more than any session can make calls.
SPARE_REFERENCES = 1 << 40
_PROBES = 16


class _Probe(QObject):
    ping = Signal()


def _loses_references(singleton: object, call: Callable[[], object]) -> bool:
    before = sys.getrefcount(singleton)
    for _ in range(_PROBES):
        call()
    return sys.getrefcount(singleton) <= before - _PROBES


def leaking_singletons() -> list[object]:
    """The singletons (None, True, False) that Qt calls returning them take references from."""
    probe = _Probe()
    checks = (
        (None, lambda: probe.setObjectName("probe")),  # a void function returns None
        (True, probe.ping.emit),  # emit returns True
        (False, probe.signalsBlocked),  # a bool getter returns False here
    )
    return [singleton for singleton, call in checks if _loses_references(singleton, call)]


def guard_singleton_refcounts() -> list[object]:
    """Protect every singleton the binding leaks references of; returns the ones that needed it."""
    leaking = leaking_singletons()
    for singleton in leaking:
        ctypes.c_ssize_t.from_address(id(singleton)).value += SPARE_REFERENCES
    return leaking
