"""The whole synthetic city in memory: geography, people, and their events over consecutive periods.

Random streams are keyed by (seed, purpose, period, chunk of users) with a fixed chunk size, so the
result depends only on the parameters, never on how it is consumed (in memory or written in pieces).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import TypeVar

import numpy as np

from privacy_studio.core.events import EventTable, LocationTable
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.sample.activity import Payments, PhoneEvents, simulate_chunk
from privacy_studio.core.sample.clock import Period
from privacy_studio.core.sample.layout import CityLayout, build_layout
from privacy_studio.core.sample.population import Population, draw_population, relocate

CHUNK_USERS = 20_000  # part of the output's definition: changing it changes the data for a seed
MOVERS_PER_PERIOD = 0.03  # share of people who move house between consecutive periods
MAX_USERS = 50_000_000
MAX_DAYS = 3_660

_LAYOUT, _PEOPLE, _EVENTS, _NAMES = range(4)  # random stream purposes
_Columnar = TypeVar("_Columnar", PhoneEvents, Payments)


@dataclass(frozen=True)
class CityParams:
    """What defines a generated city: same parameters, same data."""

    n_users: int
    days: int
    seed: int
    start: str = "2024-03-04"
    tz: str = "Europe/Paris"

    def __post_init__(self) -> None:
        if not 1 <= self.n_users <= MAX_USERS:
            raise ValueError(f"number of users must be between 1 and {MAX_USERS:,}, got {self.n_users}")
        if not 1 <= self.days <= MAX_DAYS:
            raise ValueError(f"number of days must be between 1 and {MAX_DAYS}, got {self.days}")
        if self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed}")
        self.period(0).bounds_utc()  # validates the start date and the time zone

    def period(self, index: int) -> Period:
        """The ``index``-th consecutive period of ``days`` days (0 = the first)."""
        return Period.starting(self.start, self.days, self.tz, offset_days=index * self.days)


@dataclass
class CityModel:
    """Everything fixed before events are drawn: geography, people and their pseudonyms."""

    params: CityParams
    layout: CityLayout
    population: Population
    user_ids: np.ndarray  # phone pseudonym per user code
    card_ids: np.ndarray  # card-holder pseudonym per user code (a different namespace)
    later_ids: np.ndarray  # pseudonym per user code in the periods after the first

    def n_chunks(self) -> int:
        """Number of fixed-size chunks of users the randomness is keyed by."""
        return -(-self.params.n_users // CHUNK_USERS)

    def chunk_users(self, chunk: int) -> slice:
        """User codes of one chunk."""
        return slice(chunk * CHUNK_USERS, min((chunk + 1) * CHUNK_USERS, self.params.n_users))

    def simulate(self, period: int, chunk: int) -> tuple[PhoneEvents, Payments]:
        """Phone events and card payments of one chunk of users in one period."""
        rng = np.random.default_rng([self.params.seed, _EVENTS, period, chunk])
        users = self.chunk_users(chunk)
        people = _slice(self.population, users)
        for _ in range(period):
            people = relocate(people, self.layout, MOVERS_PER_PERIOD, rng)
        return simulate_chunk(self.layout, people, users.start, self.params.period(period), rng)

    def locations(self) -> LocationTable:
        """The antennas as the studio's location table."""
        lay = self.layout
        return LocationTable(lay.antenna_ids, lay.lat, lay.lon, lay.x_km, lay.y_km)


def build_city(params: CityParams) -> CityModel:
    """Lay out the city and draw its people (cheap next to drawing their events)."""
    layout = build_layout(params.n_users, np.random.default_rng([params.seed, _LAYOUT]))
    n_chunks = -(-params.n_users // CHUNK_USERS)
    parts = []
    for chunk in range(n_chunks):
        size = min(CHUNK_USERS, params.n_users - chunk * CHUNK_USERS)
        rng = np.random.default_rng([params.seed, _PEOPLE, chunk])
        parts.append(draw_population(layout, size, params.n_users, rng))
    names = np.random.default_rng([params.seed, _NAMES])
    return CityModel(
        params=params,
        layout=layout,
        population=Population.concat(parts),
        user_ids=pseudonyms(params.n_users, names, "abcdef", base=16, digits=7),
        card_ids=pseudonyms(params.n_users, names, "C", base=10, digits=10),
        later_ids=pseudonyms(params.n_users, names, "abcdef", base=16, digits=9),
    )


def pseudonyms(n: int, rng: np.random.Generator, lead: str, base: int, digits: int) -> np.ndarray:
    """``n`` distinct random-looking ids: one character of ``lead`` then ``digits`` digits in ``base``.

    An affine bijection of 0..n-1 makes them distinct; the leading letter keeps spreadsheets and
    type-guessing CSV readers from taking them for numbers (and dropping leading zeros).
    """
    modulus = len(lead) * base**digits
    if n > modulus // 4:
        raise ValueError(f"{n} users do not fit in {digits}-digit pseudonyms")
    a = int(rng.integers(modulus // 3, modulus)) | 1
    while np.gcd(a, modulus) != 1:
        a += 2
    b = int(rng.integers(0, modulus))
    spec = f"0{digits}x" if base == 16 else f"0{digits}d"
    values = ((i * a + b) % modulus for i in range(n))
    return np.array([lead[v // base**digits] + format(v % base**digits, spec) for v in values])


def _slice(people: Population, users: slice) -> Population:
    """The people of a range of user codes."""
    return Population(**{k: v[users] for k, v in vars(people).items()})


@dataclass
class SimulatedCity:
    """A city with all its events in memory: phone events and card payments of each period."""

    model: CityModel
    periods: list[PhoneEvents]
    payments: list[Payments]

    def event_table(self, period: int = 0) -> EventTable:
        """The phone events of one period as the studio's :class:`EventTable` (ids of that period)."""
        ev, lay, params = self.periods[period], self.model.layout, self.model.params
        ids = self.model.user_ids if period == 0 else self.model.later_ids
        return EventTable(
            user=ev.user,
            time=ev.time,
            location=ev.location,
            user_ids=ids,
            location_ids=lay.antenna_ids,
            tz=params.tz,
            x_km=lay.x_km[ev.location],
            y_km=lay.y_km[ev.location],
            lat=lay.lat[ev.location],
            lon=lay.lon[ev.location],
            duration=ev.duration.astype(np.float64),
            interaction=ev.interaction,
            interaction_names=("call", "text"),
            direction=ev.direction,
            locations=self.model.locations(),
        )


def simulate_city(
    n_users: int,
    days: int,
    seed: int,
    start: str = "2024-03-04",
    tz: str = "Europe/Paris",
    *,
    periods: int = 1,
    control: TaskControl | None = None,
) -> SimulatedCity:
    """Simulate in memory (for benchmarks and tests); same data as :func:`generate_city` for equal inputs."""
    control = as_control(control)
    model = build_city(CityParams(n_users, days, seed, start, tz))
    events: list[list[PhoneEvents]] = [[] for _ in range(periods)]
    paid: list[list[Payments]] = [[] for _ in range(periods)]
    for step, (period, chunk) in enumerate(iter_steps(model, periods)):
        message = f"simulating period {period + 1}, users chunk {chunk + 1}"
        control.report(step / (periods * model.n_chunks()), message)
        calls, pay = model.simulate(period, chunk)
        events[period].append(calls)
        paid[period].append(pay)
    control.report(1.0, "simulated")
    return SimulatedCity(
        model, [_gather(PhoneEvents, e) for e in events], [_gather(Payments, p) for p in paid]
    )


def _gather(cls: type[_Columnar], parts: list[_Columnar]) -> _Columnar:
    """Concatenate chunk results column by column, freeing each chunk's column once copied (lower peak)."""
    columns = {}
    for f in fields(cls):
        columns[f.name] = np.concatenate([getattr(p, f.name) for p in parts])
        for p in parts:
            setattr(p, f.name, None)
    return cls(**columns)


def iter_steps(model: CityModel, periods: int) -> Iterator[tuple[int, int]]:
    """(period, chunk) pairs in the order the data is produced: chunk by chunk, periods inside."""
    for chunk in range(model.n_chunks()):
        for period in range(periods):
            yield period, chunk
