"""The linkage-attacks part of the report: each attack stored in the project (``analyses["attacks"]``, as the
studio's Attacks page and ``privacy-studio attack`` produce them) in one sentence, its key numbers and what it
means."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from privacy_studio.core.analyses import AttackResults, read_analysis
from privacy_studio.core.explanations import EXPLANATIONS
from privacy_studio.core.measures.attacks.requests import ATTACKS, describe
from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.report.content import Paragraph, Section, Table, absent

TITLE = "Linkage attacks"
#: The explanation of each attack kind in ``core/explanations.py``.
EXPLANATION = {
    "matching": "matching_attack",
    "profiling": "profiling_attack",
    "linkage": "record_linkage",
    "transparency": "transparency_attack",
}


def attacks_section(analyses: dict[str, Any]) -> Section:
    """One subsection per stored attack, in the order matching, profiling, record linkage, transparency."""
    saved = read_analysis(analyses, AttackResults)
    stored = saved.content if saved is not None else {}
    if not stored:
        return absent(
            TITLE,
            "no linkage attack was run for this project (privacy-studio attack …, or the studio's Attacks "
            "page).",
        )
    section = Section(
        TITLE,
        [
            Paragraph(
                "The worst case beyond a few known points: an attacker who holds a whole second dataset "
                "about the same people (or the original values of a masked table) and links it to the "
                "released one."
            )
        ],
    )
    unknown = [kind for kind in stored if kind not in ATTACKS]
    if unknown:
        section.add(
            Paragraph(f"Stored results of unknown attacks left out: {', '.join(unknown)}.", "warning")
        )
    section.subsections = [_attack(kind, stored[kind]) for kind in ATTACKS if kind in stored]
    return section


def _attack(kind: str, result: dict[str, Any]) -> Section:
    explanation = EXPLANATIONS[EXPLANATION[kind]]
    try:
        blocks = [Paragraph(describe(kind, result)), TABLES[kind](result)]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        blocks = [
            Paragraph(f"The stored {kind} result could not be read ({exc!r}): run it again.", "warning")
        ]
    blocks.append(Paragraph(f"{explanation.what} What it does not mean: {explanation.not_what}", "note"))
    return Section(explanation.title, blocks)


def _matching(r: dict[str, Any]) -> Table:
    rows = [
        [number(e["epsilon"], 3), count(e["matched"]), count(e["correct"]), share(e["precision"]),
         share(e["recall"])]
        for e in r["curve"]
    ]  # fmt: skip
    return Table(
        f"Matching attack ({r['profile']}, c = {number(r['c'], 3)}): pairs kept when their eccentricity "
        "exceeds ε, and how many of them are right.",
        ["ε", "Pairs kept", "Right", "Precision", "Recall"],
        rows,
        f"{count(r['n_identified'])} identified and {count(r['n_anonymous'])} anonymous people, "
        f"{count(r['n_true_pairs'])} true pairs; precision is a dash when no pair is kept.",
    )


def _profiling(r: dict[str, Any]) -> Table:
    tops = sorted({k for e in r["curve"] for k in e if k.startswith("top_")}, key=lambda k: int(k[4:]))
    rows = [
        [count(e["population"]), share(e["accuracy"]), *(share(e.get(k)) for k in tops)] for e in r["curve"]
    ]
    return Table(
        f"Profiling attack ({r['distance']} distance on {r['spatial']}"
        f"{' x hour of week' if r['hour_of_week'] else ''}): share of people recognised among random "
        "populations of growing size (the last row is everyone).",
        ["People", "Accuracy", *(f"Top-{k[4:]}" for k in tops)],
        rows,
        f"{count(r['n_identified'])} people in the first period, {count(r['n_anonymous'])} in the second, "
        f"{count(r['n_true_pairs'])} true pairs.",
    )


def _linkage(r: dict[str, Any]) -> Table:
    rows = [
        [name, share(v["percent_correct"] / 100.0), number(v["correct"], 4)]
        for name, v in r["distances"].items()
    ]
    loss = r.get("information_loss") or {}
    parts = ", ".join(f"{k} {number(v, 3)}" for k, v in loss.items() if k != "score")
    return Table(
        f"Record linkage on {count(r['n_records'])} records x {r['n_attributes']} attributes: share of "
        "masked records linked back to their own original.",
        ["Distance", "Re-identified", "Records"],
        rows,
        f"Information loss of the masking: score {number(loss.get('score'), 3)} ({parts})." if loss else "",
    )


def _transparency(r: dict[str, Any]) -> Table:
    rows = [
        ["Published window (ranks)", count(r["window_ranks"])],
        ["Records", count(r["n_records"])],
        ["Pinned to a single masked record", share(r["pinned_share"])],
        ["Candidates per record (mean)", number(r["mean_candidates"], 3)],
        ["Records without candidates", share(r["empty_share"])],
        ["True record among the candidates", share(r["true_in_candidates_share"])],
        ["Re-identified by linkage inside the candidates", share(r["linkage_percent_correct"] / 100.0)],
    ]
    return Table("Transparency attack on rank swapping with a published window.", ["Quantity", "Value"], rows)


TABLES: dict[str, Callable[[dict[str, Any]], Table]] = {
    "matching": _matching,
    "profiling": _profiling,
    "linkage": _linkage,
    "transparency": _transparency,
}
