"""The price axis: log-spaced amount bins (refunds, zero, exact edges), class sizes with price bins against a
slow plain-Python reference, the worked example of docs/measures.md, and the settings that carry the axis."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, localcontext
from itertools import combinations
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.generalize import PriceLevel, Profile, generalize, plain_number, price_bins
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner import run_grid

T0 = 1709506800  # 2024-03-04 00:00 in Europe/Paris


def exact_edge(k: int, n: int) -> float:
    """10^(k/n) to 60 digits, then the nearest double: the edges as docs/measures.md defines them."""
    with localcontext() as ctx:
        ctx.prec = 60
        return float(Decimal(10) ** (Decimal(k) / Decimal(n)))


def reference_class(magnitude: float, n: int) -> int:
    """The k with edge(k) <= magnitude < edge(k + 1), found by walking from k = 0 (slow, obvious)."""
    k = 0
    while magnitude < exact_edge(k, n):
        k -= 1
    while magnitude >= exact_edge(k + 1, n):
        k += 1
    return k


def reference_bin_keys(amounts: list[float], n: int) -> list[tuple]:
    """Every bin of the axis in order (refund classes from the largest, zero, positive classes) and each
    amount's bin as an index into that list."""
    neg = [reference_class(-a, n) for a in amounts if a < 0]
    pos = [reference_class(a, n) for a in amounts if a > 0]
    keys: list[tuple] = [("refund", k) for k in range(max(neg), min(neg) - 1, -1)] if neg else []
    keys += [("zero",)] if any(a == 0 for a in amounts) else []
    keys += [("paid", k) for k in range(min(pos), max(pos) + 1)] if pos else []
    return keys


def reference_bin(a: float, n: int, keys: list[tuple]) -> int:
    if a == 0:
        return keys.index(("zero",))
    return keys.index(("paid", reference_class(a, n)) if a > 0 else ("refund", reference_class(-a, n)))


#: The double nearest each edge of 3 and 7 bins per factor of ten, and the doubles just below and above it.
NEAR_EDGES = [
    x
    for n in (3, 7)
    for k in range(-3, 10)
    for e in [exact_edge(k, n)]
    for x in (e, float(np.nextafter(e, 0.0)), float(np.nextafter(e, np.inf)))
]

amounts_strategy = st.lists(
    st.one_of(
        st.floats(-5000, 5000, allow_nan=False).map(lambda x: round(x, 2)),
        st.sampled_from([0.0, 0.01, 0.1, 1.0, 10.0, 100.0, -10.0, 1000.0, 21.54, 46.42, 2.154]),
        st.integers(-3, 4).flatmap(lambda e: st.just(10.0**e)),
        st.sampled_from(NEAR_EDGES),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(amounts_strategy, st.sampled_from([1, 2, 3, 4, 7, 12]))
def test_price_bins_equal_the_reference_classes(amounts, n):
    got = price_bins(np.asarray(amounts), PriceLevel(n))
    keys = reference_bin_keys(amounts, n)
    assert got.n_bins == max(1, len(keys))
    assert got.bins.tolist() == [reference_bin(a, n, keys) for a in amounts]
    for a, b in zip(amounts, got.bins.tolist(), strict=True):  # each amount lies in its bin's range
        lo, hi = got.layout.bin_range(b)
        if a == 0:
            assert lo == hi == 0
        elif a > 0:
            assert lo <= a < hi
        else:
            assert lo < a <= hi


def test_powers_of_ten_open_their_bin_and_the_worked_example():
    """docs/measures.md: 3 bins per factor of ten, amounts 4.33, 10.00, 15.13, 43.78, 97.30, -15.13."""
    amounts = np.asarray([4.33, 10.0, 15.13, 43.78, 97.30, -15.13, 0.0])
    priced = price_bins(amounts, PriceLevel(3))
    texts = [priced.layout.bin_text(int(b)) for b in priced.bins]
    assert texts == ["2.154–4.642", "10–21.54", "10–21.54", "21.54–46.42", "46.42–100", "-21.54–-10", "0"]
    # refunds first (one class), then zero, then the positive classes 2.154.. up to 46.42..100: 1 + 1 + 5
    assert priced.n_bins == 7 and priced.bins.tolist() == [2, 4, 4, 5, 6, 0, 1]
    assert price_bins(np.asarray([9.99, 10.0, 99.99, 100.0]), PriceLevel(1)).bins.tolist() == [0, 1, 1, 2]


def test_bin_ranges_are_written_without_exponents():
    assert [plain_number(x) for x in (21544.35, 0.02154, 10.0, 4.6416, 100.0)] == [
        "21544",
        "0.02154",
        "10",
        "4.642",
        "100",
    ]


@pytest.mark.parametrize("bad", [np.asarray([1.0, np.nan]), None])
def test_missing_amounts_are_one_clear_error(bad):
    with pytest.raises(ValueError, match="amount"):
        price_bins(bad, PriceLevel(3))


@pytest.mark.parametrize(("text", "level"), [("none", None), ("3", PriceLevel(3)), (" 1 ", PriceLevel(1))])
def test_price_choices_parse(text, level):
    assert PriceLevel.parse(text) == level


@pytest.mark.parametrize("text", ["three", "-1", "101", "2.5"])
def test_bad_price_choices_are_refused(text):
    with pytest.raises(ValueError, match="price level"):
        PriceLevel.parse(text)


def test_settings_carry_the_price_axis_and_old_settings_mean_none():
    risk = RiskSettings(["shop", "district"], ["1d"], price=["none", "3", "1"])
    labels = [p.label for p in risk.profiles()]
    assert labels == [
        "shop × 1d",
        "district × 1d",
        "shop × 1d × price/3",
        "district × 1d × price/3",
        "shop × 1d × price/1",
        "district × 1d × price/1",
    ]
    assert RiskSettings.from_dict({"spatial": ["shop"], "temporal": ["1d"]}).price == ["none"]
    with pytest.raises(ValueError, match="price level"):
        RiskSettings(["shop"], ["1d"], price=["ten"]).validate()


# -- class sizes with price bins against a plain-Python reference -------------------------------------------


def reference_traces(users, times, shops, amounts, district, n):
    """Per user (in sorted id order) the set of (district, local day, price bin) points, by hand."""
    keys = reference_bin_keys(list(amounts), n) if n else []
    paris = ZoneInfo("Europe/Paris")
    out: dict[str, set] = {}
    for u, t, s, a in zip(users, times, shops, amounts, strict=True):
        day = dt.datetime.fromtimestamp(int(t), paris).date()
        price = reference_bin(a, n, keys) if n else None
        out.setdefault(u, set()).add((district[f"S{s:02d}"], day, price))
    return [out[u] for u in sorted(out)]


def reference_class_sizes(traces: list[set], p: int) -> dict[int, float]:
    """Exact-mode U_k: each person with at least p points shares one unit among the sizes of their
    p-subsets' anonymity sets."""
    sizes: dict[int, float] = {}
    for t in traces:
        subsets = list(combinations(sorted(t, key=repr), p))
        for subset in subsets:
            k = sum(set(subset) <= other for other in traces)
            sizes[k] = sizes.get(k, 0.0) + 1 / len(subsets)
    return sizes


def shop_table(users, times, shops, amounts, n_districts):
    """Payments at shops ``S00``… with shop s in district ``D{s % n_districts}``, and the hierarchy of the
    shops the table holds (its location codes)."""
    ids = np.asarray([f"S{s:02d}" for s in shops])
    district = {f"S{s:02d}": f"D{s % n_districts}" for s in shops}
    events = build_event_table(
        np.asarray(users), np.asarray(times), ids, tz="Europe/Paris", amount=np.asarray(amounts, dtype=float)
    )
    levels = {"district": np.asarray([district[str(x)] for x in events.location_ids])}
    return events, Hierarchy.from_mapping(events.location_ids, "shop", levels), district


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 7),
            st.integers(0, 4 * 86400),
            st.integers(0, 5),
            st.sampled_from([2.0, 4.33, 9.99, 10.0, 15.13, 43.78, 97.3, 150.0, 0.0, -15.13]),
        ),
        min_size=1,
        max_size=30,
    ),
    n=st.sampled_from([None, 1, 3]),
    p=st.integers(1, 3),
)
def test_exact_class_sizes_with_price_bins_equal_the_reference(rows, n, p):
    users, offsets, shops, amounts = (list(c) for c in zip(*rows, strict=True))
    users = [f"u{u}" for u in users]
    times = [T0 + o for o in offsets]
    events, hierarchy, district = shop_table(users, times, shops, amounts, 2)
    price = "none" if n is None else str(n)
    risk = RiskSettings(["district"], ["1d"], p_values=[p], exact=True, price=[price], measures=["unicity"])
    (result,) = list(run_grid(events, risk, hierarchy))
    want = reference_class_sizes(reference_traces(users, times, shops, amounts, district, n or 0), p)
    got = result.by_p[0].class_sizes or {}
    assert set(got) == set(want)
    for k, people in want.items():
        assert got[k] == pytest.approx(people, abs=1e-9)
    assert result.price == price


def test_the_amount_only_splits_points_so_classes_never_grow():
    """Every price-binned point lies within one place-and-time point: a person's points only split."""
    rng = np.random.default_rng(3)
    users = [f"u{k}" for k in rng.integers(0, 60, 600)]
    times = T0 + rng.integers(0, 10 * 86400, 600)
    shops = rng.integers(0, 12, 600).tolist()
    amounts = np.round(rng.lognormal(3, 1, 600), 2)
    events, hierarchy, _ = shop_table(users, times, shops, amounts, 3)
    plain = generalize(events, Profile.parse("district", "1d"), hierarchy)
    priced = generalize(events, Profile.parse("district", "1d", 2), hierarchy)
    assert (priced.lengths() >= plain.lengths()).all()
    place_time = priced.points // priced.n_price_bins
    for u in range(plain.n_users):
        assert set(place_time[priced.indptr[u] : priced.indptr[u + 1]]) == set(plain.trace(u))


def test_explicit_knowledge_of_payments_includes_their_amounts(tmp_path):
    """Known payments with their amounts: a person is unique when the amount bin tells them apart."""
    users = ["a", "a", "b", "b"]
    times = [T0 + 3600, T0 + 90000, T0 + 7200, T0 + 90000]
    events, hierarchy, _ = shop_table(users, times, [0, 1, 0, 1], [12.5, 30.0, 19.99, 80.0], 1)
    known = tmp_path / "known.csv"
    known.write_text("user_id,time,shop,price\na,2024-03-04T01:00:00+01:00,S00,12.50\n")
    base = {"p_values": [1], "knowledge": f"explicit:{known}", "measures": ["unicity"]}
    by_price = {
        price: next(run_grid(events, RiskSettings(["district"], ["1d"], price=[price], **base), hierarchy))
        for price in ("none", "1", "3")
    }
    # the district and day are shared with b; at 1 bin per ×10 both 12.50 and 19.99 are in 10–100, at 3 bins
    # 12.50 and 19.99 are both in 10–21.54: the known payment fits a and b in every case
    assert [by_price[p].by_p[0].class_sizes for p in ("none", "1", "3")] == [{2: 1}] * 3
    known.write_text("user_id,time,shop,price\na,2024-03-05T02:00:00+01:00,S01,30.00\n")
    a_day2 = {
        p: next(run_grid(events, RiskSettings(["district"], ["1d"], price=[p], **base), hierarchy))
        for p in ("none", "3")
    }
    assert a_day2["none"].by_p[0].class_sizes == {2: 1}  # b paid in the same district on 5 March too
    assert a_day2["3"].by_p[0].class_sizes == {1: 1}  # 30.00 (21.54–46.42) is not b's 80.00 (46.42–100)


def test_top_locations_know_places_only_so_the_amount_changes_nothing():
    rng = np.random.default_rng(8)
    users = [f"u{k}" for k in rng.integers(0, 40, 400)]
    times = T0 + rng.integers(0, 6 * 86400, 400)
    events, hierarchy, _ = shop_table(
        users, times, rng.integers(0, 9, 400).tolist(), rng.lognormal(3, 1, 400), 3
    )
    risk = RiskSettings(["shop"], ["1d"], p_values=[1, 2], knowledge="top", price=["none", "3"], seed=2)
    plain, priced = run_grid(events, risk, hierarchy)
    assert [r.class_sizes for r in plain.by_p] == [r.class_sizes for r in priced.by_p]
    uniform = RiskSettings(["shop"], ["1d"], p_values=[2], price=["none", "3"], seed=2, measures=["unicity"])
    without, with_amount = run_grid(events, uniform, hierarchy)
    assert without.by_p[0].class_sizes != with_amount.by_p[0].class_sizes  # uniform draws see the amount
