"""The synthetic people: attributes, anchor places (home, work, favourites) and behaviour parameters.

Attributes shape behaviour on purpose, so that risk-by-group analyses find real differences: young
people and business customers call more, high-income people range further, hold more favourite places
and travel more, older people stay closer to home, and women have more favourite places and range a
little further (so that, as in the published studies, women and high earners are easier to single out).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from privacy_studio.core.sample.layout import CityLayout

GENDERS = ("F", "M")
AGE_BANDS = ("18-24", "25-34", "35-44", "45-54", "55-64", "65+")
INCOME_BANDS = ("low", "middle", "high")
CUSTOMER_TYPES = ("prepaid", "postpaid", "business")

GENDER_SHARE = np.array([0.51, 0.49])
AGE_SHARE = np.array([0.11, 0.17, 0.18, 0.18, 0.17, 0.19])
CUSTOMER_SHARE = np.array([0.3, 0.6, 0.1])
#: Income band shares per age band (rows aligned with AGE_BANDS).
INCOME_SHARE_BY_AGE = np.array(
    [
        [0.6, 0.35, 0.05],
        [0.4, 0.45, 0.15],
        [0.3, 0.45, 0.25],
        [0.28, 0.45, 0.27],
        [0.3, 0.45, 0.25],
        [0.4, 0.45, 0.15],
    ]
)

# Multipliers of the events-per-day rate (mean 1 over the population by construction below).
ACTIVITY_BY_AGE = np.array([1.5, 1.3, 1.1, 1.0, 0.8, 0.55])
ACTIVITY_BY_CUSTOMER = np.array([0.7, 1.0, 1.9])
ACTIVITY_BY_GENDER = np.array([1.05, 0.95])
RADIUS_BY_INCOME = np.array([0.75, 1.0, 1.5])  # multiplier of the mobility radius
RADIUS_BY_AGE = np.array([1.1, 1.1, 1.0, 1.0, 0.9, 0.65])
EXTRA_FAVOURITES_BY_INCOME = np.array([0.0, 0.5, 1.5])
EXTRA_FAVOURITES_BY_GENDER = np.array([1.2, 0.0])
RADIUS_BY_GENDER = np.array([1.12, 1.0])
TRIP_RATE_BY_INCOME = np.array([0.012, 0.025, 0.05])  # trip days per day
EMPLOYMENT_BY_AGE = np.array([0.55, 0.85, 0.88, 0.87, 0.75, 0.08])
CARD_SHARE_BY_INCOME = np.array([0.5, 0.65, 0.8])
PURCHASES_BY_INCOME = np.array([0.45, 0.7, 1.1])  # card payments per day (mean, card holders)

MEAN_EVENTS_PER_DAY = 1.35
ACTIVITY_SIGMA = 1.0  # log-normal spread of personal activity: the heavy tail
MAX_FAVOURITES = 6
N_CONTACTS = 8


@dataclass
class Population:
    """One row per user (index = user code); anchor places are antenna codes."""

    gender: np.ndarray  # int8 codes into GENDERS
    age_band: np.ndarray
    income_band: np.ndarray
    customer_type: np.ndarray
    home: np.ndarray  # int32 antenna
    work: np.ndarray  # int32 antenna, -1 when not employed
    favourites: np.ndarray  # (n, MAX_FAVOURITES) int32 antennas; first n_favourites are valid
    n_favourites: np.ndarray  # int8
    rate: np.ndarray  # expected events per day
    radius_km: np.ndarray  # scale of wandering around home
    trip_rate: np.ndarray  # probability that a given day is spent on a trip
    purchase_rate: np.ndarray  # expected card payments per day, 0 without a card
    contacts: np.ndarray  # (n, N_CONTACTS) int32 user codes of usual correspondents

    def __len__(self) -> int:
        return len(self.home)

    @classmethod
    def concat(cls, parts: list[Population]) -> Population:
        """The people of ``parts``, one after the other."""
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)})


def _expected(multiplier: np.ndarray, share: np.ndarray) -> float:
    """Mean of a multiplier over categories drawn with the given shares."""
    return float(np.dot(multiplier, share))


#: Mean of the attribute multipliers of activity, so the population mean rate is MEAN_EVENTS_PER_DAY.
_MEAN_MULTIPLIER = (
    _expected(ACTIVITY_BY_AGE, AGE_SHARE)
    * _expected(ACTIVITY_BY_CUSTOMER, CUSTOMER_SHARE)
    * _expected(ACTIVITY_BY_GENDER, GENDER_SHARE)
)


def draw_population(layout: CityLayout, n: int, n_total: int, rng: np.random.Generator) -> Population:
    """Draw ``n`` people living in ``layout``; ``n_total`` is the whole population (for contacts)."""
    gender = rng.choice(2, size=n, p=GENDER_SHARE).astype(np.int8)
    age = rng.choice(len(AGE_BANDS), size=n, p=AGE_SHARE).astype(np.int8)
    cum_income = np.cumsum(INCOME_SHARE_BY_AGE, axis=1)[age]
    income = (rng.random(n)[:, None] > cum_income).sum(axis=1).clip(0, 2).astype(np.int8)
    customer = rng.choice(len(CUSTOMER_TYPES), size=n, p=CUSTOMER_SHARE).astype(np.int8)

    multiplier = ACTIVITY_BY_AGE[age] * ACTIVITY_BY_CUSTOMER[customer] * ACTIVITY_BY_GENDER[gender]
    noise = rng.lognormal(-0.5 * ACTIVITY_SIGMA**2, ACTIVITY_SIGMA, n)  # mean 1
    rate = MEAN_EVENTS_PER_DAY * noise * multiplier / _MEAN_MULTIPLIER
    radius = (
        rng.lognormal(np.log(2.0), 0.6, n)
        * RADIUS_BY_INCOME[income]
        * RADIUS_BY_AGE[age]
        * RADIUS_BY_GENDER[gender]
    )

    x, y = layout.x_km, layout.y_km
    suburb = layout.antenna_municipality() > 0
    home_weight = np.where(suburb, 1.4, 1.0)
    home = rng.choice(layout.n_antennas, size=n, p=home_weight / home_weight.sum()).astype(np.int32)
    work = _draw_work(layout, home, rng)
    employed = rng.random(n) < EMPLOYMENT_BY_AGE[age]
    work = np.where(employed, work, -1).astype(np.int32)

    n_fav = 1 + rng.poisson(1.2 + EXTRA_FAVOURITES_BY_INCOME[income] + EXTRA_FAVOURITES_BY_GENDER[gender])
    n_fav = np.minimum(n_fav, MAX_FAVOURITES).astype(np.int8)
    dist = radius[:, None] * rng.exponential(1.0, (n, MAX_FAVOURITES))
    angle = rng.uniform(0, 2 * np.pi, (n, MAX_FAVOURITES))
    fx = x[home][:, None] + dist * np.cos(angle)
    fy = y[home][:, None] + dist * np.sin(angle)
    favourites = layout.nearest_antenna(fx.ravel(), fy.ravel()).reshape(n, MAX_FAVOURITES)

    has_card = rng.random(n) < CARD_SHARE_BY_INCOME[income]
    purchases = PURCHASES_BY_INCOME[income] * rng.lognormal(-0.18, 0.6, n)
    return Population(
        gender=gender,
        age_band=age,
        income_band=income,
        customer_type=customer,
        home=home,
        work=work,
        favourites=favourites,
        n_favourites=n_fav,
        rate=rate,
        radius_km=radius,
        trip_rate=TRIP_RATE_BY_INCOME[income] * np.where(customer == 2, 2.0, 1.0),
        purchase_rate=np.where(has_card, purchases, 0.0),
        contacts=rng.integers(0, max(n_total, 1), (n, N_CONTACTS)).astype(np.int32),
    )


def _draw_work(
    layout: CityLayout, home: np.ndarray, rng: np.random.Generator, candidates: int = 24
) -> np.ndarray:
    """Workplaces drawn by a gravity rule: jobs concentrate in the centre, long commutes are rarer."""
    x, y = layout.x_km, layout.y_km
    scale = max(float(np.percentile(np.hypot(x, y), 50)), 1.0)
    jobs = 1.0 + 3.0 * np.exp(-np.hypot(x, y) / scale)
    cand = rng.choice(layout.n_antennas, size=(len(home), candidates), p=jobs / jobs.sum())
    d = np.hypot(x[cand] - x[home][:, None], y[cand] - y[home][:, None])
    w = np.exp(-d / (1.2 * scale))
    pick = (rng.random(len(home))[:, None] * w.sum(axis=1)[:, None] > np.cumsum(w, axis=1)).sum(axis=1)
    return cand[np.arange(len(home)), np.minimum(pick, candidates - 1)].astype(np.int32)


def relocate(people: Population, layout: CityLayout, share: float, rng: np.random.Generator) -> Population:
    """A copy in which a ``share`` of people moved house (favourites kept): drift between periods."""
    moved = np.flatnonzero(rng.random(len(people)) < share)
    home = people.home.copy()
    home[moved] = rng.integers(0, layout.n_antennas, len(moved))
    return replace(people, home=home)
