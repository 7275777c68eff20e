"""Short level names for legends and axes: no internal codes such as grid:5 or all."""

from __future__ import annotations

import pytest

from privacy_studio.core.naming import profile_short, spatial_short, temporal_short


@pytest.mark.parametrize(
    ("code", "shown"),
    [
        ("grid:5", "5 km squares"),
        ("grid:0.5", "0.5 km squares"),
        ("raw", "raw"),
        ("district", "district"),
    ],
)
def test_spatial_short(code: str, shown: str) -> None:
    assert spatial_short(code) == shown


def test_temporal_short_and_profile() -> None:
    assert temporal_short("all") == "whole period"
    assert temporal_short("6h") == "6h"
    assert profile_short("grid:1", "all") == "1 km squares × whole period"


def test_unreadable_levels_are_refused() -> None:
    with pytest.raises(ValueError):
        spatial_short("grid:abc")
