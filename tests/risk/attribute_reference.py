"""Slow, obviously-correct attribute disclosure straight from the definitions, for the tests: classes found
by comparing every pair of people, shares counted one person at a time, and the earth mover's distance as
the optimal transport problem itself (scipy's linear programme), not a closed form."""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog


def distance(i: int, j: int, m: int, ordered: bool, unknown: bool) -> float:
    """The ground distance of values i and j of m: ordered bands |i - j| / (bands - 1) apart, the last
    value "(unknown)" (when ``unknown``) and unordered values 1 apart from every other."""
    if i == j:
        return 0.0
    bands = m - int(unknown)
    if not ordered or (unknown and m - 1 in (i, j)):
        return 1.0
    return abs(i - j) / (bands - 1)


def emd(a: list[float], b: list[float], ordered: bool, unknown: bool = False) -> float:
    """Least total mass x distance to move ``a`` onto ``b`` (``distance``)."""
    m = len(a)
    if m == 1:
        return 0.0
    cost = [[distance(i, j, m, ordered, unknown) for j in range(m)] for i in range(m)]
    rows = [[1.0 if k // m == i else 0.0 for k in range(m * m)] for i in range(m)]  # mass leaving a_i
    cols = [[1.0 if k % m == j else 0.0 for k in range(m * m)] for j in range(m)]  # mass reaching b_j
    res = linprog(
        np.ravel(cost), A_eq=np.asarray(rows + cols), b_eq=np.asarray(list(a) + list(b)), bounds=(0, None)
    )
    return float(res.fun)


UNKNOWN = "(unknown)"


def value_list(bands: list[str], all_values: list[str | None]) -> list[str]:
    """The values of an attribute: its bands, then "(unknown)" when someone has no value."""
    return [*bands, *([UNKNOWN] if None in all_values else [])]


def file_distribution(all_values: list[str | None], values: list[str]) -> list[float]:
    """Shares of each value among all the people of the data (no value: "(unknown)")."""
    named = [UNKNOWN if v is None else v for v in all_values]
    return [named.count(v) / len(named) for v in values]


def figures_of_classes(
    classes: list[list[list[str | None]]],
    values: list[str],
    file: list[float],
    ordered: bool,
    l: int,  # noqa: E741
    t: float,
) -> dict:
    """``classes[i]`` = the value lists of person i's classes (one per draw); None is the value "(unknown)",
    last in ``values`` when someone lacks a value. Shares over people (each person's draws averaged),
    extremes over every class."""
    unknown = values[-1] == UNKNOWN
    homog, below_d, below_e, above, distinct_all, entropy_all, t_all = [], [], [], [], [], [], []
    for draws in classes:
        h = d = e = a = 0.0
        for vals in draws:
            named = [UNKNOWN if v is None else v for v in vals]
            distinct = len(set(named))
            shares = [named.count(v) / len(named) for v in values]
            entropy_l = math.exp(-sum(s * math.log(s) for s in shares if s > 0))
            dist = emd(shares, file, ordered, unknown)
            h += distinct == 1
            d += distinct < l
            e += entropy_l < l - 1e-9
            a += dist > t
            distinct_all.append(distinct)
            entropy_all.append(entropy_l)
            t_all.append(dist)
        for total, out in ((h, homog), (d, below_d), (e, below_e), (a, above)):
            out.append(total / len(draws))
    n = len(homog)
    return {
        "n_people": n,
        "homogeneous": sum(homog) / n if n else math.nan,
        "below_distinct_l": sum(below_d) / n if n else math.nan,
        "below_entropy_l": sum(below_e) / n if n else math.nan,
        "above_t": sum(above) / n if n else math.nan,
        "min_distinct_l": min(distinct_all, default=None),
        "min_entropy_l": min(entropy_all, default=None),
        "max_t": max(t_all, default=None),
    }


def trace_class_values(traces: list[set[int]], values: list[str | None]) -> list[list[list[str | None]]]:
    """Per person: the values of everyone whose whole trace equals theirs (one draw)."""
    return [[[values[v] for v in range(len(traces)) if traces[v] == traces[u]]] for u in range(len(traces))]


def set_values(traces: list[set[int]], values: list[str | None], known: list[set[int]]) -> list[str | None]:
    """The values of everyone whose trace contains every point of ``known``."""
    return [values[v] for v in range(len(traces)) if known <= traces[v]]
