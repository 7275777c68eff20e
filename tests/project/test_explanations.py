"""Every measure the studio reports has a complete plain-language explanation."""

from __future__ import annotations

import pytest

from privacy_studio.core.explanations import EXPLANATIONS, explain

REQUIRED = [
    "unicity", "k-disclosure", "worst-case risk", "full-fingerprint k-anonymity", "EM-disclosure",
    "KL-disclosure", "sparsity theory", "anonymizability", "Gini", "tail weight", "matching attack",
    "profiling attack", "record linkage", "transparency attack", "information loss", "Pareto front",
    "ordinal equivalence", "power law", "population extrapolation",
]  # fmt: skip


@pytest.mark.parametrize("name", REQUIRED)
def test_every_measure_is_explained(name: str) -> None:
    e = explain(name)
    for part in (e.title, e.what, e.not_what, e.formula):
        assert len(part.strip()) > 10 or part is e.title
    assert e.what in e.text() and e.not_what in e.text()


def test_unicity_says_it_is_relative_to_the_file() -> None:
    assert "people in this file" in explain("unicity").not_what


def test_aliases_and_titles_find_the_same_entry() -> None:
    assert explain("EM") is EXPLANATIONS["em_disclosure"]
    assert explain("Worst-case risk") is explain("worst_case")
    with pytest.raises(KeyError, match="no explanation for 'colour'"):
        explain("colour")
