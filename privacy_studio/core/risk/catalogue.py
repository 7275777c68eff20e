"""The measure catalogue: every risk measure the studio computes, described once for the whole program.

The runner and both relational engines summarize through it, the command line parses ``--measures`` and
prints its table from it, the window builds its measure boxes, results columns and tooltips from it, and
the trade-off and the report take their risk fields from it. A measure derived from anonymity-set sizes
costs one entry here, its maths module, its docs and a reference test (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from privacy_studio.core.measures.individual import highest_risk, records_at_highest_risk, records_at_risk
from privacy_studio.core.measures.setsizes import (
    SetsAtP,
    disclosure_summary,
    k_disclosure,
    unicity,
    worst_case_summary,
)
from privacy_studio.core.numbers import count, number, share

#: Units of a measure's values.
SHARE, NATS, COUNT = "share", "nats", "count"
#: Kernel outputs a measure may need: anonymity-set sizes of the knowledge draws, sizes along the rarest
#: points first (worst case), EM/KL sums of the sets, whole traces (full-fingerprint classes), and the
#: sensitive values in whole-trace classes and anonymity sets (attribute disclosure).
SIZES, RAREST_FIRST, EM_KL, TRACES, ATTRIBUTES = "sizes", "rarest_first", "em_kl", "traces", "attributes"


@dataclass(frozen=True)
class Field:
    """One number of a ``by_p`` result entry (the JSON key scripts read) and how to show it."""

    name: str
    label: str
    short: str  # column header in tables
    unit: str
    proportion: bool  # a share of people or draws, written as a percentage
    interval: str | None = None  # key of its 95 % interval, if it has one


@dataclass(frozen=True)
class Measure:
    """A risk measure: its one name (setting, ``--measures``, explanation key), what it yields and needs."""

    name: str
    label: str
    unit: str
    proportion: bool
    default: bool  # ticked by default in the window (the command line computes every measure by default)
    needs: frozenset[str]
    fields: tuple[Field, ...]  # its numbers in each ``by_p`` entry (empty: a per-profile summary)
    summarize: Callable[[SetsAtP], dict[str, object]] | None  # sets at one p -> its fields' values
    aliases: tuple[str, ...] = ()  # names older project files and scripts used
    profile_fields: tuple[str, ...] = ()  # its keys in a profile's result, for per-profile summaries

    def result_fields(self) -> list[str]:
        """Every JSON key its numbers appear under: ``by_p`` fields, then per-profile ones."""
        return [f.name for f in self.fields] + list(self.profile_fields)

    @property
    def explanation(self) -> str:
        """Key of its plain-language explanation in ``core.explanations``."""
        return self.name


def _share(name: str, label: str, short: str, interval: str | None = None) -> Field:
    return Field(name, label, short, SHARE, True, interval)


#: The headline measure's name, which is also its field's: every other module spells it through this.
UNICITY = "unicity"


def _unicity_summary(sets: SetsAtP) -> dict[str, object]:
    """Unicity and its 95 % interval under the keys of its field."""
    value, interval = unicity(sets)
    return {UNICITY: value, f"{UNICITY}_ci": interval}


CATALOGUE: tuple[Measure, ...] = (
    Measure(
        UNICITY,
        "Unicity ε_p",
        SHARE,
        True,
        True,
        frozenset({SIZES}),
        (_share(UNICITY, "unicity", "unicity", f"{UNICITY}_ci"),),
        _unicity_summary,
    ),
    Measure(
        "k_disclosure",
        "k-disclosure",
        SHARE,
        True,
        True,
        frozenset({SIZES}),
        (_share("k_disclosure", "k-disclosure", "k-disclosure"),),
        k_disclosure,
        aliases=("kdisc",),
    ),
    Measure(
        "records_at_risk",
        "Records at risk",
        SHARE,
        True,
        True,
        frozenset({SIZES}),
        (_share("records_at_risk", "records at risk", "records at risk"),),
        records_at_risk,
    ),
    Measure(
        "highest_risk",
        "Highest individual risk",
        SHARE,
        True,
        True,
        frozenset({SIZES}),
        (_share("highest_risk", "highest individual risk", "highest risk"),),
        highest_risk,
    ),
    Measure(
        "records_at_highest_risk",
        "Records at the highest risk",
        SHARE,
        True,
        False,
        frozenset({SIZES}),
        (_share("records_at_highest_risk", "records at the highest risk", "at highest risk"),),
        records_at_highest_risk,
    ),
    Measure(
        "k_anonymity",
        "k-anonymity (full traces)",
        COUNT,
        False,
        True,
        frozenset({TRACES}),
        (),
        None,
        aliases=("kanon",),
        profile_fields=("kanon",),
    ),
    Measure(
        "em_disclosure",
        "EM-disclosure",
        SHARE,
        False,
        True,
        frozenset({EM_KL}),
        (Field("em", "EM-disclosure", "EM", SHARE, False),),
        lambda sets: disclosure_summary(sets, "em"),
        aliases=("em",),
    ),
    Measure(
        "kl_disclosure",
        "KL-disclosure",
        NATS,
        False,
        True,
        frozenset({EM_KL}),
        (Field("kl", "KL-disclosure", "KL", NATS, False),),
        lambda sets: disclosure_summary(sets, "kl"),
        aliases=("kl",),
    ),
    Measure(
        "worst_case",
        "Worst-case risk",
        SHARE,
        True,
        True,  # a default release criterion (issue #25): ticked like the others
        frozenset({SIZES, RAREST_FIRST}),
        (
            _share("worst_mean", "mean worst-case risk", "worst-case mean"),
            _share("worst_share_at_1", "share at worst-case risk 1", "share at risk 1"),
        ),
        worst_case_summary,
        aliases=("worst",),
    ),
    Measure(
        "attribute_disclosure",
        "Attribute disclosure (homogeneity, l-diversity, t-closeness)",
        SHARE,
        True,
        True,
        frozenset({ATTRIBUTES}),
        (),
        None,
        profile_fields=("attributes",),
    ),
)

BY_NAME: dict[str, Measure] = {m.name: m for m in CATALOGUE}
#: Every word for a measure -> its name: fields, aliases (older project files and scripts), names.
_WORDS: dict[str, str] = {
    **{f.name: m.name for m in CATALOGUE for f in m.fields},
    **{alias: m.name for m in CATALOGUE for alias in m.aliases},
    **{m.name: m.name for m in CATALOGUE},
}
#: Every measure's name, in catalogue order.
MEASURE_NAMES: tuple[str, ...] = tuple(BY_NAME)
#: The measures computed when none are chosen.
DEFAULT_MEASURES: tuple[str, ...] = tuple(m.name for m in CATALOGUE if m.default)
#: Every per-p risk field, in catalogue order (the trade-off's and the report's risk measures).
RISK_FIELDS: dict[str, Field] = {f.name: f for m in CATALOGUE for f in m.fields}
#: The risk field a decision ranks profiles by unless the project chooses another (the catalogue's first).
DEFAULT_RISK: str = CATALOGUE[0].fields[0].name
#: The measure each risk field belongs to.
FIELD_MEASURE: dict[str, Measure] = {f.name: m for m in CATALOGUE for f in m.fields}
#: The worst-case fields: lower bounds unless every choice of p points was tried (``worst_exact``).
WORST_FIELDS: frozenset[str] = frozenset(f.name for f in BY_NAME["worst_case"].fields)


def limited_search(n_cut: int, n_sampled: int) -> str:
    """How every command, report and table says a worst case comes from searches cut short by their work
    budget (``worst_search_cut`` of a ``by_p`` entry): a lower bound from a limited search, for how many."""
    return (
        f"a lower bound from a limited search: its work budget cut short the search of {count(n_cut)} of "
        f"the {count(n_sampled)} sampled people"
    )


def format_value(name: str, value: float | None) -> str:
    """A risk field's value as every table and sentence writes it: shares as percentages, EM and KL (and
    unknown fields) in plain decimals."""
    field = RISK_FIELDS.get(name)
    return share(value) if field is not None and field.proportion else number(value)


def canonical(name: str) -> str:
    """The catalogue name of a measure given by its name, an alias (``kdisc``, ``em``) or one of its fields
    (``worst_mean``): the one vocabulary of every command, project file and the window; unknown names
    unchanged (the caller refuses them with the list)."""
    return _WORDS.get(name, name)


def risk_field(name: str) -> str:
    """The per-p risk field that ``name`` stands for: a field itself (``em``), or a measure's name or alias
    (``em_disclosure``, ``em``, ``worst``), read as its first field, so every command takes the same words
    as ``risk --measures``; unknown names unchanged (the caller refuses them with the list)."""
    if name in RISK_FIELDS:
        return name
    measure = BY_NAME.get(canonical(name))
    return measure.fields[0].name if measure is not None and measure.fields else name


def interval_of(name: str) -> str | None:
    """The key of a risk field's 95 % interval in a ``by_p`` entry, or None when it has none."""
    field = RISK_FIELDS.get(name)
    return None if field is None else field.interval


def needs(measures: set[str] | list[str], output: str) -> bool:
    """Whether any of ``measures`` needs the kernel output ``output``."""
    return any(output in BY_NAME[m].needs for m in measures if m in BY_NAME)


def summarize(sets: SetsAtP, measures: set[str] | list[str]) -> dict[str, object]:
    """The per-p fields of every measure in ``measures`` from the anonymity sets at one p."""
    out: dict[str, object] = {}
    for measure in CATALOGUE:
        if measure.name in measures and measure.summarize is not None:
            out.update(measure.summarize(sets))
    return out
