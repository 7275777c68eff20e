"""Card transactions end to end: ``risk --price``, ``project new --price`` and run, the release of the
amount as its bin's range, the report's 'What the amount adds' and the computed amount precision."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from privacy_studio.cli import main
from privacy_studio.core.generalize import PriceLevel, price_bins
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.project import Project
from privacy_studio.core.release import ReleaseError, ReleaseOptions, prepare_release, write_release
from privacy_studio.core.release.measure import MeasureSettings
from privacy_studio.core.report.build import build_report
from privacy_studio.core.tradeoff.amount import amount_effects
from privacy_studio.core.tradeoff.grid import grid_table
from privacy_studio.core.utility import amount_error

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
READER = ["--hierarchy", str(SAMPLE / "shop_hierarchy.csv"), "--tz", "Europe/Paris"]


@pytest.fixture(scope="module")
def cards(tmp_path_factory) -> Path:
    """The first 3,000 payments of the sample (a few hundred card holders), to keep runs short."""
    lines = (SAMPLE / "transactions.csv").read_text().splitlines()[:3001]
    path = tmp_path_factory.mktemp("cards") / "cards.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_risk_with_price_choices_prints_and_writes_each_profile(cards, tmp_path, capsys):
    out = tmp_path / "risk.json"
    code = main(
        [
            "risk", str(cards), *READER, "--spatial", "shop,district", "--temporal", "1d", "--price",
            "none,3,1", "--p", "1,4", "--samples", "300", "--measures", "unicity", "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "districts × 1 day × amount in 3 bins per tenfold" in printed
    assert "shops × 1 day × amount in 1 bin per tenfold" in printed
    doc = json.loads(out.read_text())
    assert [(p["label"], p["price"]) for p in doc["profiles"]] == [
        ("shop × 1d", "none"),
        ("district × 1d", "none"),
        ("shop × 1d × price/3", "3"),
        ("district × 1d × price/3", "3"),
        ("shop × 1d × price/1", "1"),
        ("district × 1d × price/1", "1"),
    ]
    assert doc["settings"]["price"] == ["none", "3", "1"]
    # the amount splits points: more distinct points per person, never fewer
    nnz = {p["label"]: p["nnz"] for p in doc["profiles"]}
    assert nnz["district × 1d"] <= nnz["district × 1d × price/1"] <= nnz["district × 1d × price/3"]


@pytest.mark.parametrize("bad", ["ten", "0.5", "200", ""])
def test_a_bad_price_choice_is_one_sentence_and_exit_2(cards, tmp_path, capsys, bad):
    out = tmp_path / "risk.json"
    argv = ["risk", str(cards), *READER, "--spatial", "shop", "--temporal", "1d", "--price", bad]
    assert main([*argv, "--json", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("price" in err[0]) and "Traceback" not in err[0]
    assert not out.exists()


def test_price_bins_on_events_without_amounts_are_refused(tmp_path, capsys):
    out = tmp_path / "risk.json"
    argv = [
        "risk",
        str(SAMPLE / "events.csv"),
        "--antennas",
        str(SAMPLE / "antennas.csv"),
        "--spatial",
        "raw",
    ]
    assert main([*argv, "--temporal", "1d", "--price", "3", "--engine", "numba", "--json", str(out)]) == 2
    assert "amount column" in capsys.readouterr().err


@pytest.fixture(scope="module")
def project(cards, tmp_path_factory) -> Project:
    out = tmp_path_factory.mktemp("project") / "cards.psproj"
    argv = [
        "project", "new", str(cards), *READER, "--spatial", "shop,district", "--temporal", "1d",
        "--price", "none,3", "--p", "1-4", "--name", "Card payments", "--out", str(out),
    ]  # fmt: skip
    assert main(argv) == 0
    assert Project.load(out).settings["price"] == ["none", "3"]
    assert main(["project", "run", str(out)]) == 0
    return Project.load(out)


def test_the_report_says_what_the_amount_adds_per_profile(project):
    grid = grid_table(project.results)
    effects = amount_effects(grid, "unicity", 4)
    assert [(e.spatial, e.price) for e in effects] == [("shop", "3"), ("district", "3")]
    for e in effects:
        row = {r.label: r for r in project.results}
        base = row[f"{e.spatial} × 1d"].value("unicity", 4)
        assert e.without == base and e.absolute == pytest.approx(e.with_amount - base)
    report = build_report(project)
    results = next(s for s in report.sections if s.title == "Results")
    section = next(s for s in results.subsections if s.title == "What the amount adds")
    table, text = section.blocks
    assert [r[:2] for r in table.rows] == [
        [
            "individual shops, 1-day bins",
            "amount in 3 bins per factor of ten (each bin spans a factor of 2.15)",
        ],
        ["districts, 1-day bins", "amount in 3 bins per factor of ten (each bin spans a factor of 2.15)"],
    ]
    district = effects[1]
    assert table.rows[1][4] == f"{100 * district.absolute:+.1f} points"
    assert table.rows[1][5] == f"{100 * district.relative:+.1f}%"
    assert "22%" in text.text and "de Montjoye" in text.text
    grid_section = next(s for s in results.subsections if s.title == "Risk across the grid")
    captions = [b.caption for b in grid_section.blocks if hasattr(b, "row_labels")]
    assert len(captions) == 2 and "amount not released" in captions[0] and "3 bins" in captions[1]


def test_computed_utility_scores_the_amount_precision(project, cards):
    scores = project.analyses["information_loss"]["scores"]
    assert scores["district × 1d"]["amount_kept"] == 0.0  # the amount is not released
    dataset = load_dataset(str(cards), ReaderOptions(hierarchy=str(SAMPLE / "shop_hierarchy.csv")))
    want = 10 * (1 - amount_error(dataset.events.amount, PriceLevel(3)))
    assert scores["district × 1d × price/3"]["amount_kept"] == pytest.approx(want)
    assert scores["district × 1d × price/3"]["points_kept"] == scores["district × 1d"]["points_kept"]


def test_amount_error_by_hand():
    """Bins of 1 per factor of ten: 5 is read as √10 ≈ 3.162, 50 as √1000 ≈ 31.62, -5 as -√10, 0 as 0."""
    amounts = np.asarray([5.0, 50.0, -5.0, 0.0])
    read = np.asarray([10**0.5, 10**1.5, -(10**0.5), 0.0])
    want = np.abs(amounts - read).sum() / (np.abs(amounts).sum() + np.abs(read).sum())
    assert amount_error(amounts, PriceLevel(1)) == pytest.approx(want)
    assert amount_error(amounts, None) == 1.0


def test_a_release_publishes_each_amount_as_its_bin_range(cards, tmp_path):
    dataset = load_dataset(
        str(cards), ReaderOptions(hierarchy=str(SAMPLE / "shop_hierarchy.csv"), tz="Europe/Paris")
    )
    options = ReleaseOptions("district", "1d", rows="events", price="3")
    prepared = prepare_release(dataset, options, MeasureSettings(p=2, samples=200, seed=1))
    # one row per payment keeps everyone unique: this checks the amount ranges, so the risk is accepted
    manifest = write_release(prepared, tmp_path / "cards_release.csv", accept_risk="checks the ranges only")
    assert manifest.profile_label == "district × 1d × price/3"
    with open(tmp_path / "cards_release.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["user", "time", "location", "amount"] and len(rows) == dataset.events.n_events
    priced = price_bins(dataset.events.amount, PriceLevel(3))
    published = sorted(r["amount"] for r in rows)
    assert published == sorted(priced.layout.bin_text(int(b)) for b in priced.bins)
    assert {"10–21.54", "21.54–46.42"} <= set(published)
    # the closed loop measured the amount range as part of every point, as the release was prepared
    assert manifest.measured_on_release == prepared.measured
    with pytest.raises(ReleaseError, match="range"):
        ReleaseOptions("district", "1d", rows="events", columns=["amount"], price="3").validate()
