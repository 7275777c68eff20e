"""The window's results table writes numbers as the report does: sampled worst cases as bounds, tiny EM values
and fill rates without e-notation, nothing above 100%."""

from __future__ import annotations

import re


def test_results_table_writes_bounds_and_tiny_values_plainly(qtbot):
    from privacy_studio.gui.panels.results_table import COLUMNS, ResultsTable

    entry = {"p": 4, "unicity": 0.0241, "unicity_ci": [0.016, 0.03621], "em": 2.456e-06, "kl": 9.56e-07}
    entry |= {"worst_mean": 0.9996, "worst_share_at_1": 0.036, "worst_exact": False}
    rec = {"spatial": "grid:20", "temporal": "1w", "n_users": 7115, "d": 144452, "fill_rate": 6.87e-08}
    rec["by_p"] = [entry]
    table = ResultsTable()
    qtbot.addWidget(table)
    table.set_records([rec])
    assert table.cell_value(0, "share at risk 1") == "≥ 3.6%"
    assert table.cell_value(0, "worst-case mean") == "≥ 99.9%"  # a bound under 100% never reads "≥ 100.0%"
    assert table.cell_value(0, "EM") == "0.00000246" and table.cell_value(0, "KL") == "0.000000956"
    assert table.cell_value(0, "fill rate") == "1 in 14,600,000"
    cells = [table.cell_value(0, c[0]) for c in COLUMNS]
    assert not [c for c in cells if re.search(r"\d[eE][-+]\d", c)]


def test_a_worst_case_cut_by_the_search_budget_says_so(qtbot):
    """A worst case whose targeted search its work budget cut short is a weaker lower bound: the cell says
    "limited" and its tooltip for how many of the sampled people."""
    from privacy_studio.gui.panels.results_table import ResultsTable

    entry = {"p": 4, "worst_share_at_1": 0.839, "worst_mean": 0.9, "worst_exact": False}
    entry |= {"worst_search_cut": 620, "n_sampled": 1000}
    rec = {"spatial": "district", "temporal": "12h", "n_users": 300000, "by_p": [entry]}
    table = ResultsTable()
    qtbot.addWidget(table)
    table.set_records([rec, {**rec, "temporal": "1w", "by_p": [{**entry, "worst_search_cut": 0}]}])
    cells = sorted(table.cell_value(r, "share at risk 1") for r in range(2))
    assert cells == ["≥ 83.9%", "≥ 83.9% (limited)"]
    row = next(r for r in range(2) if table.cell_value(r, "share at risk 1").endswith("(limited)"))
    tip = table.cell(row, "share at risk 1").tip
    assert "limited search" in tip and "620 of the 1,000 sampled people" in tip


def test_a_sorted_table_keeps_its_rows_whole_and_its_order_when_results_arrive(qtbot):
    """Sorting moves whole rows (a value never parts from its profile), numbers by value, and a table the
    user sorted stays sorted as new profiles come in during a run."""
    from PySide6.QtCore import Qt

    from privacy_studio.gui.panels.results_table import COLUMNS, ResultsTable

    def record(temporal: str, unicity: float | None) -> dict:
        return {"spatial": "zip", "temporal": temporal, "n_users": 10, "by_p": [{"p": 2, "unicity": unicity}]}

    table = ResultsTable()
    qtbot.addWidget(table)
    records = [record("1h", 0.125), record("1w", 0.06), record("6h", 0.9)]
    table.set_records(records)
    table.sortByColumn([c[0] for c in COLUMNS].index("unicity"), Qt.SortOrder.DescendingOrder)
    rows = [(table.cell_value(r, "temporal"), table.cell_value(r, "unicity")) for r in range(3)]
    assert rows == [("6h", "90.0%"), ("1h", "12.5%"), ("1w", "6.0%")]
    table.set_records([*records, record("12h", 0.5), record("1d", None)])
    rows = [(table.cell_value(r, "temporal"), table.cell_value(r, "unicity")) for r in range(5)]
    assert rows[:4] == [("6h", "90.0%"), ("12h", "50.0%"), ("1h", "12.5%"), ("1w", "6.0%")]
    assert rows[4] == ("1d", "—")  # not computed: apart from the numbers


def test_a_narrowed_cell_reads_whole_on_hover(qtbot):
    """Columns are narrowed to the table's width and their cells end in "…": every cell's tooltip gives its
    whole text (a cell with its own explanation keeps it)."""
    from privacy_studio.gui.panels.results_table import COLUMNS, TOOLTIP, ResultsTable

    entry = {"p": 2, "unicity": 0.5, "em": 5.27e-05}
    table = ResultsTable()
    qtbot.addWidget(table)
    table.set_records([{"spatial": "grid:1", "temporal": "1d", "n_users": 7115, "by_p": [entry]}])
    headers = [c[0] for c in COLUMNS]
    model = table.model()
    em = model.data(model.index(0, headers.index("EM")), TOOLTIP)
    assert em == table.cell_value(0, "EM") == "0.0000527"
    assert model.data(model.index(0, headers.index("spatial")), TOOLTIP) == "1 km squares"
