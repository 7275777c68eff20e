"""Plain-language names for the grid's codes ("grid:1" is "1 km squares", "6h" is "6-hour bins"), shared by
the report and the window so both explain a profile the same way."""

from __future__ import annotations

from privacy_studio.core.generalize import SpatialLevel, TemporalLevel

#: Hierarchy level names the studio's readers and sample data use, in words; other names are the
#: user's own hierarchy levels and are described as such.
_KNOWN_LEVELS = {
    "antenna": "antennas (the mast that carried each call or text)",
    "cell": "antennas (the mast that carried each call or text)",
    "tower": "antennas (the mast that carried each call or text)",
    "zip": "postcode areas",
    "postcode": "postcode areas",
    "district": "districts",
    "city": "whole cities",
    "region": "regions",
    "country": "whole countries",
    "shop": "individual shops",
    "venue": "individual venues",
}

_KNOWLEDGE = {
    "uniform": "p points picked at random from the person's trace",
    "activity": "p points picked in proportion to how often the person is there",
    "top": "the person's p most frequent places, times unknown",
}

_UNIT_WORDS = (("w", "week"), ("d", "day"), ("h", "hour"), ("min", "minute"), ("s", "second"))


def spatial_name(level: str) -> str:
    """``grid:1`` -> ``1 km squares``; ``raw`` -> exact locations; a hierarchy level in words."""
    parsed = SpatialLevel.parse(level)
    if parsed.kind == "raw":
        return "exact locations (no spatial generalization)"
    if parsed.kind == "grid":
        return f"{parsed.km:g} km squares"
    name = str(parsed.name)
    return _KNOWN_LEVELS.get(name.lower(), f"'{name}' units of the hierarchy file")


def temporal_name(width: str) -> str:
    """``6h`` -> ``6-hour bins``; ``all`` -> one bin for the whole period (time dropped)."""
    parsed = TemporalLevel.parse(width)
    if parsed.seconds is None:
        return "no time (one bin for the whole period)"
    label = parsed.label
    for suffix, word in _UNIT_WORDS:
        if label.endswith(suffix) and label[: -len(suffix)].isdigit():
            return f"{label[: -len(suffix)]}-{word} bins"
    return f"{parsed.seconds}-second bins"


def knowledge_name(model: str) -> str:
    """What the outsider is assumed to know under a knowledge model, in words."""
    return _KNOWLEDGE.get(model, f"points chosen by the '{model}' model")


def spatial_short(level: str) -> str:
    """A level as a plot's legend or axis shows it: ``grid:5`` -> ``5 km squares``, ``raw`` as ``raw`` (the
    word every table, command and report uses), a hierarchy level by its own name."""
    parsed = SpatialLevel.parse(level)
    if parsed.kind == "raw":
        return "raw"
    if parsed.kind == "grid":
        return f"{parsed.km:g} km squares"
    return str(parsed.name)


def temporal_short(width: str) -> str:
    """A time width as a plot shows it: ``all`` -> ``whole period``, others as written (``1h``, ``1w``)."""
    return "whole period" if TemporalLevel.parse(width).seconds is None else width


def profile_short(spatial: str, temporal: str) -> str:
    """``grid:5 × all`` as ``5 km squares × whole period``."""
    return f"{spatial_short(spatial)} × {temporal_short(temporal)}"


def profile_name(spatial: str, temporal: str) -> str:
    """``district × 1w`` in words: ``districts, 1-week bins``."""
    return f"{spatial_name(spatial)}, {temporal_name(temporal)}"
