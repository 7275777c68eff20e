"""Numeric per-user attributes derived from events, the table that masking and record linkage work on."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import unique_pairs


def user_features(events: EventTable) -> pd.DataFrame:
    """One row per user (index = user id): events, active days, distinct places, and when the data allows,
    radius of gyration and home coordinates in km (home = the place with most events), and total spend.
    """
    n = events.n_users
    if events.n_events == 0:
        raise ValueError("the dataset has no events, so no per-user attributes can be derived")
    user = events.user.astype(np.int64)
    out: dict[str, np.ndarray] = {"events": np.bincount(user, minlength=n).astype(np.float64)}
    day = events.local_time() // 86400
    out["active_days"] = _distinct_per_user(user, day, n)
    place = events.location.astype(np.int64)
    if (place >= 0).all():
        out["distinct_places"] = _distinct_per_user(user, place, n)
    if events.has_coordinates() and np.isfinite(events.x_km).all() and np.isfinite(events.y_km).all():
        x, y = events.x_km, events.y_km
        counts = out["events"]
        mx = np.bincount(user, weights=x, minlength=n) / counts
        my = np.bincount(user, weights=y, minlength=n) / counts
        sq = np.bincount(user, weights=(x - mx[user]) ** 2 + (y - my[user]) ** 2, minlength=n) / counts
        out["radius_of_gyration_km"] = np.sqrt(sq)
        home = _most_frequent_row(
            user, place if (place >= 0).all() else np.round(x * 1000) * 1e7 + np.round(y * 1000)
        )
        out["home_x_km"], out["home_y_km"] = x[home], y[home]
    if events.amount is not None and np.isfinite(events.amount).all():
        out["spend"] = np.bincount(user, weights=events.amount, minlength=n)
    return pd.DataFrame(out, index=pd.Index(events.user_ids, name="user_id"))


def _distinct_per_user(user: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    pairs, _ = unique_pairs(user, key)
    return np.bincount(pairs[:, 0].astype(np.int64), minlength=n).astype(np.float64)


def _most_frequent_row(user: np.ndarray, key: np.ndarray) -> np.ndarray:
    """For every user, one event row at the user's most frequent key (ties: the smallest key)."""
    order = np.lexsort((key, user))
    u, k = user[order], key[order]
    start = np.r_[True, (u[1:] != u[:-1]) | (k[1:] != k[:-1])]
    run_start = np.flatnonzero(start)
    run_len = np.diff(np.r_[run_start, len(u)])
    run_user = u[run_start]
    # Longest run per user; on equal length the first (smallest key) wins.
    best = np.lexsort((np.arange(len(run_start)), -run_len, run_user))
    first_of_user = np.r_[True, run_user[best][1:] != run_user[best][:-1]]
    return order[run_start[best[first_of_user]]]


#: Names of a column that identifies the person (``attack features`` writes ``user_id``): never an attribute.
ID_COLUMNS = ("user_id", "user", "uid")


def default_columns(frame: pd.DataFrame) -> list[str]:
    """Every column but a person identifier (``user_id`` …), which is copied unchanged: what is masked or
    compared when no columns are named, so the table ``attack features`` writes is ready as it is."""
    return [c for c in frame.columns if str(c).strip().lower() not in ID_COLUMNS]


def read_numeric_table(path: str, columns: list[str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """A CSV file and the names of the numeric attributes to use (every column but a person identifier,
    unless ``columns`` is given).

    Raise ``ValueError`` naming the file and column when a chosen column is missing, not numeric or empty.
    """
    try:
        frame = pd.read_csv(path)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    chosen = default_columns(frame) if columns is None else columns
    missing = [c for c in chosen if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: no column {missing[0]!r} (columns are {', '.join(map(str, frame.columns))})"
        )
    for c in chosen:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            hint = "" if columns else "; choose the numeric ones with --columns"
            raise ValueError(f"{path}: column {c!r} is not numeric{hint}")
        if frame[c].isna().any():
            row = int(np.flatnonzero(frame[c].isna().to_numpy())[0]) + 2
            raise ValueError(f"{path}: column {c!r} has an empty value on line {row}")
    if not chosen or frame.empty:
        raise ValueError(f"{path}: no records or no numeric attributes to use")
    return frame, [str(c) for c in chosen]
