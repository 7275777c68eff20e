"""Plain-language names for the grid's codes ("grid:1" is "1 km squares", "6h" is "6-hour bins"), shared by
the report and the window so both explain a profile the same way."""

from __future__ import annotations

from collections.abc import Callable

from privacy_studio.core.generalize import PriceLevel, SpatialLevel, TemporalLevel

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

#: The same levels in a word or two, for table columns, legends and axes.
_KNOWN_SHORT = {
    "antenna": "antennas",
    "cell": "antennas",
    "tower": "antennas",
    "zip": "postcode areas",
    "postcode": "postcode areas",
    "district": "districts",
    "city": "cities",
    "region": "regions",
    "country": "countries",
    "shop": "shops",
    "venue": "venues",
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
    """A level as a table, legend or axis shows it: ``grid:5`` -> ``5 km squares``, ``raw`` as ``raw`` (the
    word every command and table uses), ``district`` -> ``districts``, a user's own level by its name."""
    parsed = SpatialLevel.parse(level)
    if parsed.kind == "raw":
        return "raw"
    if parsed.kind == "grid":
        return f"{parsed.km:g} km squares"
    name = str(parsed.name)
    return _KNOWN_SHORT.get(name.lower(), name)


def temporal_short(width: str) -> str:
    """A time width in words: ``1h`` -> ``1 hour``, ``6h`` -> ``6 hours``, ``all`` -> ``whole period``."""
    parsed = TemporalLevel.parse(width)
    if parsed.seconds is None:
        return "whole period"
    label = parsed.label
    for suffix, word in _UNIT_WORDS:
        amount = label[: -len(suffix)]
        if label.endswith(suffix) and amount.isdigit():
            return f"{amount} {word}{'' if amount == '1' else 's'}"
    return f"{parsed.seconds:,} seconds"


def profile_short(spatial: str, temporal: str) -> str:
    """``grid:1 × 1h`` as ``1 km squares × 1 hour``: how every table, legend and axis names a profile."""
    return f"{spatial_short(spatial)} × {temporal_short(temporal)}"


def readable(name: Callable[[str], str], code: str) -> str:
    """A level in words by ``name`` (``spatial_short``, ``temporal_short`` …), or its code when the naming
    cannot read it (a project made with levels this version does not know)."""
    try:
        return name(code)
    except ValueError:
        return code


#: How a profile's key joins its levels (``district × 1w``), as results and projects store it.
LABEL_JOIN = " × "


def label_words(label: str) -> str:
    """A profile's key (``grid:1 × 1h``, ``shop × 1d × price/4``) in words (``1 km squares × 1 hour``,
    ``shops × 1 day × amount in 4 bins per tenfold``); unreadable levels leave the key as it is."""
    parts = label.split(LABEL_JOIN)
    if len(parts) not in (2, 3):
        return label
    try:
        words = [spatial_short(parts[0]), temporal_short(parts[1])]
    except ValueError:
        return label
    if len(parts) == 3:
        per_decade = parts[2].removeprefix("price/")
        if not per_decade.isdigit():
            return label
        words.append(f"amount in {per_decade} bin{'' if per_decade == '1' else 's'} per tenfold")
    return LABEL_JOIN.join(words)


def profile_name(spatial: str, temporal: str) -> str:
    """``district × 1w`` in words: ``districts, 1-week bins``."""
    return f"{spatial_name(spatial)}, {temporal_name(temporal)}"


def price_name(choice: str) -> str:
    """A price choice in words: ``none`` -> ``amount not released``; ``3`` -> ``amount in 3 bins per factor
    of ten`` (each bin spans a factor of about 2.15)."""
    level = PriceLevel.parse(choice)
    if level is None:
        return "amount not released"
    n = level.per_decade
    bins = "1 bin" if n == 1 else f"{n} bins"
    return f"amount in {bins} per factor of ten (each bin spans a factor of {10 ** (1 / n):.3g})"


def price_short(choice: str) -> str:
    """A price choice as a plot or a table column shows it: ``no amount``, ``amount 3/decade``."""
    level = PriceLevel.parse(choice)
    return "no amount" if level is None else f"amount {level.per_decade}/decade"


def priced_profile_name(spatial: str, temporal: str, price: str) -> str:
    """:func:`profile_name` with the amount's release when there is one: ``districts, 1-day bins, amount in
    3 bins per factor of ten (…)``."""
    base = profile_name(spatial, temporal)
    return base if PriceLevel.parse(price) is None else f"{base}, {price_name(price)}"
