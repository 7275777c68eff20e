"""What must agree between engines, and small random event tables with every feature the plan handles."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from privacy_studio.core.engines import EventFiles, open_engine
from privacy_studio.core.engines.ingest import load_files
from privacy_studio.core.events import LocationTable, build_event_table
from privacy_studio.core.geo import LocalProjection
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.progress import TaskControl
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings

#: 2024-03-31 01:00 UTC: clocks in Europe/Paris jump from 02:00 to 03:00.
DST_CHANGE = 1711846800


#: What only the numba engine computes (issue #25): exact rows where cheap, the file's counts, and a worst
#: case from the targeted search, never below the relational engines' draws-and-rarest-first bound
#: (:func:`assert_worst_at_least`).
NUMBA_ONLY = ("worst_mean", "worst_share_at_1", "worst_exact", "method", "n_excluded_in_file",
              "unicity_all_points")  # fmt: skip


def comparable(result: ProfileResult | dict) -> dict:
    """Everything that follows from the sampled class sizes (EM/KL, timings, index memory and what only the
    numba engine computes excluded)."""
    d = result.to_dict() if isinstance(result, ProfileResult) else dict(result)
    drop = ("em", "kl", "em_users", *NUMBA_ONLY)
    by_p = [{k: v for k, v in r.items() if k not in drop} for r in d["by_p"]]
    per_user = {k: d["per_user"].get(k) for k in ("user_ids", "unique_rate")}
    keep = ("spatial", "temporal", "label", "n_users", "d", "nnz", "fill_rate", "n_events", "kanon")
    return {**{k: d[k] for k in keep}, "by_p": by_p, "per_user": per_user}


def assert_worst_at_least(numba: ProfileResult | dict, other: ProfileResult | dict) -> None:
    """Per sampled person, the numba engine's worst-case bound is at least the other engine's (its search
    starts from the same draws and rarest-first subset), so its share at risk 1 is too."""
    a = numba.to_dict() if isinstance(numba, ProfileResult) else numba
    b = other.to_dict() if isinstance(other, ProfileResult) else other
    assert a["per_user"]["user_ids"] == b["per_user"]["user_ids"]
    for x, y in zip(a["per_user"]["worst"] or [], b["per_user"]["worst"] or [], strict=True):
        assert x >= y - 1e-12
    for ra, rb in zip(a["by_p"], b["by_p"], strict=True):
        if ra.get("worst_share_at_1") is not None:
            assert ra["worst_share_at_1"] >= rb["worst_share_at_1"] - 1e-12


def random_city(seed: int, n_users: int, n_locations: int, mean_events: float, tz: str = "Europe/Paris"):
    """Events at ``n_locations`` places with coordinates, over two days around the spring DST change,
    with a two-level hierarchy; popular and rare places, some users with one event only."""
    rng = np.random.default_rng(seed)
    lat = 45.7 + rng.random(n_locations) * 0.2
    lon = 4.8 + rng.random(n_locations) * 0.3
    ids = np.asarray([f"L{j:03d}" for j in range(n_locations)])
    proj = LocalProjection.centred_on(lat, lon)
    locations = LocationTable(ids, lat, lon, *proj.forward(lat, lon))
    weights = 1.0 / np.arange(1, n_locations + 1)
    users, times, locs = [], [], []
    for u in range(n_users):
        k = max(1, int(rng.poisson(mean_events)))
        users += [f"user{rng.integers(0, 10**6):06d}-{u}"] * k
        times += (DST_CHANGE + rng.integers(-86400, 86400, size=k)).tolist()
        locs += ids[rng.choice(n_locations, size=k, p=weights / weights.sum())].tolist()
    codes = np.asarray([int(x[1:]) for x in locs])
    events = build_event_table(
        np.asarray(users),
        np.asarray(times),
        np.asarray(locs),
        tz=tz,
        locations=locations,
        x_km=locations.x_km[codes],
        y_km=locations.y_km[codes],
    )
    zones = np.asarray([f"z{j % 4}" for j in range(n_locations)])
    regions = np.asarray([f"r{j % 2}" for j in range(n_locations)])
    return events, Hierarchy.from_mapping(ids, "antenna", {"zone": zones, "region": regions})


def cell_settings(cells: list[tuple[str, str]], **kwargs: object) -> RiskSettings:
    """Settings of the random-data equivalence tests: checked cells, p = 1, 2, 3, 5, details at p = 2."""
    return RiskSettings(
        exact_budget=0, spatial=[], temporal=[], cells=cells, p_values=[1, 2, 3, 5], reference_p=2, **kwargs
    )


def disclosure(result) -> list[float]:
    """EM/KL at every p, per sampled user and per spatial unit, in one list (NaN for None).

    Unit centres are left out: the in-memory runner averages the finer units' centres when it derives a
    coarser level, the relational engines average the locations (see :func:`unit_centres`)."""
    values = [r.em for r in result.by_p] + [r.kl for r in result.by_p]
    values += result.per_user["em"] + result.per_user["kl"] + result.per_location["em"]
    return [float("nan") if v is None else v for v in values]


def unit_centres(result) -> list[float]:
    """The km centres of the spatial units in ``per_location`` (NaN for None)."""
    loc = result.per_location
    return [float("nan") if v is None else v for v in loc["x_km"] + loc["y_km"]]


def disclosure_labels(result) -> tuple:
    """What of the EM/KL results must be equal exactly: how many users and which units."""
    return [r.em_users for r in result.by_p], len(result.per_user["em"]), result.per_location["unit_ids"]


class DatasetOf:
    """The Dataset fields the engines read (events and hierarchy)."""

    def __init__(self, events, hierarchy):
        self.events, self.hierarchy = events, hierarchy


#: Wall-clock seconds (as if UTC) of 2024 clock changes: Paris forward and back, New York forward,
#: Lord Howe Island's half-hour change back (02:00 → 01:30), Apia's skipped day (2011-12-30).
CLOCK_CHANGES = {
    "Europe/Paris": ["2024-03-31T02:00:00", "2024-10-27T02:00:00"],
    "America/New_York": ["2024-03-10T02:00:00"],
    "Australia/Lord_Howe": ["2024-04-07T01:30:00"],
    "Australia/Adelaide": ["2024-04-07T03:00:00", "2024-10-06T02:00:00"],  # at hh:30 UTC
    "Pacific/Chatham": ["2024-04-07T03:45:00", "2024-09-29T02:45:00"],  # +12:45 / +13:45
    "Pacific/Apia": ["2011-12-29T23:00:00"],
}


def wall(text: str) -> int:
    """Wall-clock seconds of an ISO local time, counted as if it were UTC."""
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp())


def naive_time_files(tmp_path: Path, local: np.ndarray) -> tuple[Path, Path]:
    """The same events as naive ISO text (CSV) and as naive Parquet timestamps."""
    users = [f"u{i % 7}" for i in range(len(local))]
    stamps = pa.array(local, pa.timestamp("s"))
    text = [dt.datetime.fromtimestamp(int(x), dt.UTC).strftime("%Y-%m-%d %H:%M:%S") for x in local]
    csv, parquet = tmp_path / "events.csv", tmp_path / "events.parquet"
    pacsv.write_csv(pa.table({"user": users, "time": text, "location": ["A"] * len(local)}), csv)
    pq.write_table(pa.table({"user": users, "time": stamps, "location": ["A"] * len(local)}), parquet)
    return csv, parquet


def engine_times(engine_name: str, path: Path, options: ReaderOptions) -> list[tuple[str, int]]:
    """(user id, UTC second) of every event the engine kept, sorted."""
    with open_engine(engine_name) as engine:
        loaded = load_files(engine, EventFiles(str(path), options), TaskControl())
        table = engine.execute("SELECT u, t FROM ps_ev")
        users = loaded.user_ids(table.column("u").to_numpy())
    return sorted(zip(users.tolist(), table.column("t").to_pylist(), strict=True))


def reader_times(path: Path, options: ReaderOptions) -> list[tuple[str, int]]:
    """(user id, UTC second) of every event the reader kept, sorted."""
    events = load_dataset(str(path), options).events
    return sorted(zip(events.user_ids[events.user].tolist(), events.time.tolist(), strict=True))
