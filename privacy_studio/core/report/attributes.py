"""The report's attribute-disclosure section: in plain words for the headline profile, then every profile's
figures per sensitive attribute (docs/measures.md "Attribute disclosure")."""

from __future__ import annotations

from privacy_studio.core.explanations import EXPLANATIONS
from privacy_studio.core.measures.attributes import TRACE, AttributeFigures
from privacy_studio.core.numbers import count, number, share
from privacy_studio.core.report.content import Paragraph, Section, Table, absent
from privacy_studio.core.report.inputs import ReportInputs
from privacy_studio.core.risk.results import ProfileResult

TITLE = "Attribute disclosure"


def _figures(result: ProfileResult) -> list[AttributeFigures]:
    return list(result.attributes or [])


def _who(figure: AttributeFigures) -> str:
    """The people a figure's classes hold, in words."""
    if figure.classes == TRACE:
        return "everyone who shares their whole trace"
    return f"everyone whose trace fits {figure.p} of their points known to an outsider"


def sentence(figure: AttributeFigures) -> str:
    """One figure in plain words ("For 31.0% of people, everyone who shares their whole trace has the same
    income band."), with whom it covers."""
    what = figure.attribute.replace("_", " ")
    covered = f"{count(figure.n_people)} people" + (" sampled" if figure.classes != TRACE else "")
    if figure.n_unknown:
        covered += f", {count(figure.n_unknown)} of them without a value, counted as unknown"
    if figure.n_left_out:
        covered += f"; {count(figure.n_left_out)} with fewer than {figure.p} points left out"
    return f"For {share(figure.homogeneous)} of people, {_who(figure)} has the same {what} ({covered})."


def attribute_section(inp: ReportInputs) -> Section:
    """Homogeneity in words for the recommended (else first) profile, and the table of every profile."""
    results = [r for r in inp.project.results if r.attributes]
    if not results:
        return absent(TITLE, "no sensitive attribute was chosen (--sensitive, or the Grid tab's attributes).")
    rec = inp.recommendation
    headline = next((r for r in results if rec is not None and r.label == rec.label), results[0])
    text = f"Profile {headline.label}: " + " ".join(map(sentence, _figures(headline)))
    alone = ((headline.kanon or {}).get("share_below") or {}).get("2")
    if alone is not None:
        text += f" Someone alone with their whole trace counts as homogeneous: {share(alone)} of people are."
    words = [Paragraph(text)]
    rows = []
    for result in results:
        for f in _figures(result):
            classes = "whole trace" if f.classes == TRACE else f"p = {f.p}"
            rows.append(
                [
                    result.label, f.attribute, classes + (" (ordered)" if f.ordered else ""),
                    count(f.n_people), share(f.homogeneous), share(f.below_distinct_l),
                    share(f.below_entropy_l), share(f.above_t), count(f.min_distinct_l),
                    number(f.min_entropy_l, 3), number(f.max_t, 3),
                ]
            )  # fmt: skip
    first = _figures(results[0])[0]
    table = Table(
        f"Table 7. Attribute disclosure: share of people whose class (same whole trace, or fitting p "
        f"known points) has one value, fewer than l = {first.l} values, entropy below l, or a mix of values "
        f"farther than t = {first.t:g} from the whole file's (earth mover's distance); the smallest l and "
        "largest t.",
        ["Profile", "Attribute", "Classes", "People", "One value", "< l values", "Entropy < l", "> t",
         "Min l", "Min entropy l", "Max t"],
        rows,
        "People without a value in the attributes file count as the value \"(unknown)\"; the p-point "
        "figures cover the sampled people with at least p points.",
    )  # fmt: skip
    return Section(TITLE, [*words, table, Paragraph(EXPLANATIONS["attribute_disclosure"].not_what, "note")])
