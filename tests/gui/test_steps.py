"""The step bar: what each step says is missing, the Next button, the tree and View › 1–6 turn the steps."""

from __future__ import annotations

import pytest

from privacy_studio.gui.steps import IMPORT_FIRST, KEYS, RUN_FIRST, TICK_FIRST, Progress, missing

#: (has data, ticked cells, results) → what each step says is missing, in the order of KEYS.
CASES = {
    (False, 0, 0): (IMPORT_FIRST, IMPORT_FIRST, IMPORT_FIRST, RUN_FIRST, IMPORT_FIRST, RUN_FIRST),
    (True, 0, 0): ("", "", TICK_FIRST, RUN_FIRST, RUN_FIRST, RUN_FIRST),
    (True, 3, 0): ("", "", RUN_FIRST, RUN_FIRST, RUN_FIRST, RUN_FIRST),
    (True, 3, 3): ("", "", "", "", "", ""),
    # A project whose input files are missing still shows, weighs and reports its results.
    (False, 3, 3): ("", IMPORT_FIRST, "", "", IMPORT_FIRST, ""),
}


@pytest.mark.parametrize("state", sorted(CASES))
def test_each_step_says_what_is_missing(state):
    progress = Progress(*state)
    assert tuple(missing(key, progress) for key in KEYS) == CASES[state]


def test_the_bar_the_next_button_and_the_view_menu_turn_the_steps(window):
    bar = window.steps.bar
    assert window.steps.current == "data" and bar.isVisible()
    assert bar.next_label.text() == f"Before Grid: {IMPORT_FIRST}"
    bar.next_button.click()
    assert window.steps.current == "grid" and window.steps.pages["grid"].banner.text() == IMPORT_FIRST
    assert bar.buttons["grid"].isChecked() and not bar.buttons["data"].isChecked()
    bar.buttons["report"].click()
    assert window.steps.current == "report" and not bar.next_button.isVisible()
    views = {a.text(): a for a in window.menuBar().actions()[3].menu().actions() if a.text()}
    views["&3 Run"].trigger()
    assert window.steps.current == "run"
    assert window.steps.stack.currentWidget().content is window.run_split


def test_the_tree_opens_the_step_and_tab_of_an_entry(window):
    analyses = [window.tree.topLevelItem(i) for i in range(window.tree.topLevelItemCount())][-1]
    heat = next(
        analyses.child(i) for i in range(analyses.childCount()) if analyses.child(i).text(0) == "Heat-map"
    )
    window.tree.itemActivated.emit(heat, 0)
    assert window.steps.current == "run" and window.tabs.currentWidget() is window.heatmap
    grid = window.tree.topLevelItem(1)
    window.tree.itemActivated.emit(grid, 0)
    assert window.steps.current == "grid"
