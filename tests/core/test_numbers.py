"""The one formatter of numbers people read: percentages with sensible digits, bounds that stay bounds, plain
decimals, never e-notation; checked on worked examples and, with hypothesis, on any value."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.numbers import count, interval, lower_bound, number, one_in, share

SCIENTIFIC = re.compile(r"\d[eE][-+]?\d|inf|nan", re.IGNORECASE)
shares = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
reals = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


def _percent_value(text: str) -> float:
    """The number a written percentage shows, as a proportion ("3.6%" -> 0.036)."""
    return float(text.rstrip("%").replace(",", "")) / 100.0


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (0.1234, "12.3%"),
        (0.0241, "2.4%"),
        (0.0049, "0.49%"),
        (0.0007245, "0.072%"),
        (0.00002455, "< 0.01%"),
        (0.0, "0.0%"),
        (1.0, "100.0%"),
        (0.9996, "99.96%"),
        (0.99999, "> 99.99%"),
        (None, "–"),
        (float("nan"), "–"),
    ],
)
def test_share_examples(value: float | None, written: str) -> None:
    assert share(value) == written


def test_bounds_are_rounded_so_they_stay_bounds() -> None:
    assert lower_bound(0.9996) == "≥ 99.9%"  # never "≥ 100.0%"
    assert lower_bound(1.0) == "100.0%"  # a share cannot exceed 100%: the bound is the value
    assert lower_bound(0.036, exact=True) == "3.6%"
    assert lower_bound(0.00001) == "> 0%"
    assert lower_bound(0.0369) == "≥ 3.6%"  # rounded down
    assert interval([0.016, 0.03621]) == "[1.6%, 3.6%]"
    assert interval(None) == "" and interval([None, 0.2]) == ""


def test_plain_numbers_and_counts() -> None:
    assert number(0.000123456) == "0.000123"
    assert number(2.456e-06) == "0.00000246"
    assert number(11093.2) == "11,093" and number(4.99123) == "4.99" and number(-0.946) == "-0.946"
    assert number(3e-12) == "< 0.000000001" and number(0) == "0" and number(None) == "–"
    assert count(12345.0) == "12,345" and count(None) == "–"
    assert one_in(6.87e-08) == "1 in 14,600,000" and one_in(0.168) == "16.8%" and one_in(0) == "none"


@given(shares)
def test_share_never_scientific_and_round_trips(value: float) -> None:
    text = share(value)
    assert not SCIENTIFIC.search(text), text
    if text.startswith("< "):
        assert 0 < value < _percent_value(text[2:])
    elif text.startswith("> "):
        assert _percent_value(text[2:]) < value < 1
    else:
        shown = _percent_value(text)
        decimals = len(text.rstrip("%").partition(".")[2])
        assert abs(shown - value) <= 0.5 * 10.0**-decimals / 100 + 1e-12
        assert value == 1.0 or shown < 1.0 or not 0 < value < 1, "a share under 100% never reads 100%"
        if value >= 0.01:  # one decimal of a percentage at least: two significant digits
            assert abs(shown - value) <= 0.0005 + 1e-12


@given(shares)
def test_lower_bound_is_never_above_the_value(value: float) -> None:
    text = lower_bound(value)
    assert not SCIENTIFIC.search(text)
    assert "100.0%" not in text or value == 1.0
    digits = text.removeprefix("≥ ").removeprefix("> ")
    assert _percent_value(digits) <= value + 1e-12


@given(shares, shares)
def test_interval_writes_its_ends_as_shares(a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert interval([lo, hi]) == f"[{share(lo)}, {share(hi)}]"


@given(reals)
def test_number_never_scientific_and_round_trips(value: float) -> None:
    text = number(value)
    assert not SCIENTIFIC.search(text), text
    if text.startswith(("< ", "> ")):
        assert abs(value) < 1e-9
        return
    shown = float(text.replace(",", ""))
    assert math.isclose(shown, value, rel_tol=5e-3, abs_tol=5e-10), (value, text)


@given(st.floats(1e28, 1e308) | st.floats(-1e308, -1e28))
def test_number_keeps_every_whole_digit_of_huge_values(value: float) -> None:
    """A fitted prefactor can be astronomically large: more whole digits than decimal's default precision
    (28) raised InvalidOperation instead of writing them."""
    text = number(value)
    assert not SCIENTIFIC.search(text) and "." not in text
    assert math.isclose(float(text.replace(",", "")), value, rel_tol=1e-12)
