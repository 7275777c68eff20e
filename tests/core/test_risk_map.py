"""The risk map's cells and classes against a slow place-by-place reference, and worked examples."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.risk_map import bin_places, risk_classes


def reference_cells(x, y, risk, cells_across):
    """Place by place: the cell (row, column) of each place and the highest risk seen in each cell."""
    span = max(max(x) - min(x), max(y) - min(y), 1e-9)
    cell = span / cells_across
    highest: dict[tuple[int, int], float] = {}
    count: dict[tuple[int, int], int] = {}
    for a, b, r in zip(x, y, risk, strict=True):
        row = min(int((b - min(y)) / cell), cells_across - 1)
        key = (row, min(int((a - min(x)) / cell), cells_across - 1))
        highest[key] = max(highest.get(key, -math.inf), r)
        count[key] = count.get(key, 0) + 1
    return cell, highest, count


def test_worked_example_two_cells_across():
    # Places at the corners of a 2 km square: cells of 1 km; the two places of the south-west cell keep
    # the higher risk, 0.5.
    x = np.array([0.0, 0.2, 2.0, 0.0])
    y = np.array([0.0, 0.3, 2.0, 2.0])
    risk = np.array([0.1, 0.5, 0.9, 0.3])
    cells = bin_places(x, y, risk, cells_across=2)
    assert cells.cell_km == 1.0 and (cells.x0, cells.y0) == (0.0, 0.0)
    np.testing.assert_array_equal(cells.places, [[2, 0], [1, 1]])
    np.testing.assert_array_equal(cells.highest, [[0.5, np.nan], [0.3, 0.9]])


def test_places_without_coordinates_or_risk_are_left_out():
    cells = bin_places([0.0, np.nan, 1.0], [0.0, 1.0, 1.0], [0.2, 0.4, np.nan], cells_across=4)
    assert cells.places.sum() == 1 and np.nanmax(cells.highest) == 0.2


def test_no_places_gives_an_empty_map():
    cells = bin_places([], [], [])
    assert cells.shape == (0, 0) and cells.places.sum() == 0


def test_quintile_classes_of_ten_values():
    classes = risk_classes(np.arange(10.0))
    np.testing.assert_allclose(classes.edges, [0.0, 1.8, 3.6, 5.4, 7.2, 9.0])
    np.testing.assert_array_equal(classes.of(np.arange(10.0)), [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    assert classes.of(np.array([np.nan]))[0] == -1
    assert classes.labels()[0] == "0 – 1.8"


coords = st.floats(-50, 50, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(coords, coords, st.floats(0, 1, allow_nan=False)), min_size=1, max_size=60),
    st.integers(1, 12),
)
def test_cells_match_the_place_by_place_reference(places, across):
    x, y, risk = (np.array(v, dtype=float) for v in zip(*places, strict=True))
    cells = bin_places(x, y, risk, cells_across=across)
    cell, highest, count = reference_cells(list(x), list(y), list(risk), across)
    assert math.isclose(cells.cell_km, cell)
    assert cells.places.sum() == len(places)
    for (row, column), value in highest.items():
        assert cells.highest[row, column] == value
        assert cells.places[row, column] == count[(row, column)]
    assert np.isnan(cells.highest).sum() == cells.highest.size - len(highest)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=80))
def test_classes_are_ordered_and_hold_about_a_fifth_each(values):
    values = np.array(values)
    classes = risk_classes(values)
    of = classes.of(values)
    assert ((of >= 0) & (of < 5)).all()
    order = np.argsort(values, kind="stable")
    assert (np.diff(of[order]) >= 0).all(), "a riskier place never gets a lower class"
    for i in range(5):  # values strictly inside a class's bounds belong to it
        inside = (values > classes.edges[i]) & (values < classes.edges[i + 1])
        assert (of[inside] == i).all()
