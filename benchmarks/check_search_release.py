"""Recompute, with pandas alone (no studio code), the figures the protection search promised for a release.

Reads the released file (``user``, ``time``, ``location`` per row) and, for the utility, the raw Gowalla
check-ins; prints and writes (``--json``) the people and rows released, the smallest class of identical
whole records (k) and the share of unique ones, exact unicity and the share at worst-case risk 1 at p (every
p-subset of every record with at least p rows, against everyone's records), and "points kept": 10 × rows
released / distinct (person, 1 km square, hour) points of the raw data (the grid's finest profile), the
squares from the same local equirectangular projection centred on the mean coordinates.

    .venv/bin/python benchmarks/check_search_release.py r.csv --raw gowalla_events_nyc.tsv.gz --p 4
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

EARTH_RADIUS_KM = 6371.0088


def records(path: Path) -> dict[str, frozenset]:
    """Each person's record: the set of their rows over every column but the pseudonym."""
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    others = [c for c in df.columns if c != "user"]
    rows = df[others].agg("\x1f".join, axis=1)
    return {user: frozenset(group) for user, group in rows.groupby(df["user"])}


def exact_at_p(people: dict[str, frozenset], p: int) -> tuple[int, int, int, int]:
    """(people with ≥ p rows, p-subsets unique to their owner, people with at least one such subset,
    p-subsets in all)."""
    holders: dict[str, set] = defaultdict(set)
    for user, rows in people.items():
        for row in rows:
            holders[row].add(user)
    eligible = [u for u, rows in people.items() if len(rows) >= p]
    unique_draws = worst = 0
    total = 0
    for user in eligible:
        any_unique = False
        for subset in combinations(sorted(people[user]), p):
            total += 1
            shared = set.intersection(*(holders[row] for row in subset))
            if len(shared) == 1:
                unique_draws += 1
                any_unique = True
        worst += any_unique
    return len(eligible), unique_draws, worst, total


def finest_points(raw: Path, km: float, hour_seconds: int = 3600) -> int:
    """Distinct (person, km square, hour) of the raw headerless check-ins (user, time, lat, lon, place)."""
    df = pd.read_csv(raw, sep="\t", header=None, names=["user", "time", "lat", "lon", "place"])
    lat0, lon0 = df["lat"].mean(), df["lon"].mean()
    k = np.pi / 180.0 * EARTH_RADIUS_KM
    x = (df["lon"] - lon0) * k * np.cos(np.radians(lat0))
    y = (df["lat"] - lat0) * k
    epoch = pd.Timestamp("1970-01-01", tz="UTC")
    seconds = (pd.to_datetime(df["time"], utc=True) - epoch) // pd.Timedelta(seconds=1)
    keys = pd.DataFrame(
        {"u": df["user"], "cx": np.floor(x / km), "cy": np.floor(y / km), "h": seconds // hour_seconds}
    )
    return len(keys.drop_duplicates())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("--raw", type=Path, required=True, help="the raw Gowalla TSV (gz)")
    parser.add_argument("--p", type=int, default=4)
    parser.add_argument("--finest-km", type=float, default=1.0)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    people = records(args.release)
    sizes = pd.Series(list(people.values())).map(pd.Series(list(people.values())).value_counts())
    eligible, unique_draws, worst, total = exact_at_p(people, args.p)
    rows = sum(len(r) for r in people.values())
    finest = finest_points(args.raw, args.finest_km)
    figures = {
        "people": len(people),
        "rows": rows,
        "k": int(sizes.min()),
        "unique_share": float((sizes == 1).mean()),
        "p": args.p,
        "people_with_p_points": eligible,
        "p_subsets": total,
        "unicity_exact": unique_draws / total if total else None,
        "worst_share_at_1": worst / eligible if eligible else None,
        "finest_points": finest,
        "points_kept": 10 * rows / finest,
    }
    for key, value in figures.items():
        print(f"{key:<22}{value}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
