"""The scikit-mobility-style knowledge models against a slow reference, and on scikit-mobility's toy file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import Profile
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.knowledge import parse_knowledge
from privacy_studio.core.measures.knowledge_match import Matcher, UserPoints
from privacy_studio.core.runner import RiskSettings, run_grid
from tests.risk import matching_reference as ref

TOY = Path("/work/shared/real_data/skmob_privacy_toy/privacy_toy.csv")
MODELS = ["records", "sequence", "frequency:0", "frequency:0.5", "proportion:0.3", "proportion:1", "homework"]


def split(text: str) -> tuple[str, float]:
    name, _, tol = text.partition(":")
    return name, float(tol or 0)


@st.composite
def small_city(draw):
    """People with 1-6 events at 4 places over 3 hours (repeats and ties are common)."""
    n = draw(st.integers(1, 7))
    rows = []
    for u in range(n):
        for _ in range(draw(st.integers(1, 6))):
            rows.append((u, draw(st.integers(0, 3 * 3600)), draw(st.integers(0, 3))))
    return rows


def table(rows):
    users, times, places = zip(*rows, strict=True)
    return build_event_table(
        np.array([f"u{u}" for u in users]), np.array(times), np.array([f"L{x}" for x in places])
    )


def traces_by_code(events, width_s: int | None) -> list[list]:
    """Per user code its points (place, bin) in time order, as the reference sees them."""
    out = [[] for _ in range(events.n_users)]
    for u, t, x in zip(events.user.tolist(), events.time.tolist(), events.location.tolist(), strict=True):
        out[u].append((x, 0 if width_s is None else t // width_s))
    return out


@settings(max_examples=60, deadline=None)
@given(
    rows=small_city(),
    model=st.sampled_from(MODELS),
    temporal=st.sampled_from(["all", "1h"]),
    p=st.integers(1, 4),
    all_points=st.booleans(),
)
def test_worst_case_of_every_user_equals_the_reference(rows, model, temporal, p, all_points):
    events = table(rows)
    name, tol = split(model)
    risk = RiskSettings(
        ["raw"],
        [temporal],
        p_values=[p],
        reference_p=p,
        knowledge=model,
        measures=["unicity", "kdisc", "worst"],
        short_traces="all-points" if all_points else "exclude",
        seed=1,
    )
    (result,) = list(run_grid(events, risk))
    traces = traces_by_code(events, None if temporal == "all" else 3600)
    if name == "homework":
        traces = [[x for x, _ in t] for t in traces]
    code = {uid: i for i, uid in enumerate(events.user_ids.tolist())}
    expected = {uid: ref.worst(name, tol, p, code[uid], traces, all_points) for uid in code}
    got = dict(zip(result.per_user["user_ids"], result.per_user["worst"], strict=True))
    assert got == pytest.approx({u: w for u, w in expected.items() if w is not None})
    (row,) = result.by_p
    assert row.worst_exact
    assert row.n_sampled == events.n_users
    assert row.n_excluded == sum(w is None for w in expected.values())
    if name == "homework":
        assert row.p is None and row.unicity == pytest.approx(np.mean([w == 1 for w in expected.values()]))
    short = [t for t in traces if len(ref.items(name, t)) < p]
    assert row.n_short == (len(short) if all_points and name != "homework" else 0)


@settings(max_examples=60, deadline=None)
@given(rows=small_city(), model=st.sampled_from(MODELS[:-1]), data=st.data())
def test_every_drawn_instance_has_the_reference_anonymity_set(rows, model, data):
    events = table(rows)
    name, tol = split(model)
    matcher = Matcher(
        parse_knowledge(model), UserPoints.build(events, Profile.parse("raw", "1h"), None, False)
    )
    traces = traces_by_code(events, 3600)
    u = data.draw(st.integers(0, events.n_users - 1))
    stuff = ref.items(name, traces[u])
    chosen = data.draw(st.lists(st.integers(0, len(stuff) - 1), min_size=1, max_size=len(stuff), unique=True))
    known = [stuff[i] for i in sorted(chosen)]
    got = matcher.size(u, matcher.known(u, np.asarray(chosen)))
    assert got == ref.size(name, tol, known, traces[u], traces)


def test_unicity_and_k_disclosure_average_the_draws():
    """Every person of 3 draws 2 of their events; the summaries are the plain means of the draws' sizes."""
    rows = [(0, 0, 0), (0, 10, 0), (0, 20, 1), (1, 0, 0), (1, 10, 1), (2, 0, 0), (2, 10, 0), (2, 30, 0)]
    events = table(rows)
    risk = RiskSettings(["raw"], ["all"], p_values=[2], reference_p=2, knowledge="records", draws=5, seed=3)
    (result,) = list(run_grid(events, risk))
    (row,) = result.by_p
    # records(2) of u0: {L0,L0} -> u0,u2; {L0,L1} -> u0,u1. u1: {L0,L1} -> u0,u1. u2: {L0,L0} -> u0,u2.
    assert row.n_draws == 15 and row.unicity == 0.0 and row.k_disclosure == pytest.approx(0.5)
    assert row.worst_mean == pytest.approx(0.5) and row.worst_exact


# -- scikit-mobility's toy file ---------------------------------------------------------------------------

#: Published in scikit-mobility's docstrings (LocationAttack, LocationSequenceAttack) for uids 1..7.
PUBLISHED = {
    ("records", 2): [1 / 3, 1 / 2, 1 / 3, 1 / 3, 1 / 4, 1 / 4, 1 / 2],
    ("records", 3): [1 / 2, 1, 1 / 2, 1 / 3, 1 / 3, 1 / 4, 1],
    ("sequence", 2): [1 / 2, 1 / 2, 1, 1 / 2, 1, 1 / 3, 1 / 2],
    ("sequence", 3): [1, 1, 1, 1, 1, 1 / 3, 1],
}


def toy_worst(knowledge: str, p: int) -> list[float]:
    dataset = load_dataset(str(TOY), ReaderOptions(use_cache=False))
    risk = RiskSettings(
        ["raw"],
        ["all"],
        p_values=[p],
        reference_p=p,
        knowledge=knowledge,
        short_traces="all-points",
        measures=["unicity", "kdisc", "worst"],
    )
    (result,) = list(run_grid(dataset, risk))
    got = dict(zip(result.per_user["user_ids"], result.per_user["worst"], strict=True))
    return [got[str(u)] for u in range(1, 8)]


def toy_traces() -> list[list]:
    """The toy's people 1..7 as lists of (lat, lng) in time order."""
    lines = TOY.read_text().splitlines()[1:]
    rows = sorted((int(uid), when, (lat, lng)) for lat, lng, when, uid in (ln.split(",") for ln in lines))
    return [[x for uid, _, x in rows if uid == u] for u in range(1, 8)]


@pytest.mark.parametrize(("model", "p"), sorted(PUBLISHED))
def test_toy_file_gives_scikit_mobilitys_published_risks(model, p):
    assert toy_worst(model, p) == pytest.approx(PUBLISHED[(model, p)])
    attack = "location" if model == "records" else "sequence"
    traces = toy_traces()
    assert [ref.skmob_risk(attack, p, u, traces) for u in range(7)] == pytest.approx(PUBLISHED[(model, p)])


def test_records_with_day_bins_give_scikit_mobilitys_location_time_attack():
    """LocationTimeAttack(k=2) with its default precision, published as 1 for all but uid 6 (0.5): its
    'Hour' precision keys the time by year, month and day only, so it is records at raw x 1d."""
    dataset = load_dataset(str(TOY), ReaderOptions(use_cache=False))
    risk = RiskSettings(
        ["raw"], ["1d"], p_values=[2], reference_p=2, knowledge="records", short_traces="all-points"
    )
    (result,) = list(run_grid(dataset, risk))
    got = dict(zip(result.per_user["user_ids"], result.per_user["worst"], strict=True))
    assert [got[str(u)] for u in range(1, 8)] == [1, 1, 1, 1, 1, 0.5, 1]


@pytest.mark.parametrize("knowledge", ["frequency:0.5", "proportion:0.5", "homework"])
def test_toy_file_under_the_other_models_equals_the_reference(knowledge):
    name, tol = split(knowledge)
    traces = toy_traces()
    expected = [ref.worst(name, tol, 2, u, traces, True) for u in range(7)]
    assert toy_worst(knowledge, 2) == pytest.approx(expected)


def test_relational_engines_refuse_the_new_models_in_one_sentence():
    from privacy_studio.core.engines import open_engine

    events = table([(0, 0, 0), (1, 0, 1)])
    with open_engine("duckdb", threads=1) as engine, pytest.raises(ValueError, match="--engine numba"):
        next(engine.run_grid(events, RiskSettings(["raw"], ["all"], knowledge="sequence")))


@pytest.mark.parametrize(
    ("knowledge", "short", "message"),
    [
        ("frequency:2", "exclude", "from 0 to 1"),
        ("records:3", "exclude", "unknown knowledge"),
        ("explicit:known.csv", "all-points", "does not apply to explicit"),
        ("records", "some", "exclude or all-points"),
    ],
)
def test_bad_model_options_get_one_clear_message(knowledge, short, message):
    with pytest.raises(ValueError, match=message):
        RiskSettings(["raw"], ["all"], knowledge=knowledge, short_traces=short).validate()


@settings(max_examples=40, deadline=None)
@given(rows=small_city(), model=st.sampled_from(["uniform", "activity", "top"]), p=st.integers(2, 5))
def test_all_points_gives_short_traces_the_risk_of_their_whole_trace(rows, model, p):
    """Inclusion models: a person with fewer than p points is evaluated knowing all of them,
    E = everyone whose trace contains theirs; long traces keep their sampled figures."""
    events = table(rows)
    base = RiskSettings(["raw"], ["1h"], p_values=[p], reference_p=p, knowledge=model, seed=2)
    (excluded,) = list(run_grid(events, base))
    base.short_traces = "all-points"
    (filled,) = list(run_grid(events, base))
    traces = [set(t) for t in traces_by_code(events, 3600)]
    if model == "top":
        traces = [{x for x, _ in t} for t in traces]
    got = dict(zip(filled.per_user["user_ids"], filled.per_user["worst"], strict=True))
    kept = dict(zip(excluded.per_user["user_ids"], excluded.per_user["worst"], strict=True))
    short = 0
    for u, uid in enumerate(events.user_ids.tolist()):
        if len(traces[u]) < p:
            short += 1
            assert got[uid] == pytest.approx(1 / sum(traces[u] <= t for t in traces))
        else:
            assert got[uid] == kept[uid]
    (row,) = filled.by_p
    assert row.n_short == short and row.n_excluded == 0
    assert excluded.by_p[0].n_excluded == short


def test_duckdb_fills_short_traces_like_numba():
    from privacy_studio.core.engines import open_engine
    from tests.engines.helpers import DatasetOf, comparable

    rng = np.random.default_rng(4)
    rows = [
        (int(u), int(t), int(x)) for u, t, x in zip(*rng.integers(0, [30, 7200, 5], (60, 3)).T, strict=True)
    ]
    events = table(rows)
    risk = RiskSettings(["raw"], ["1h"], p_values=[1, 2, 3, 4], reference_p=3, short_traces="all-points")
    expected = [comparable(r) for r in run_grid(events, risk)]
    assert any(r["n_short"] for r in expected[0]["by_p"])
    with open_engine("duckdb", threads=1) as engine:
        assert [comparable(r) for r in engine.run_grid(DatasetOf(events, None), risk)] == expected
