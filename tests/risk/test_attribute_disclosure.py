"""Attribute disclosure (homogeneity, distinct and entropy l-diversity, t-closeness) against the slow
references of ``attribute_reference``, over whole-trace classes and anonymity sets, and by hand."""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.index import build_index
from privacy_studio.core.knowledge import ACTIVITY, TOP, UNIFORM
from privacy_studio.core.measures.attribute_sets import SetDraws, attribute_disclosure, set_class_counts
from privacy_studio.core.measures.attributes import (
    SET,
    TRACE,
    Sensitive,
    band_order,
    class_stats,
    read_attributes,
    sensitive_attributes,
)
from privacy_studio.core.measures.unicity import sample_sizes
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid
from tests.risk import attribute_reference as ref
from tests.risk.helpers import knowledge_orders, table_from_sets, traces_from_sets

INCOME = ("low", "middle", "high")
FIGURES = ("homogeneous", "below_distinct_l", "below_entropy_l", "above_t")


def sensitive_of(values: list[str | None], ordered: bool) -> Sensitive:
    named = ref.value_list(list(INCOME), values)
    codes = np.asarray([len(named) - 1 if v is None else INCOME.index(v) for v in values], dtype=np.int64)
    return Sensitive("income", codes, tuple(named), ordered, None in values)


def write_attributes(path, names: list[str], values: list[str | None]) -> str:
    rows = [f"{n},{'' if v is None else v}" for n, v in zip(names, values, strict=True)]
    path.write_text("user_id,income\n" + "\n".join(rows) + "\n")
    return str(path)


# -- by hand ------------------------------------------------------------------------------------------------

HAND_SETS = [{0, 1}, {0, 1}, {0, 2}, {0, 2}, {1}]
HAND_VALUES = ["low", "low", "high", "middle", "middle"]


def test_worked_example_by_hand(tmp_path):
    """Five people: u0 = u1 = {0, 1} (low, low), u2 = u3 = {0, 2} (high, middle), u4 = {1} (middle).

    The file: low 2/5, middle 2/5, high 1/5. Whole-trace classes {u0, u1}, {u2, u3}, {u4}: the first and
    last are homogeneous, so 3 of 5 people (60 %). Distinct l: 1, 1, 2, 2, 1, so all five are below l = 3
    and three below l = 2. Entropy l of {high, middle} is e^(ln 2) = 2, of the others 1.
    t, ordered low < middle < high (one step = 1/2): {low, low} = (1, 0, 0) against (.4, .4, .2) has
    running differences .6, .2 -> (.6 + .2) / 2 = 0.4; {middle, high} = (0, .5, .5): -.4, -.3 -> 0.35;
    {middle} = (0, 1, 0): -.4, .2 -> 0.3. Above t = 0.36: only u0 and u1, 40 %. Unordered, {low, low} is
    half of .6 + .4 + .2 = 0.6 from the file.
    Anonymity sets at p = 2: u0 and u1 know {0, 1} -> {u0, u1}; u2 and u3 know {0, 2} -> {u2, u3}; u4 has
    one point and is left out: 2 of 4 people homogeneous.
    """
    names = [f"u{i:03d}" for i in range(5)]
    run = RiskSettings(
        ["raw"], ["all"], p_values=[2], reference_p=2, samples=100, measures=["attribute_disclosure"],
        sensitive=["income"], attributes=write_attributes(tmp_path / "a.csv", names, HAND_VALUES),
        l_diversity=2, t_closeness=0.36,
    )  # fmt: skip
    result = next(run_grid(table_from_sets(HAND_SETS, 3), run))
    trace, sets = result.attributes
    assert (trace.classes, sets.classes, trace.ordered) == (TRACE, SET, True)
    assert (trace.n_people, trace.n_left_out) == (5, 0)
    assert trace.homogeneous == pytest.approx(0.6)
    assert trace.below_distinct_l == pytest.approx(0.6)
    assert trace.below_entropy_l == pytest.approx(0.6)
    assert trace.above_t == pytest.approx(0.4)
    assert (trace.min_distinct_l, trace.min_entropy_l) == (1, pytest.approx(1.0))
    assert trace.max_t == pytest.approx(0.4)
    assert (sets.n_people, sets.n_left_out, sets.p) == (4, 1, 2)
    assert sets.homogeneous == pytest.approx(0.5)
    unordered = class_stats(np.asarray([[2, 0, 0], [0, 1, 1]]), np.asarray([0.4, 0.4, 0.2]), ordered=False)
    assert unordered.t == pytest.approx([0.6, 0.4])
    assert unordered.entropy_l == pytest.approx([1.0, 2.0])


def test_json_round_trip_keeps_the_figures(tmp_path):
    names = [f"u{i:03d}" for i in range(5)]
    run = RiskSettings(
        ["raw"], ["all"], p_values=[2], reference_p=2, measures=["unicity", "attribute_disclosure"],
        sensitive=["income"], attributes=write_attributes(tmp_path / "a.csv", names, HAND_VALUES),
    )  # fmt: skip
    result = next(run_grid(table_from_sets(HAND_SETS, 3), run))
    again = type(result).from_dict(result.to_dict())
    assert again.attributes == result.attributes
    without = next(run_grid(table_from_sets(HAND_SETS, 3), RiskSettings(["raw"], ["all"], p_values=[2])))
    assert without.attributes is None and "attributes" not in without.to_dict()


# -- against the references -------------------------------------------------------------------------------


@st.composite
def people(draw, max_users: int = 9, max_d: int = 5):
    """Traces over d points (duplicates likely, so classes have several members) and income values."""
    d = draw(st.integers(1, max_d))
    pool = [set(draw(st.lists(st.integers(0, d - 1), min_size=1, max_size=d, unique=True))) for _ in range(3)]
    n = draw(st.integers(1, max_users))
    sets = [draw(st.sampled_from(pool)) if draw(st.booleans()) else pool[0] | {draw(st.integers(0, d - 1))}
            for _ in range(n)]  # fmt: skip
    values = draw(st.lists(st.sampled_from([*INCOME, None]), min_size=n, max_size=n))
    if all(v is None for v in values):
        values[0] = "low"
    return sets, d, values


def assert_matches(figure, expected: dict) -> None:
    assert figure.n_people == expected["n_people"]
    for name in FIGURES:
        got, want = getattr(figure, name), expected[name]
        assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-9), name
    assert figure.min_distinct_l == expected["min_distinct_l"]
    for name in ("min_entropy_l", "max_t"):
        got, want = getattr(figure, name), expected[name]
        assert (got is None and want is None) or got == pytest.approx(want, abs=1e-7), name


@settings(max_examples=40, deadline=None)
@given(people(), st.booleans(), st.integers(2, 3), st.sampled_from([0.05, 0.2, 0.5]))
def test_whole_trace_classes_match_reference(data, ordered, l_div, t):
    sets, d, values = data
    traces = traces_from_sets(sets, d)
    sensitive = sensitive_of(values, ordered)
    (figure,) = attribute_disclosure(traces.indptr, traces.points, [sensitive], None, None, l_div, t)
    named = ref.value_list(list(INCOME), values)
    file = ref.file_distribution(values, named)
    expected = ref.figures_of_classes(ref.trace_class_values(sets, values), named, file, ordered, l_div, t)
    assert_matches(figure, expected)
    assert (figure.n_left_out, figure.n_unknown) == (0, sum(v is None for v in values))


@settings(max_examples=40, deadline=None)
@given(
    people(), st.integers(1, 3), st.integers(1, 3), st.sampled_from([UNIFORM, ACTIVITY, TOP]),
    st.booleans(), st.sampled_from([None, 1]), st.integers(0, 5),
)  # fmt: skip
def test_anonymity_sets_match_reference(data, p, draws, kind, all_points, dense_min, seed):
    """The sets of the same knowledge draws as the sampled estimate (the orders of ``knowledge_orders``)."""
    sets, d, values = data
    traces = traces_from_sets(sets, d)
    index = build_index(traces, dense_min=dense_min)
    users = np.arange(len(sets), dtype=np.int64)[::-1].copy()
    draw = SetDraws(users, kind, p, draws, seed, all_points)
    sensitive = sensitive_of(values, ordered=True)
    _, figure = attribute_disclosure(traces.indptr, traces.points, [sensitive], index, draw, 2, 0.2)
    orders, m = knowledge_orders(
        kind, index.trace_ptr, index.trace_pts, index.trace_cnt, index.list_len, seed, draws, p
    )
    compact = [
        set(index.trace_pts[index.trace_ptr[u] : index.trace_ptr[u + 1]].tolist()) for u in range(len(sets))
    ]
    included = [u for u in users if m[u] == p or (all_points and m[u] > 0)]
    classes = [[ref.set_values(compact, values, set(orders[u, r, : m[u]].tolist())) for r in range(draws)]
               for u in included]  # fmt: skip
    named = ref.value_list(list(INCOME), values)
    expected = ref.figures_of_classes(classes, named, ref.file_distribution(values, named), True, 2, 0.2)
    assert_matches(figure, expected)
    assert figure.n_left_out == len(sets) - len(included)
    assert figure.n_unknown == sum(values[u] is None for u in included)


@settings(max_examples=40, deadline=None)
@given(people(), st.integers(1, 3), st.booleans(), st.sampled_from([None, 1]))
def test_exact_mode_averages_every_p_subset_like_the_reference(data, p, ordered, dense_min):
    """Exact mode: every p-subset of everyone with at least p points, each person's subsets averaged."""
    sets, d, values = data
    traces = traces_from_sets(sets, d)
    index = build_index(traces, dense_min=dense_min)
    draw = SetDraws(np.zeros(0, dtype=np.int64), UNIFORM, p, 1, 0, False, exact=True)
    _, figure = attribute_disclosure(
        traces.indptr, traces.points, [sensitive_of(values, ordered)], index, draw, 2, 0.2
    )
    included = [u for u in range(len(sets)) if len(sets[u]) >= p]
    classes = [
        [ref.set_values(sets, values, set(c)) for c in combinations(sorted(sets[u]), p)] for u in included
    ]
    named = ref.value_list(list(INCOME), values)
    expected = ref.figures_of_classes(classes, named, ref.file_distribution(values, named), ordered, 2, 0.2)
    assert_matches(figure, expected)
    assert figure.n_left_out == len(sets) - len(included)


def test_exact_mode_keeps_few_subsets_in_memory_at_once(monkeypatch):
    """People are taken a few at a time when their subsets are many: the figures do not change."""
    import privacy_studio.core.measures.attribute_sets as attribute_sets

    sets = [{0, 1, 2, 3}, {0, 1, 2}, {1, 2, 3}, {0, 3}, {2}]
    values = ["low", "high", None, "middle", "low"]
    traces = traces_from_sets(sets, 4)
    draw = SetDraws(np.zeros(0, dtype=np.int64), UNIFORM, 2, 1, 0, False, exact=True)
    args = (traces.indptr, traces.points, [sensitive_of(values, True)], build_index(traces), draw, 2, 0.2)
    whole = attribute_disclosure(*args)
    monkeypatch.setattr(attribute_sets, "EXACT_ROWS", 2)
    assert attribute_disclosure(*args) == whole


@settings(max_examples=25, deadline=None)
@given(people(), st.integers(1, 3), st.integers(1, 2))
def test_set_members_are_the_sampled_estimates_sets(data, p, draws):
    """With every value known, the members counted are exactly the anonymity sets the risk measures use."""
    sets, d, _ = data
    index = build_index(traces_from_sets(sets, d))
    users = np.arange(len(sets), dtype=np.int64)
    known = Sensitive("x", np.zeros(len(sets), dtype=np.int64), ("a",), False)
    counts, included = set_class_counts(index, SetDraws(users, UNIFORM, p, draws, 3, False), known)
    sizes = sample_sizes(index, users, kind=UNIFORM, pmax=p, draws=draws, seed=3)["sizes"][:, :, p - 1]
    assert np.array_equal(included, sizes[:, 0] > 0)
    assert np.array_equal(counts[included, :, 0], sizes[included])


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda m: st.tuples(
            st.lists(st.integers(0, 6), min_size=m, max_size=m).filter(any),
            st.lists(st.integers(0, 6), min_size=m, max_size=m).filter(any),
        )
    ),
    st.booleans(),
    st.booleans(),
)
def test_earth_movers_distance_is_the_optimal_transport(pair, ordered, unknown):
    """Unordered, ordered bands, and ordered bands with "(unknown)" one step from every band (the last
    value): the closed forms and the dynamic programme against the linear programme."""
    a, b = (np.asarray(x, dtype=np.float64) / sum(x) for x in pair)
    t = class_stats(np.asarray([pair[0]]), b, ordered, unknown).t[0]
    assert t == pytest.approx(ref.emd(list(a), list(b), ordered, unknown), abs=1e-7)


# -- reading the attributes -------------------------------------------------------------------------------


def test_bands_are_ordered_by_their_numbers_or_words():
    assert band_order(["65+", "18-24", "25-34", "<18"]) == ["<18", "18-24", "25-34", "65+"]
    assert band_order(["middle", "High", "low"]) == ["low", "middle", "High"]
    assert band_order(["prepaid", "postpaid"]) is None


def test_sensitive_columns_are_checked(tmp_path):
    path = write_attributes(tmp_path / "a.csv", ["u000", "u001"], ["low", None])
    table = read_attributes(path)
    (income,) = sensitive_attributes(table, np.asarray(["u001", "u000", "u009"]), ["income"], ["income"])
    assert income.values == ("low", "(unknown)") and income.unknown and income.ordered
    assert income.codes.tolist() == [1, 0, 1]  # no value, or no row: "(unknown)", counted
    with pytest.raises(ValueError, match="not in the attributes file"):
        sensitive_attributes(table, np.asarray(["u000"]), ["age"], [])
    (tmp_path / "b.csv").write_text("user_id,plan\nu000,prepaid\n")
    with pytest.raises(ValueError, match="do not read as ordered bands"):
        sensitive_attributes(read_attributes(tmp_path / "b.csv"), np.asarray(["u000"]), ["plan"], ["plan"])


def test_settings_refuse_impossible_attribute_choices():
    with pytest.raises(ValueError, match="l of l-diversity"):
        RiskSettings(["raw"], ["all"], sensitive=["income"], l_diversity=1).validate()
    with pytest.raises(ValueError, match="t of t-closeness"):
        RiskSettings(["raw"], ["all"], sensitive=["income"], t_closeness=1.0).validate()
    with pytest.raises(ValueError, match="not among the sensitive"):
        RiskSettings(["raw"], ["all"], sensitive=["income"], ordered=["age"]).validate()
    with pytest.raises(ValueError, match="--sensitive needs --attributes"):
        next(run_grid(table_from_sets(HAND_SETS, 3), RiskSettings(["raw"], ["all"], sensitive=["income"])))
