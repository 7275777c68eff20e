"""Writing a synthetic city to a folder: events, the toolbox CDR layout, geography, cards, attributes.

Files are written chunk by chunk of users, so a million users never sit in memory at once; the same
parameters always give byte-identical files.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from privacy_studio import __version__
from privacy_studio.core.progress import TaskControl, as_control
from privacy_studio.core.sample.activity import Payments, PhoneEvents
from privacy_studio.core.sample.city import CHUNK_USERS, CityModel, CityParams, build_city, iter_steps
from privacy_studio.core.sample.layout import CITY_CENTRE, SHOP_CATEGORIES
from privacy_studio.core.sample.population import AGE_BANDS, CUSTOMER_TYPES, GENDERS, INCOME_BANDS
from privacy_studio.core.sample.writers import CsvSink, iso_times, take, write_per_group, write_table

EVENT_COLUMNS = ["user", "time", "location", "x_km", "y_km", "lat", "lon"]
CDR_COLUMNS = ["interaction", "direction", "correspondent_id", "datetime", "call_duration", "antenna_id"]
PER_USER_CDR_LIMIT = 10_000  # above this many users the CDR layout is one cdr.csv with a user column


@dataclass
class CityPaths:
    """Everything :func:`generate_city` wrote (``cdr_dir`` or ``cdr_file`` depending on the layout)."""

    root: Path
    events: Path
    antennas: Path
    hierarchy: Path
    attributes: Path
    transactions: Path
    shops: Path
    shop_hierarchy: Path
    card_truth: Path
    meta: Path
    readme: Path
    period2_events: Path | None = None
    period2_truth: Path | None = None
    cdr_dir: Path | None = None
    cdr_file: Path | None = None

    @classmethod
    def under(cls, root: Path, cdr_layout: str, periods: int) -> CityPaths:
        """The paths a city written to ``root`` will have."""
        return cls(
            root=root,
            events=root / "events.csv",
            antennas=root / "antennas.csv",
            hierarchy=root / "hierarchy.csv",
            attributes=root / "attributes.csv",
            transactions=root / "transactions.csv",
            shops=root / "shops.csv",
            shop_hierarchy=root / "shop_hierarchy.csv",
            card_truth=root / "link_truth.csv",
            meta=root / "meta.json",
            readme=root / "README.txt",
            period2_events=root / "period2" / "events.csv" if periods == 2 else None,
            period2_truth=root / "period2" / "link_truth.csv" if periods == 2 else None,
            cdr_dir=root / "cdr" if cdr_layout == "per-user" else None,
            cdr_file=root / "cdr.csv" if cdr_layout == "single" else None,
        )

    def files(self) -> list[Path]:
        """Every file written, cdr folder contents included, sorted."""
        found = [p for p in self.root.rglob("*") if p.is_file()]
        return sorted(found)


def generate_city(
    n_users: int,
    days: int,
    seed: int,
    out_dir: str | Path,
    start: str = "2024-03-04",
    tz: str = "Europe/Paris",
    control: TaskControl | None = None,
    *,
    cdr_layout: str = "auto",
    periods: int = 2,
) -> CityPaths:
    """Simulate ``n_users`` people over ``periods`` (1 or 2) periods of ``days`` days; write to ``out_dir``.

    ``cdr_layout`` is ``per-user`` (``cdr/<user>.csv``), ``single`` (``cdr.csv`` with a ``user`` column),
    ``none``, or ``auto`` (per-user up to 10,000 users, single above). ``meta.json`` is written last: a
    folder without it was interrupted (cancelled through ``control``) and is incomplete.
    """
    control = as_control(control)
    params = CityParams(n_users, days, seed, start, tz)
    if cdr_layout == "auto":
        cdr_layout = "per-user" if n_users <= PER_USER_CDR_LIMIT else "single"
    if cdr_layout not in ("per-user", "single", "none"):
        raise ValueError(f"CDR layout must be auto, per-user, single or none, not {cdr_layout!r}")
    if periods not in (1, 2):
        raise ValueError(f"number of periods must be 1 or 2, not {periods}")
    root = Path(out_dir)
    if root.exists() and not root.is_dir():
        raise ValueError(f"{root} exists and is not a folder")
    if root.exists() and any(root.iterdir()):
        raise ValueError(f"{root} is not empty: choose a new or empty output folder")
    paths = CityPaths.under(root, cdr_layout, periods)
    control.report(0.0, "laying out the city")
    model = build_city(params)
    _write_geography(model, paths)
    _write_attributes(model, paths)
    counts = _write_activity(model, paths, periods, control.sub(0.02, 0.99))
    _write_meta(model, paths, cdr_layout, periods, counts)
    control.report(1.0, f"wrote {root}")
    return paths


def _write_geography(model: CityModel, paths: CityPaths) -> None:
    """Antennas, their hierarchy, shops and the shops' hierarchy."""
    lay = model.layout
    write_table(paths.antennas, {"antenna_id": lay.antenna_ids, "latitude": lay.lat, "longitude": lay.lon})
    zips = lay.zip_code
    write_table(
        paths.hierarchy,
        {
            "antenna": lay.antenna_ids,
            "zip": lay.zip_ids[zips],
            "district": lay.district_ids[lay.district[zips]],
            "municipality": lay.municipality_ids[lay.municipality[lay.district[zips]]],
        },
    )
    shop_lat, shop_lon = CITY_CENTRE.inverse(lay.shop_x_km, lay.shop_y_km)
    write_table(
        paths.shops,
        {
            "shop_id": lay.shop_ids,
            "latitude": np.round(shop_lat, 6),
            "longitude": np.round(shop_lon, 6),
            "category": np.array(SHOP_CATEGORIES)[lay.shop_category],
        },
    )
    shop_zip = zips[lay.shop_antenna]
    write_table(
        paths.shop_hierarchy,
        {
            "shop": lay.shop_ids,
            "antenna": lay.antenna_ids[lay.shop_antenna],
            "zip": lay.zip_ids[shop_zip],
            "district": lay.district_ids[lay.district[shop_zip]],
            "municipality": lay.municipality_ids[lay.municipality[lay.district[shop_zip]]],
        },
    )


def _write_attributes(model: CityModel, paths: CityPaths) -> None:
    """One row of attributes per person, in user-code order."""
    pop = model.population
    write_table(
        paths.attributes,
        {
            "user_id": model.user_ids,
            "gender": take(np.array(GENDERS), pop.gender),
            "age_band": take(np.array(AGE_BANDS), pop.age_band),
            "income_band": take(np.array(INCOME_BANDS), pop.income_band),
            "customer_type": take(np.array(CUSTOMER_TYPES), pop.customer_type),
        },
    )


@dataclass
class _Columns:
    """Id and coordinate columns as Arrow arrays, converted once and gathered for every chunk."""

    users: pa.Array
    later_users: pa.Array
    cards: pa.Array
    antennas: pa.Array
    shops: pa.Array
    coordinates: dict[str, pa.Array]  # x_km, y_km, lat, lon per antenna

    @classmethod
    def of(cls, model: CityModel) -> _Columns:
        """Convert the model's id and coordinate arrays once."""
        lay = model.layout
        return cls(
            users=pa.array(model.user_ids),
            later_users=pa.array(model.later_ids),
            cards=pa.array(model.card_ids),
            antennas=pa.array(lay.antenna_ids),
            shops=pa.array(lay.shop_ids),
            coordinates={k: pa.array(getattr(lay, k)) for k in ("x_km", "y_km", "lat", "lon")},
        )

    def events(self, ev: PhoneEvents, users: pa.Array, tz: str) -> dict[str, pa.Array]:
        """Columns of ``events.csv`` for the given phone events, users named by ``users``."""
        coordinates = {k: take(v, ev.location) for k, v in self.coordinates.items()}
        return {
            "user": take(users, ev.user),
            "time": iso_times(ev.time, tz),
            "location": take(self.antennas, ev.location),
            **coordinates,
        }

    def cdr(self, ev: PhoneEvents, tz: str) -> dict[str, pa.Array]:
        """Columns of the toolbox CDR layout (plus ``user``) for the given phone events."""
        duration = np.nan_to_num(ev.duration, nan=0).astype(np.int64)
        return {
            "user": take(self.users, ev.user),
            "interaction": take(np.array(["call", "text"]), ev.interaction),
            "direction": take(np.array(["out", "", "in"]), ev.direction + 1),
            "correspondent_id": take(self.users, ev.correspondent),
            "datetime": iso_times(ev.time, tz, with_offset=False),
            "call_duration": pa.array(duration, mask=np.isnan(ev.duration)),
            "antenna_id": take(self.antennas, ev.location),
        }

    def payments(self, pay: Payments, tz: str) -> dict[str, pa.Array]:
        """Columns of ``transactions.csv`` for the given payments, under card pseudonyms."""
        return {
            "user_id": take(self.cards, pay.user),
            "shop": take(self.shops, pay.shop),
            "time": iso_times(pay.time, tz),
            "price": pa.array(pay.price),
        }


def _write_activity(model: CityModel, paths: CityPaths, periods: int, control: TaskControl) -> dict[str, int]:
    """Stream the periods chunk by chunk into their files; returns row counts."""
    tz, columns = model.params.tz, _Columns.of(model)
    with ExitStack() as files:

        def sink(path: Path | None, header: list[str]) -> CsvSink | None:
            """A CSV file closed with the others, or None when that file is not wanted."""
            return None if path is None else files.enter_context(CsvSink(path, header))

        events = files.enter_context(CsvSink(paths.events, EVENT_COLUMNS))
        payments = files.enter_context(CsvSink(paths.transactions, ["user_id", "shop", "time", "price"]))
        card_truth = files.enter_context(CsvSink(paths.card_truth, ["user", "card_user"]))
        later = sink(paths.period2_events, EVENT_COLUMNS)
        later_truth = sink(paths.period2_truth, ["user", "pseudonym"])
        cdr = sink(paths.cdr_file, ["user", *CDR_COLUMNS])
        active = {"period1": 0, "period2": 0, "card": 0}
        steps = periods * model.n_chunks()
        for step, (period, chunk) in enumerate(iter_steps(model, periods)):
            control.report(step / steps, f"period {period + 1}: users {chunk * CHUNK_USERS + 1:,}...")
            ev, pay = model.simulate(period, chunk)
            present, sizes = np.unique(ev.user, return_counts=True)
            if period == 0:
                events.write(columns.events(ev, columns.users, tz))
                active["period1"] += len(present)
                if cdr is not None:
                    cdr.write(columns.cdr(ev, tz))
                elif paths.cdr_dir is not None:
                    table = pa.table({name: columns.cdr(ev, tz)[name] for name in CDR_COLUMNS})
                    write_per_group(paths.cdr_dir, CDR_COLUMNS, table, model.user_ids[present], sizes)
                payments.write(columns.payments(pay, tz))
                holders = np.unique(pay.user)
                card_truth.write({"user": model.user_ids[holders], "card_user": model.card_ids[holders]})
                active["card"] += len(holders)
            elif later is not None and later_truth is not None:
                later.write(columns.events(ev, columns.later_users, tz))
                later_truth.write({"user": model.user_ids[present], "pseudonym": model.later_ids[present]})
                active["period2"] += len(present)
    control.report(1.0, "events written")
    counts = {
        "events_period1": events.rows,
        "transactions": payments.rows,
        "active_users_period1": active["period1"],
        "card_users": active["card"],
    }
    if later is not None:
        counts |= {"events_period2": later.rows, "active_users_period2": active["period2"]}
    return counts


def _write_meta(
    model: CityModel, paths: CityPaths, cdr_layout: str, n_periods: int, counts: dict[str, int]
) -> None:
    """``meta.json`` (parameters, periods, counts, files) and the same as ``README.txt``."""
    params, lay = model.params, model.layout
    periods = []
    for i in range(n_periods):
        period = model.params.period(i)
        lo, hi = period.bounds_utc()
        start, end = iso_times(np.array([lo, hi]), params.tz).to_pylist()
        periods.append({"start": start, "end_exclusive": end, "days": params.days})
    meta = {
        "generator": "privacy_studio.core.sample.generate_city",
        "studio_version": __version__,
        "parameters": {
            **asdict(params),
            "cdr_layout": cdr_layout,
            "periods": n_periods,
            "chunk_users": CHUNK_USERS,
        },
        "periods": periods,
        "counts": {
            "users": params.n_users,
            "antennas": lay.n_antennas,
            "zips": len(lay.zip_ids),
            "districts": len(lay.district_ids),
            "municipalities": len(lay.municipality_ids),
            "shops": len(lay.shop_ids),
            **counts,
        },
        "files": {name: _DESCRIPTIONS[name] for name in _described(paths)},
    }
    paths.meta.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    paths.readme.write_text(_readme(meta), encoding="utf-8")


_DESCRIPTIONS = {
    "events.csv": "calls and texts of period 1: user,time (ISO 8601, local),location,x_km,y_km,lat,lon",
    "antennas.csv": "antenna_id,latitude,longitude (WGS84)",
    "hierarchy.csv": "antenna,zip,district,municipality (each unit lies inside one unit of the next level)",
    "attributes.csv": "user_id,gender,age_band,income_band,customer_type (they shape behaviour)",
    "transactions.csv": "card payments of period 1: user_id (card pseudonym),shop,time,price (EUR)",
    "shops.csv": "shop_id,latitude,longitude,category",
    "shop_hierarchy.csv": "shop,antenna,zip,district,municipality (same unit ids as hierarchy.csv)",
    "link_truth.csv": "ground truth: user (phone id),card_user (card pseudonym) of the same person",
    "period2/events.csv": "calls and texts of period 2 (the next days), same columns, new pseudonyms",
    "period2/link_truth.csv": "ground truth: user (period-1 id),pseudonym (period-2 id) of the same person",
    "cdr.csv": "period 1 in the toolbox CDR layout with a leading user column; datetime is local wall-clock",
    "cdr": "period 1 in the toolbox CDR layout, one <user>.csv per user; datetime is local wall-clock",
}


def _described(paths: CityPaths) -> list[str]:
    """Names (relative to the output folder) of the files and folders written."""
    listed = [
        paths.events,
        paths.antennas,
        paths.hierarchy,
        paths.attributes,
        paths.transactions,
        paths.shops,
    ]
    listed += [paths.shop_hierarchy, paths.card_truth, paths.period2_events, paths.period2_truth]
    listed += [paths.cdr_dir, paths.cdr_file]
    return [p.relative_to(paths.root).as_posix() for p in listed if p is not None]


def _readme(meta: dict) -> str:
    """Plain-text summary of ``meta`` for people browsing the folder."""
    p, c = meta["parameters"], meta["counts"]
    lines = [
        "Synthetic city made by Privacy Studio (privacy-studio generate): fictional people, no real data.",
        "",
        f"Command: privacy-studio generate --users {p['n_users']} --days {p['days']} --seed {p['seed']} "
        f"--start {p['start']} --tz {p['tz']} --cdr-layout {p['cdr_layout']} --periods {p['periods']} "
        "--out DIR",
        f"Period 1: {meta['periods'][0]['start']} to {meta['periods'][0]['end_exclusive']} (exclusive).",
        f"{c['users']} users ({c['active_users_period1']} active in period 1), "
        f"{c['events_period1']} events in period 1, "
        f"{c['transactions']} card payments by {c['card_users']} card holders.",
        f"{c['antennas']} antennas, {c['zips']} ZIP areas, {c['districts']} districts, "
        f"{c['municipalities']} municipalities, {c['shops']} shops.",
        "",
        "Files:",
    ]
    lines += [f"  {name}: {text}" for name, text in meta["files"].items()]
    if "events_period2" in c:
        lines[4:4] = [f"Period 2: the next {p['days']} days, {c['events_period2']} events, new pseudonyms."]
    lines += [
        "",
        "Card payments use card pseudonyms (link_truth.csv maps phone ids to them); period 2, when written,",
        "uses fresh pseudonyms (period2/link_truth.csv). Truth files list only people present in both files.",
    ]
    return "\n".join(lines) + "\n"
