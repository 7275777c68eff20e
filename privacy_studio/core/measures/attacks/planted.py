"""Two event tables of the same people with known identities, for testing and benchmarking the attacks.

Every person has a few favourite places and hours; both tables draw that person's events independently
from the same habits, so the true pairs are the users with equal ids.
"""

from __future__ import annotations

import numpy as np

from privacy_studio.core.events import EventTable, LocationTable, build_event_table

T0 = 1_704_067_200  # 2024-01-01 00:00 UTC, a Monday
WEEK = 7 * 86400


def planted_pair(
    n_users: int,
    *,
    n_locations: int = 50,
    places: int = 3,
    hours: int = 6,
    events: int = 30,
    shift_weeks: int = 0,
    seed: int = 0,
) -> tuple[EventTable, EventTable]:
    """(identified, anonymous) tables; the anonymous one starts ``shift_weeks`` weeks later."""
    rng = np.random.default_rng(seed)
    fav_places = rng.integers(0, n_locations, size=(n_users, places))
    fav_hours = rng.integers(0, 168, size=(n_users, hours))
    coords = rng.uniform(0.0, 20.0, size=(n_locations, 2))
    loc_ids = np.asarray([f"L{i:04d}" for i in range(n_locations)])
    table = LocationTable(loc_ids, np.full(n_locations, np.nan), np.full(n_locations, np.nan), *coords.T)

    def draw(offset: int) -> EventTable:
        user = np.repeat(np.arange(n_users), events)
        place = fav_places[user, rng.integers(0, places, size=len(user))]
        hour = fav_hours[user, rng.integers(0, hours, size=len(user))]
        time = T0 + offset + hour * 3600 + rng.integers(0, 3600, size=len(user))
        ids = np.char.add("p", user.astype(str))
        return build_event_table(
            ids, time, loc_ids[place], locations=table, x_km=coords[place, 0], y_km=coords[place, 1]
        )

    return draw(0), draw(shift_weeks * WEEK)
