"""Exact unicity of card payments with and without the amount, computed with pandas and plain Python only —
no studio code — to check ``privacy-studio risk --price … --exact`` (issue #28).

Points are (place, local day[, amount class]): the place is the shop or its district (from the hierarchy
file), the day is the payment's calendar date in the given zone, and the amount class of a positive price
``a`` with ``n`` bins per factor of ten is the whole number ``k`` with 10^(k/n) <= a < 10^((k+1)/n), decided
in exact decimal arithmetic on the price as written. A person with at least p points is unique on a p-subset
A of their points when nobody else has all of A; their unicity is the share of their p-subsets on which they
are unique, and the figure is the mean over these people (people with fewer than p points are left out and
counted). Instead of enumerating subsets, a person's non-unique subsets are the union, over every other
person v, of the p-subsets of the points they share with v: pairs sharing at least p points come from a
pandas self-join on the points.

    python benchmarks/check_price_unicity.py sample_data/transactions.csv \
        --hierarchy sample_data/shop_hierarchy.csv --tz Europe/Paris --p 4
"""

from __future__ import annotations

import argparse
from decimal import Decimal, localcontext
from itertools import combinations
from math import comb

import pandas as pd


def amount_class(price: str, n: int) -> int:
    """k with 10^(k/n) <= price < 10^((k+1)/n), in exact decimals (positive prices only)."""
    with localcontext() as ctx:
        ctx.prec = 60
        value = Decimal(price)
        k = 0
        while value < Decimal(10) ** (Decimal(k) / n):
            k -= 1
        while value >= Decimal(10) ** (Decimal(k + 1) / n):
            k += 1
        return k


def points(payments: pd.DataFrame, place: str, n: int | None) -> pd.DataFrame:
    """Distinct (user, point) rows: the point is a tuple (place, day[, amount class])."""
    key = [place, "day"] + ([] if n is None else ["amount_class"])
    frame = payments.copy()
    if n is not None:
        classes = {p: amount_class(p, n) for p in frame["price"].unique()}
        frame["amount_class"] = frame["price"].map(classes)
    frame["point"] = list(zip(*(frame[c] for c in key), strict=True))
    return frame[["user_id", "point"]].drop_duplicates()


def exact_unicity(user_points: pd.DataFrame, p: int) -> tuple[float, int, int]:
    """(mean unique share over people with >= p points, people included, people excluded)."""
    traces = user_points.groupby("user_id")["point"].agg(frozenset)
    pairs = user_points.merge(user_points, on="point")
    pairs = pairs[pairs["user_id_x"] != pairs["user_id_y"]]
    shared = pairs.groupby(["user_id_x", "user_id_y"])["point"].agg(frozenset)
    shared = shared[shared.map(len) >= p]
    by_user: dict[str, list[frozenset]] = {}
    for (u, _v), common in shared.items():
        by_user.setdefault(u, []).append(common)
    shares = []
    for u, trace in traces.items():
        if len(trace) < p:
            continue
        covered = {frozenset(c) for common in by_user.get(u, []) for c in combinations(sorted(common), p)}
        shares.append(1.0 - len(covered) / comb(len(trace), p))
    return sum(shares) / len(shares), len(shares), len(traces) - len(shares)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("transactions")
    parser.add_argument("--hierarchy", required=True)
    parser.add_argument("--tz", default="UTC")
    parser.add_argument("--p", type=int, default=4)
    args = parser.parse_args()
    payments = pd.read_csv(args.transactions, dtype={"price": str, "user_id": str, "shop": str})
    places = pd.read_csv(args.hierarchy, dtype=str)
    payments = payments.merge(places[["shop", "district"]], on="shop", how="left")
    local = pd.to_datetime(payments["time"], utc=True).dt.tz_convert(args.tz)
    payments["day"] = local.dt.date
    if (payments["price"].astype(float) <= 0).any():
        raise SystemExit("this check handles positive prices only")
    print(f"{'places':<10} {'amount':<22} {'unicity':>11} {'people':>7} {'excluded':>9}")
    for place in ("shop", "district"):
        for n in (None, 3, 1):
            value, included, excluded = exact_unicity(points(payments, place, n), args.p)
            amount = "not released" if n is None else f"{n} bin(s) per factor 10"
            print(f"{place:<10} {amount:<22} {value:>11.9f} {included:>7} {excluded:>9}")


if __name__ == "__main__":
    main()
