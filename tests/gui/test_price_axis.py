"""The price axis in the window: a user ticks an amount choice under the grid, runs, and the heat-map shows
one small map per price choice with the core's numbers; the choice is saved with the project."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt

from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from privacy_studio.gui.panels.grid_panel import GridPanel
from privacy_studio.gui.panels.price_row import PriceRow

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def test_price_row_offers_choices_refuses_bad_ones_and_round_trips(qtbot):
    row = PriceRow()
    qtbot.addWidget(row)
    assert row.chosen() == ["none"] and list(row.boxes) == ["none", "1", "2", "3"]
    row.edit.setText("ten")
    row.add_button.click()
    assert "price level" in row.message and list(row.boxes) == ["none", "1", "2", "3"]
    row.edit.setText("5")
    row.add_button.click()
    assert list(row.boxes) == ["none", "1", "2", "3", "5"] and row.boxes["5"].toolTip().startswith(
        "amount in 5"
    )
    panel = GridPanel()
    qtbot.addWidget(panel)
    panel.apply_settings({"spatial": ["shop"], "temporal": ["1d"], "price": ["none", "7"]})
    assert panel.settings()["price"] == ["none", "7"] and panel.prices.boxes["7"].isChecked()


def test_a_user_runs_a_priced_grid_and_sees_one_heatmap_per_price_choice(window, qtbot, tmp_path):
    lines = (SAMPLE / "transactions.csv").read_text().splitlines()[:1501]
    cards = tmp_path / "cards.csv"
    cards.write_text("\n".join(lines) + "\n")
    dialog = window.show_import()
    dialog.set_source(str(cards), hierarchy=str(SAMPLE / "shop_hierarchy.csv"))
    dialog.tz.setText("Europe/Paris")
    with qtbot.waitSignal(dialog.imported, timeout=120_000):
        dialog.start_import()
    qtbot.waitUntil(lambda: not dialog.preview_running, timeout=30_000)
    grid = window.grid
    grid.set_levels(["shop", "district"], ["1d"])
    grid.set_all(True)
    grid.p_values.line.setText("1,2")
    grid.samples.setValue(150)
    grid.reference_p.setValue(2)
    box = grid.prices.boxes["3"]
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=box.rect().center())
    assert grid.settings()["price"] == ["none", "3"]
    grid.run_button.click()
    qtbot.waitUntil(lambda: window.run_worker is None, timeout=180_000)
    assert not [text for level, text in window.log_panel.lines if level == "error"]
    heat = window.heatmap
    heat.flush()  # a hidden tab draws when shown
    assert [panel.price for panel in heat.panels] == ["none", "3"]
    assert heat.panels[1].plot.titleLabel.text == "amount 3/decade"
    settings = RiskSettings.from_dict(grid.settings())
    core = {(r.spatial, r.price): r for r in run_grid(window.session.dataset, settings)}
    heat.p_box.setValue(2)
    heat.flush()
    for price in ("none", "3"):
        _, _, values = heat.matrix(price)
        want = [core[(s, price)].by_p[1].unicity for s in ("shop", "district")]
        np.testing.assert_allclose(values[:, 0], want)
    assert len(heat.texts) == 4 and all("%" in t.toPlainText() for t in heat.texts)
    assert window.session.project.settings["price"] == ["none", "3"]


def test_the_release_dialog_offers_each_priced_profile():
    from privacy_studio.core.project import Project
    from privacy_studio.core.release import parse_profile
    from privacy_studio.core.release.defaults import split_key
    from privacy_studio.core.release_advice import candidates

    project = Project(
        name="cards", settings={"spatial": ["shop"], "temporal": ["1d"], "price": ["none", "3"]}
    )
    offered = candidates(project)  # what the release dialog lists
    assert offered.profiles == ["shop:1d", "shop:1d:price/3"] and offered.recommended is None
    assert parse_profile(offered.profiles[1]).label == "shop × 1d × price/3"
    assert split_key("grid:5:1w:price/3") == ("grid:5", "1w", "3")
    assert split_key("grid:5:1w") == ("grid:5", "1w", "none")
