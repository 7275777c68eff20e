"""Statistical checks that the simulated people behave like the ones in real CDRs, by design."""

from __future__ import annotations

import numpy as np
import pytest

from privacy_studio.core.events import to_local_seconds
from privacy_studio.core.sample.population import AGE_BANDS, CUSTOMER_TYPES, INCOME_BANDS


def _per_user(values: np.ndarray, user: np.ndarray, n_users: int, reduce) -> np.ndarray:
    """``reduce`` applied to each user's values (plain Python: the reference)."""
    order = np.argsort(user, kind="stable")
    ordered = values[order]
    bounds = np.searchsorted(user[order], np.arange(n_users + 1))
    return np.array([reduce(ordered[bounds[u] : bounds[u + 1]]) for u in range(n_users)])


@pytest.fixture(scope="module")
def calls(behaviour_city):
    table = behaviour_city.event_table(0)
    local = to_local_seconds(table.time, table.tz)
    return {
        "table": table,
        "hour": (local % 86_400) // 3600,
        "weekday": (local // 86_400 + 3) % 7,  # 1970-01-01 was a Thursday
        "counts": np.bincount(table.user, minlength=table.n_users),
    }


def test_about_forty_events_per_user_in_four_weeks_with_a_heavy_tail(calls):
    counts = calls["counts"]
    assert 30 < counts.mean() < 55
    active = counts[counts > 0]
    assert active.max() / np.median(active) > 15
    assert np.mean(counts > 4 * counts.mean()) > 0.01


def test_nights_are_quiet_and_evenings_busy(calls):
    by_hour = np.bincount(calls["hour"], minlength=24) / len(calls["hour"])
    night = by_hour[1:6].mean()
    assert night < 0.2 * by_hour[9:21].mean()
    assert by_hour[18] > by_hour[3] * 10


def test_weekends_differ_from_weekdays(calls):
    hour, weekend = calls["hour"], calls["weekday"] >= 5
    weekday_share = np.mean(np.isin(hour[~weekend], (7, 8)))
    weekend_share = np.mean(np.isin(hour[weekend], (7, 8)))
    assert weekday_share > 1.5 * weekend_share  # no morning commute at weekends
    per_day = np.bincount(calls["weekday"], minlength=7) / 4
    assert per_day[6] < 0.85 * per_day[:5].mean()  # calm Sundays


def test_people_are_home_at_night(behaviour_city, calls):
    table, hour = calls["table"], calls["hour"]
    night = (hour < 6) | (hour >= 22)
    home = behaviour_city.model.population.home[table.user[night]]
    nearby = behaviour_city.model.layout.neighbours[home]
    at_home = (table.location[night] == home) | (table.location[night][:, None] == nearby).any(axis=1)
    assert at_home.mean() > 0.75


def test_occasional_trips_reach_far_antennas(behaviour_city, calls):
    table, layout = calls["table"], behaviour_city.model.layout
    home = behaviour_city.model.population.home[table.user]
    distance = np.hypot(
        layout.x_km[table.location] - layout.x_km[home], layout.y_km[table.location] - layout.y_km[home]
    )
    far = distance > np.percentile(np.hypot(layout.x_km, layout.y_km), 90)
    assert 0.005 < far.mean() < 0.15
    assert len(np.unique(table.user[far])) > 0.05 * table.n_users


def _gyration(table, layout) -> np.ndarray:
    x, y = layout.x_km[table.location], layout.y_km[table.location]

    def radius(idx: np.ndarray) -> float:
        if len(idx) < 2:
            return np.nan
        return float(np.sqrt(np.mean((x[idx] - x[idx].mean()) ** 2 + (y[idx] - y[idx].mean()) ** 2)))

    return _per_user(np.arange(len(x)), table.user, table.n_users, radius)


def test_attributes_shape_behaviour(behaviour_city, calls):
    pop, table = behaviour_city.model.population, calls["table"]
    counts = calls["counts"]
    places = _per_user(table.location, table.user, table.n_users, lambda v: len(set(v.tolist())))
    gyration = _gyration(table, behaviour_city.model.layout)

    def mean_where(values: np.ndarray, mask: np.ndarray) -> float:
        return float(np.nanmean(values[mask]))

    business, prepaid = pop.customer_type == CUSTOMER_TYPES.index("business"), pop.customer_type == 0
    assert mean_where(counts, business) > 1.8 * mean_where(counts, prepaid)
    old, young = pop.age_band == AGE_BANDS.index("65+"), pop.age_band == AGE_BANDS.index("25-34")
    assert mean_where(counts, young) > 1.5 * mean_where(counts, old)
    assert mean_where(gyration, young) > 1.2 * mean_where(gyration, old)
    high, low = pop.income_band == INCOME_BANDS.index("high"), pop.income_band == INCOME_BANDS.index("low")
    assert mean_where(gyration, high) > 1.15 * mean_where(gyration, low)
    # Distinct places grow with activity; compare people of similar activity.
    similar = (counts >= 20) & (counts <= 60)
    assert mean_where(places, high & similar) > 1.1 * mean_where(places, low & similar)


def test_card_payments_follow_the_phone(behaviour_city):
    """A payment's (district, day) also holds a call of the same person far more often than another's."""
    model, pay = behaviour_city.model, behaviour_city.payments[0]
    calls = behaviour_city.periods[0]
    district = model.layout.antenna_district()
    day = to_local_seconds(calls.time, model.params.tz) // 86_400
    seen = set(zip(calls.user.tolist(), district[calls.location].tolist(), day.tolist(), strict=True))
    pay_day = to_local_seconds(pay.time, model.params.tz) // 86_400
    pay_district = district[model.layout.shop_antenna[pay.shop]]
    same = np.mean([(u, d, t) in seen for u, d, t in zip(pay.user, pay_district, pay_day, strict=True)])
    other_user = np.roll(pay.user, len(pay.user) // 2)
    other = np.mean([(u, d, t) in seen for u, d, t in zip(other_user, pay_district, pay_day, strict=True)])
    assert same > 0.5 and same > 3 * other


def test_second_period_keeps_routines(behaviour_city):
    """Most people's most used antenna is the same in both periods (what a profiling attack exploits)."""
    first, second = behaviour_city.periods
    n = behaviour_city.model.params.n_users

    def top(events) -> np.ndarray:
        return _per_user(events.location, events.user, n, lambda v: np.bincount(v).argmax() if len(v) else -1)

    a, b = top(first), top(second)
    both = (a >= 0) & (b >= 0)
    assert 0.4 < np.mean(a[both] == b[both]) < 0.98
