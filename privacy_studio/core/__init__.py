"""GUI-free core of Privacy Studio: data, generalization, measures, trade-off, projects and report content.

Nothing under this package may import Qt (``tests/test_architecture.py`` enforces it).
"""
