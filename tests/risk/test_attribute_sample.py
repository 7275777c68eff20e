"""The sample city at district × 1w: the income-band figures of the studio against the slow reference
(run ``python -m tests.risk.test_attribute_sample`` to print both)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.index import build_index
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.knowledge import UNIFORM
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid, sample_users
from tests.risk import attribute_reference as ref
from tests.risk.helpers import knowledge_orders

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
BANDS = ["low", "middle", "high"]  # income bands, in order
P, SEED = 4, 0


def studio_and_reference() -> tuple[list, list[dict]]:
    """The studio's (whole trace, anonymity set at p = 4) figures and the reference's, for income band."""
    options = ReaderOptions(
        antennas=str(SAMPLE / "antennas.csv"), hierarchy=str(SAMPLE / "hierarchy.csv"), tz="Europe/Paris"
    )
    dataset = load_dataset(str(SAMPLE / "events.csv"), options)
    settings = RiskSettings(
        ["district"], ["1w"], p_values=[P], reference_p=P, seed=SEED, measures=["attribute_disclosure"],
        sensitive=["income_band"], attributes=str(SAMPLE / "attributes.csv"),
    )  # fmt: skip
    studio = next(run_grid(dataset, settings)).attributes

    with (SAMPLE / "attributes.csv").open(encoding="utf-8") as f:
        given = {row["user_id"]: row["income_band"] or None for row in csv.DictReader(f)}
    values = [given.get(str(u)) for u in dataset.events.user_ids]
    traces = generalize(dataset.events, Profile.parse("district", "1w"), dataset.hierarchy)
    sets = [
        set(traces.points[traces.indptr[u] : traces.indptr[u + 1]].tolist()) for u in range(traces.n_users)
    ]
    named = ref.value_list(BANDS, values)
    file = ref.file_distribution(values, named)
    whole = ref.figures_of_classes(ref.trace_class_values(sets, values), named, file, True, 3, 0.2)

    index = build_index(traces)
    users = sample_users(traces.n_users, settings.samples, SEED)
    orders, m = knowledge_orders(
        UNIFORM, index.trace_ptr, index.trace_pts, index.trace_cnt, index.list_len, SEED, 1, P
    )
    compact = [
        set(index.trace_pts[index.trace_ptr[u] : index.trace_ptr[u + 1]].tolist())
        for u in range(traces.n_users)
    ]
    included = [u for u in users if m[u] == P]
    classes = [[ref.set_values(compact, values, set(orders[u, 0, :P].tolist()))] for u in included]
    at_p = ref.figures_of_classes(classes, named, file, True, 3, 0.2)
    return studio, [whole, at_p]


@pytest.mark.skipif(not (SAMPLE / "events.csv").exists(), reason="sample_data/events.csv is missing")
def test_sample_income_band_figures_match_the_reference():
    studio, reference = studio_and_reference()
    for figure, expected in zip(studio, reference, strict=True):
        assert figure.n_people == expected["n_people"]
        for name in ("homogeneous", "below_distinct_l", "below_entropy_l", "above_t", "max_t"):
            assert getattr(figure, name) == pytest.approx(expected[name], abs=1e-9), name


if __name__ == "__main__":
    for figure, expected in zip(*studio_and_reference(), strict=True):
        print(
            f"{figure.classes:>5} (p = {figure.p}): studio homogeneous {figure.homogeneous:.6f} of "
            f"{figure.n_people} people; reference {expected['homogeneous']:.6f} of {expected['n_people']}"
        )
