"""The research the studio's default reasons come from, cited as a reader can look it up: author, title and
year (the seed files' numbers mean nothing outside this project; docs/tradeoff.md lists them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """One cited work: who wrote it, its title (empty when the copy the studio was built from lacks its title
    page: it is then described by ``kind``), its year (None when the work gives none) and what it is."""

    author: str
    title: str
    year: int | None
    kind: str

    def cite(self) -> str:
        """``M. Gramaglia and M. Fiore, “On the anonymizability …” (article, 2015)``."""
        if not self.title:
            return f"{self.author}, {self.kind} ({self.year or 'undated'})"
        return f"{self.author}, “{self.title}” ({self.kind}, {self.year or 'undated'})"


THESIS = Source(
    "A. Noriega-Campero",
    "",
    2015,
    "master's thesis on disclosure analysis of pseudonymized high-dimensional data, Massachusetts Institute "
    "of Technology",
)
ANONYMIZABILITY = Source(
    "M. Gramaglia and M. Fiore", "On the anonymizability of mobile traffic datasets", 2015, "article"
)
COURSE = Source(
    "Computational Privacy Group, Imperial College London",
    "Privacy Engineering, week 2: Big Data anonymization",
    None,
    "course slides",
)
