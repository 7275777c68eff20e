"""What the people do over a period: phone events and card payments, vectorized per chunk of users.

Each person has a bursty daily intensity shared by calls and payments, a weekly and diurnal rhythm,
and a place that depends on the time of day (home at night, work in office hours, favourite places in
the evening and at weekends, wandering around, whole days away on trips). Payments happen at shops
near where the person is, and some trigger a call or text close by, so the two views of the same
person line up in space and time as the matching attack assumes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from privacy_studio.core.sample.clock import DAY, Period, local_to_utc
from privacy_studio.core.sample.layout import SHOP_MEDIAN_PRICE, CityLayout
from privacy_studio.core.sample.population import MAX_FAVOURITES, N_CONTACTS, Population

# Relative activity per hour of the local day: quiet nights, commute peaks on weekdays, late weekends.
CALL_HOURS_WEEKDAY = np.array(
    [0.3, 0.15, 0.08, 0.06, 0.08, 0.25, 0.9, 2.4, 3.4, 3.0, 2.8, 3.0,
     3.5, 3.2, 2.8, 2.8, 3.1, 3.9, 4.4, 4.1, 3.6, 2.9, 1.9, 0.9]
)  # fmt: skip
CALL_HOURS_WEEKEND = np.array(
    [0.7, 0.45, 0.28, 0.15, 0.1, 0.1, 0.2, 0.45, 1.1, 2.0, 2.8, 3.3,
     3.6, 3.4, 3.2, 3.2, 3.4, 3.6, 3.8, 3.8, 3.5, 3.0, 2.2, 1.3]
)  # fmt: skip
SHOP_HOURS = np.array(
    [0.02, 0.01, 0.0, 0.0, 0.0, 0.02, 0.1, 0.6, 1.2, 1.5, 1.8, 2.4,
     3.2, 2.6, 1.8, 1.8, 2.0, 2.6, 3.0, 2.6, 1.8, 1.0, 0.4, 0.1]
)  # fmt: skip
CALLS_BY_WEEKDAY = np.array([1.0, 1.0, 1.0, 1.02, 1.1, 0.9, 0.75])  # Monday first
SHOPPING_BY_WEEKDAY = np.array([0.85, 0.9, 0.95, 0.95, 1.1, 1.45, 0.4])

# Where a person is, per context: shares of (home, work, favourite place, elsewhere).
NIGHT, COMMUTE, OFFICE, EVENING, WEEKEND = range(5)
PLACE_SHARES = np.array(
    [
        [0.88, 0.02, 0.06, 0.04],
        [0.3, 0.3, 0.05, 0.35],
        [0.1, 0.72, 0.1, 0.08],
        [0.45, 0.05, 0.35, 0.15],
        [0.42, 0.03, 0.4, 0.15],
    ]
)
DAY_BURSTINESS = 0.8  # gamma shape of the per-day intensity (lower = burstier)
TRIP_STAY = 0.85  # share of a trip day's events at the destination
HANDOVER = 0.15  # share of events served by a neighbouring antenna
CALL_SHARE = 0.45  # calls vs texts
PAYMENT_ECHO = 0.25  # share of payments followed by a call or text nearby


@dataclass
class PhoneEvents:
    """Calls and texts, sorted by (user, time); user and correspondent are global user codes."""

    user: np.ndarray  # int32
    time: np.ndarray  # int64 UTC seconds
    location: np.ndarray  # int32 antenna code
    interaction: np.ndarray  # int8: 0 call, 1 text
    direction: np.ndarray  # int8: +1 incoming, -1 outgoing
    duration: np.ndarray  # float32 seconds, NaN for texts
    correspondent: np.ndarray  # int32 user code

    def __len__(self) -> int:
        return len(self.user)

    def take(self, index: np.ndarray) -> PhoneEvents:
        """The events at ``index`` (e.g. a sort order)."""
        return PhoneEvents(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @classmethod
    def concat(cls, parts: list[PhoneEvents]) -> PhoneEvents:
        """All events of ``parts``, one after the other."""
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)})


@dataclass
class Payments:
    """Card payments, sorted by (user, time); user is the global user code (not the card pseudonym)."""

    user: np.ndarray  # int32
    time: np.ndarray  # int64 UTC seconds
    shop: np.ndarray  # int32 shop code
    price: np.ndarray  # float64 EUR

    def __len__(self) -> int:
        return len(self.user)


def simulate_chunk(
    layout: CityLayout, people: Population, first_user: int, period: Period, rng: np.random.Generator
) -> tuple[PhoneEvents, Payments]:
    """Phone events and card payments of users ``first_user ..`` (``len(people)`` of them) over ``period``."""
    n, days = len(people), period.days
    weekday = period.weekday(np.arange(days))
    intensity = rng.gamma(DAY_BURSTINESS, 1.0 / DAY_BURSTINESS, (n, days))
    trip_day = rng.random((n, days)) < people.trip_rate[:, None]
    destination = _trip_destinations(layout, people.home, days, rng)

    def draw(rate: np.ndarray, hours: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(chunk user, UTC time, antenna) of events drawn at ``rate`` per user-day."""
        user, day = _expand(rng.poisson(rate))
        hour = _draw_hours(day, weekday, rng) if hours is None else _hours_from(hours, len(day), rng)
        local = period.start_local + day * DAY + hour * 3600 + rng.integers(0, 3600, len(day))
        ctx = _context(hour, weekday[day] >= 5)
        antenna = _place(layout, people, user, ctx, trip_day[user, day], destination[user, day], rng)
        return user, local_to_utc(local, period.tz), antenna

    user, time, antenna = draw(people.rate[:, None] * CALLS_BY_WEEKDAY[weekday] * intensity, None)
    calls = _phone_events(people, first_user, user, time, antenna, rng)
    spend = people.purchase_rate[:, None] * SHOPPING_BY_WEEKDAY[weekday] * intensity**0.7
    user, time, antenna = draw(spend, SHOP_HOURS)
    shop = layout.shop_offsets[antenna] + (rng.random(len(antenna)) * np.diff(layout.shop_offsets)[antenna])
    shop = shop.astype(np.int32)
    price = SHOP_MEDIAN_PRICE[layout.shop_category[shop]] * rng.lognormal(0.0, 0.55, len(shop))
    order = np.lexsort((time, user))
    payments = Payments(
        (first_user + user[order]).astype(np.int32),
        time[order],
        shop[order],
        np.round(np.maximum(price, 0.5), 2)[order],
    )

    echo = np.flatnonzero(rng.random(len(shop)) < PAYMENT_ECHO)
    lo, hi = period.bounds_utc()
    echo_time = np.clip(time[echo] + np.round(rng.normal(0, 600, len(echo))).astype(np.int64), lo, hi - 1)
    echoes = _phone_events(people, first_user, user[echo], echo_time, layout.shop_antenna[shop[echo]], rng)
    calls = PhoneEvents.concat([calls, echoes])
    return calls.take(np.lexsort((calls.time, calls.user))), payments


def _expand(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row, column) of every unit in a matrix of counts, row-major."""
    flat = counts.ravel()
    cells = np.repeat(np.arange(len(flat)), flat)
    return cells // counts.shape[1], cells % counts.shape[1]


def _hours_from(weights: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Hours of ``n`` events drawn from relative hourly ``weights``."""
    cdf = np.cumsum(weights) / weights.sum()
    return np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), 23)


def _draw_hours(day: np.ndarray, weekday: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Local hour of each event from the weekday or weekend rhythm of its day."""
    weekend = weekday[day] >= 5
    hour = _hours_from(CALL_HOURS_WEEKDAY, len(day), rng)
    hour[weekend] = _hours_from(CALL_HOURS_WEEKEND, int(weekend.sum()), rng)
    return hour


def _context(hour: np.ndarray, weekend: np.ndarray) -> np.ndarray:
    """Time-of-day context of each event (NIGHT, COMMUTE, OFFICE, EVENING or WEEKEND)."""
    ctx = np.full(len(hour), EVENING, dtype=np.int8)
    ctx[(hour >= 9) & (hour < 17)] = OFFICE
    ctx[np.isin(hour, (7, 8, 17, 18))] = COMMUTE
    ctx[weekend] = WEEKEND
    ctx[(hour < 7) | (hour >= 22)] = NIGHT
    return ctx


def _trip_destinations(
    layout: CityLayout, home: np.ndarray, days: int, rng: np.random.Generator
) -> np.ndarray:
    """For every (user, day) a far antenna: the farthest from home of three random ones."""
    cand = rng.integers(0, layout.n_antennas, (len(home), days, 3))
    hx, hy = layout.x_km[home][:, None, None], layout.y_km[home][:, None, None]
    far = np.argmax(np.hypot(layout.x_km[cand] - hx, layout.y_km[cand] - hy), axis=2)
    return np.take_along_axis(cand, far[..., None], axis=2)[..., 0].astype(np.int32)


def _place(
    layout: CityLayout,
    people: Population,
    user: np.ndarray,
    ctx: np.ndarray,
    on_trip: np.ndarray,
    destination: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Antenna serving each event, from the person's anchors, the context and trips."""
    n = len(user)
    home, work = people.home[user], people.work[user]
    cum = np.cumsum(PLACE_SHARES, axis=1)[ctx]
    kind = (rng.random(n)[:, None] > cum).sum(axis=1).clip(0, 3)
    kind[(kind == 1) & (work < 0)] = 2  # no job: a favourite place instead
    fav_index = np.minimum(
        (people.n_favourites[user] * rng.random(n) ** 2).astype(np.int64), MAX_FAVOURITES - 1
    )
    location = np.where(kind == 0, home, np.where(kind == 1, work, people.favourites[user, fav_index]))

    wander = np.flatnonzero(kind == 3)
    base = home[wander]
    target = np.where(work[wander] >= 0, work[wander], base)
    along = np.where(ctx[wander] == COMMUTE, rng.random(len(wander)), 0.0)
    along = np.where(ctx[wander] == OFFICE, 1.0, along)
    cx = layout.x_km[base] + along * (layout.x_km[target] - layout.x_km[base])
    cy = layout.y_km[base] + along * (layout.y_km[target] - layout.y_km[base])
    dist = people.radius_km[user[wander]] * rng.exponential(1.0, len(wander))
    angle = rng.uniform(0, 2 * np.pi, len(wander))
    location[wander] = layout.nearest_antenna(cx + dist * np.cos(angle), cy + dist * np.sin(angle))

    away = on_trip & (rng.random(n) < TRIP_STAY)
    location[away] = destination[away]
    handover = rng.random(n) < HANDOVER
    location[handover] = layout.neighbours[location[handover], rng.integers(0, 3, int(handover.sum()))]
    return location.astype(np.int32)


def _phone_events(
    people: Population,
    first_user: int,
    user: np.ndarray,
    time: np.ndarray,
    location: np.ndarray,
    rng: np.random.Generator,
) -> PhoneEvents:
    """Calls and texts for the given (chunk-local user, time, antenna) triples."""
    n = len(user)
    interaction = (rng.random(n) >= CALL_SHARE).astype(np.int8)
    duration = np.round(rng.lognormal(np.log(75.0), 1.0, n)).astype(np.float32) + 1
    duration[interaction == 1] = np.nan
    contact = np.minimum((N_CONTACTS * rng.random(n) ** 2.5).astype(np.int64), N_CONTACTS - 1)
    return PhoneEvents(
        user=(first_user + user).astype(np.int32),
        time=np.asarray(time, dtype=np.int64),
        location=np.asarray(location, dtype=np.int32),
        interaction=interaction,
        direction=np.where(rng.random(n) < 0.5, -1, 1).astype(np.int8),
        duration=duration,
        correspondent=people.contacts[user, contact],
    )
