"""Short level names for legends and axes: no internal codes such as grid:5 or all."""

from __future__ import annotations

import pytest

from privacy_studio.core.naming import label_words, profile_short, spatial_short, temporal_short


@pytest.mark.parametrize(
    ("code", "shown"),
    [
        ("grid:5", "5 km squares"),
        ("grid:0.5", "0.5 km squares"),
        ("raw", "raw"),  # the word every command, table and report uses (issue #32)
        ("district", "districts"),
        ("zip", "postcode areas"),
        ("neighbourhood", "neighbourhood"),  # the user's own level: its own name
    ],
)
def test_spatial_short(code: str, shown: str) -> None:
    assert spatial_short(code) == shown


def test_temporal_short_and_profile() -> None:
    assert temporal_short("all") == "whole period"
    assert temporal_short("6h") == "6 hours" and temporal_short("1w") == "1 week"
    assert temporal_short("30min") == "30 minutes"
    assert profile_short("grid:1", "all") == "1 km squares × whole period"
    assert profile_short("grid:1", "1h") == "1 km squares × 1 hour"


@pytest.mark.parametrize(
    ("label", "words"),
    [
        ("grid:1 × 1h", "1 km squares × 1 hour"),
        ("district × 1w", "districts × 1 week"),
        ("raw × all", "raw × whole period"),
        ("shop × 1d × price/4", "shops × 1 day × amount in 4 bins per tenfold"),
        ("shop × 1d × price/1", "shops × 1 day × amount in 1 bin per tenfold"),
        ("explicit", "explicit"),  # not a grid profile: kept as it is
        ("grid:abc × 1h", "grid:abc × 1h"),
    ],
)
def test_profile_keys_in_words(label: str, words: str) -> None:
    assert label_words(label) == words


def test_unreadable_levels_are_refused() -> None:
    with pytest.raises(ValueError):
        spatial_short("grid:abc")
