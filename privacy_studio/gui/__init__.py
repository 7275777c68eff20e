"""The studio window: the only package that imports Qt (threads live in ``workers.py`` alone)."""
