"""The studio window: the only package that imports Qt (threads live in ``workers.py`` alone)."""

from privacy_studio.gui.qt_fixes import guard_singleton_refcounts

guard_singleton_refcounts()
