"""Aggregates of a dataset computed without holding its events (issue #30): summary, map, import report."""
