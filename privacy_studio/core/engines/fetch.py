"""A profile's generalized traces out of a SQL back end, as the in-memory engine's CSR :class:`Traces`.

The back end computes ``ps_gen(u, point, cnt)`` (distinct user-points, never events) out of core; this
module streams its rows in batches into two preallocated arrays, so Python holds 8 bytes per user-point
and one batch, then sorts each user's points. The traces are then measured by the numba kernels of the
in-memory engine, so both engines give the same numbers by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privacy_studio.core.engines.backend import SqlBackend
from privacy_studio.core.generalize import Profile, Traces, smallest_int
from privacy_studio.core.kernels.csr import (
    count_codes_into,
    count_distinct,
    merge_sorted_segments,
    scatter_rows,
    sort_segments,
)

#: Rows per fetched batch: a few MB of Arrow at a time.
BATCH_ROWS = 1 << 20


@dataclass(frozen=True)
class TraceShape:
    """What a profile's traces are besides their rows: units (ids, km centres), time and price bins."""

    n_units: int
    n_bins: int
    n_price_bins: int
    unit_ids: np.ndarray
    unit_xy: np.ndarray
    bin_origin: int


def user_lengths(engine: SqlBackend, n_users: int, profile: Profile, table: str = "ps_gen") -> np.ndarray:
    """Number of rows of every user code in ``table`` (0 for users without any), counted on the client
    from one streamed column: a ``GROUP BY u`` over 350M user-points (10M people) took 33 s of hash
    aggregation where reading the column takes a few."""
    lengths = np.zeros(n_users, dtype=np.int64)
    for batch in engine.batches(f"SELECT u FROM {table}", BATCH_ROWS):
        users = batch.column(0).to_numpy()
        check_codes(users, n_users, "user", profile)
        count_codes_into(lengths, users)
    return lengths


def check_codes(codes: np.ndarray, size: int, what: str, profile: Profile) -> None:
    """ValueError unless every code of one fetched batch is in 0 … ``size`` - 1: the kernels index arrays
    with them unchecked, so a code out of range would corrupt the traces or memory, not fail."""
    if len(codes) and (codes.min() < 0 or codes.max() >= size):
        bad = codes.min() if codes.min() < 0 else codes.max()
        raise ValueError(
            f"{profile.label}: the engine gave {what} code {int(bad):,}, outside the profile's {size:,} "
            f"{what}s (0 to {size - 1:,}); its generalized traces cannot be measured"
        )


def _changed_while_read() -> None:
    """The rows streamed and the users' counts read before them disagree (the table changed between the
    two reads: never expected); the traces are refused before any row lands outside its user's slots."""
    raise RuntimeError("the generalized traces changed while they were read")


def fetch_traces(
    engine: SqlBackend, profile: Profile, n_users: int, n_events: int, shape: TraceShape
) -> Traces:
    """``ps_gen`` as :class:`Traces` with the dtypes ``generalize`` gives (points ascending per user)."""
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    query = "SELECT u, point, cnt FROM ps_gen"
    if engine.collects_whole:  # the rows come whole anyway: count each user's from them, not in a query
        whole = engine.execute(query)
        users = whole.column("u").to_numpy()
        check_codes(users, n_users, "user", profile)
        np.cumsum(np.bincount(users, minlength=n_users), out=indptr[1:])
        batches = iter(whole.to_batches(BATCH_ROWS))
    else:
        np.cumsum(user_lengths(engine, n_users, profile), out=indptr[1:])
        batches = engine.batches(query, BATCH_ROWS)
    d = shape.n_units * shape.n_bins * shape.n_price_bins
    points = np.empty(indptr[-1], dtype=smallest_int(d - 1))
    counts = np.empty(indptr[-1], dtype=smallest_int(n_events))
    fill = indptr[:-1].copy()
    for batch in batches:
        cols = [batch.column(k).to_numpy() for k in ("u", "point", "cnt")]
        check_codes(cols[0], n_users, "user", profile)
        check_codes(cols[1], d, "place-and-time", profile)
        point = cols[1].astype(points.dtype, copy=False)
        if scatter_rows(fill, indptr[1:], cols[0], point, cols[2], points, counts) >= 0:
            _changed_while_read()
    if not np.array_equal(fill, indptr[1:]):
        _changed_while_read()
    sort_segments(indptr, points, counts)  # the in-memory CSR builder's kernel
    return _traces(profile, shape, indptr, points, counts)


def fetch_event_traces(
    engine: SqlBackend, profile: Profile, n_users: int, n_events: int, shape: TraceShape, sql: str
) -> Traces:
    """The traces of ``sql``'s rows, one ``(u, point)`` per event of ``ps_ev``, grouped on the client: each
    user's points are streamed into its own slots, sorted, and counted while the distinct ones are moved
    down in place; the same traces as fetching ``ps_gen`` (the rows grouped in SQL). At 10M people the
    events hardly group (421M events, 395M user-points): hashing them took DuckDB 65-85 s and ``ps_gen``
    was then read twice, where streaming the events' points and sorting each user's takes a fraction."""
    offsets = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(user_lengths(engine, n_users, profile, "ps_ev"), out=offsets[1:])
    d = shape.n_units * shape.n_bins * shape.n_price_bins
    keys = np.empty(offsets[-1], dtype=smallest_int(d - 1))
    fill, none = offsets[:-1].copy(), np.empty(0, dtype=np.int32)
    for batch in engine.batches(sql, BATCH_ROWS):
        users, points = (batch.column(k).to_numpy() for k in ("u", "point"))
        check_codes(users, n_users, "user", profile)
        check_codes(points, d, "place-and-time", profile)
        point = points.astype(keys.dtype, copy=False)
        if scatter_rows(fill, offsets[1:], users, point, none, keys, none) >= 0:
            _changed_while_read()
    if not np.array_equal(fill, offsets[1:]) or offsets[-1] != n_events:
        _changed_while_read()
    del fill
    sort_segments(offsets, keys, np.empty(0, dtype=np.int64))
    indptr = np.zeros(n_users + 1, dtype=np.int64)
    np.cumsum(count_distinct(offsets, keys), out=indptr[1:])
    counts = np.zeros(indptr[-1], dtype=smallest_int(n_events))
    merge_sorted_segments(offsets, keys, indptr, counts)
    keys.resize(indptr[-1], refcheck=False)  # ours alone: shrunk in place, no second copy
    return _traces(profile, shape, indptr, keys, counts)


def _traces(profile: Profile, shape: TraceShape, indptr, points, counts) -> Traces:
    """:class:`Traces` of the CSR arrays and the profile's shape."""
    return Traces(
        profile,
        indptr,
        points,
        counts,
        shape.n_units,
        shape.n_bins,
        shape.n_price_bins,
        shape.unit_ids,
        shape.unit_xy,
        shape.bin_origin,
    )
