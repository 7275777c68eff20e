"""The SQL text of the relational risk plan, written once for every engine (see docs/engines.md).

Tables the plan reads and writes (all names start with ``ps_``):

* ``ps_ev(u, t, loc, x, y)``: one row per kept event; ``u`` the user code (rank of the user id), ``t`` UTC
  epoch seconds, ``loc`` the location code (-1 when the event has coordinates only), ``x, y`` km or NULL.
* ``ps_tz(h, split, off_before, off_after)``: the zone's UTC offset (seconds) in every UTC hour ``h``,
  ``off_before`` until ``split`` seconds into the hour and ``off_after`` from then (``hourly_offset_pieces``).
* ``ps_units(loc, unit)``: the spatial unit of every location code at a hierarchy level.
* ``ps_gen(u, point, cnt)``: a profile's generalized traces, exactly the in-memory ``Traces`` (CSR) as rows;
  ``fetch.py`` streams them into that CSR for the in-memory kernels.

The :class:`Dialect` holds the few expressions that differ between DuckDB and Spark SQL.
"""

from __future__ import annotations

from dataclasses import dataclass

from privacy_studio.core.generalize import MONDAY_EPOCH

#: Suffix of an ISO 8601 time that carries its own UTC offset (``Z``, ``+01:00``, ``-0500``).
OFFSET_PATTERN = r"(Z|z|[+-][0-9][0-9](:?[0-9][0-9])?)$"


@dataclass(frozen=True)
class Dialect:
    """SQL expressions that differ between engines; everything else in the plan is common SQL."""

    name: str

    def epoch_seconds(self, text: str) -> str:
        """Epoch seconds written as a number (``1709639519`` or ``1709639519.5``, floored), else NULL."""
        return f"CAST(floor(TRY_CAST({text} AS DOUBLE)) AS BIGINT)"

    def matches(self, text: str, pattern: str) -> str:
        """True when ``text`` contains a match of the regular expression ``pattern`` (given unquoted)."""
        if self.name == "spark":  # Spark string literals read backslash escapes: keep the pattern's own
            return f"regexp_like({text}, {quote(pattern.replace(chr(92), chr(92) * 2))})"
        return f"regexp_matches({text}, {quote(pattern)})"

    def epoch_ms(self, timestamp: str) -> str:
        """Milliseconds since 1970 of a TIMESTAMP expression (e.g. a Parquet time column)."""
        return f"unix_millis({timestamp})" if self.name == "spark" else f"epoch_ms({timestamp})"

    def iso_seconds(self, text: str) -> tuple[str, str]:
        """(UTC epoch seconds of an ISO 8601 time with an offset, wall-clock seconds of one without)."""
        offset = self.matches(text, OFFSET_PATTERN)
        if self.name == "spark":
            seconds = f"unix_timestamp(try_to_timestamp({text}))"
            return f"CASE WHEN {offset} THEN {seconds} END", f"CASE WHEN NOT {offset} THEN {seconds} END"
        aware = floor_div(f"epoch_ms(TRY_CAST({text} AS TIMESTAMPTZ))", 1000)
        naive = floor_div(f"epoch_ms(TRY_CAST({text} AS TIMESTAMP))", 1000)
        return f"CASE WHEN {offset} THEN {aware} END", f"CASE WHEN NOT {offset} THEN {naive} END"


def floor_div(a: str, b: float | int) -> str:
    """``floor(a / b)`` as BIGINT, divided in doubles like numpy does for km; exact for integers below 2^53
    (epoch seconds, points). The divisor is cast: Spark reads ``3600.0`` as a DECIMAL, and dividing in
    decimals made every generalizing query several times slower."""
    return f"CAST(floor(({a}) / CAST({float(b)!r} AS DOUBLE)) AS BIGINT)"


DUCKDB = Dialect("duckdb")
SPARK = Dialect("spark")


def quote(text: str) -> str:
    """A SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def ident(name: str) -> str:
    """A quoted SQL identifier (column names from files may hold spaces or keywords)."""
    return '"' + str(name).replace('"', '""') + '"'


# -- generalization ----------------------------------------------------------------------------------------


def by_user_sql() -> str:
    """``ps_by_user``: the parsed rows per user id and rejection reason (NULL: kept), with their number and
    first and last time. One pass over the input gives the rejection counts, the users to code, and the
    number of events and period of ``ps_ev``, which holds exactly the kept rows."""
    return (
        "SELECT uid, reason, CAST(count(*) AS BIGINT) AS n, min(t) AS t0, max(t) AS t1 "
        "FROM ps_rows GROUP BY uid, reason"
    )


def local_time_sql(with_tz: bool) -> str:
    """Wall-clock seconds of each event: UTC plus the zone's offset at that second (``to_local_seconds``)."""
    if not with_tz:
        return "e.t"
    return "e.t + CASE WHEN e.t - z.h * 3600 < z.split THEN z.off_before ELSE z.off_after END"


def local_join(with_tz: bool) -> str:
    """The join adding the offset pieces of each event's UTC hour to ``ps_ev e`` (nothing for UTC)."""
    if not with_tz:
        return ""
    return f" JOIN ps_tz z ON z.h = {floor_div('e.t', 3600)}"


def local_range_sql(with_tz: bool, t0: int, t1: int, slack: int) -> str:
    """First and last wall-clock second of the events (bins are aligned from them, as ``time_bins``), whose
    UTC times span ``t0..t1``. Offsets differ by at most ``slack`` seconds over that period, so only events
    within ``slack`` of either end can be the local extremes (as the in-memory ``local_range`` reasons):
    only those few are joined with the offsets, after one filtered scan of ``ps_ev``'s times."""
    local = local_time_sql(with_tz)
    near_ends = f"e.t <= {int(t0) + int(slack)} OR e.t >= {int(t1) - int(slack)}"
    ends = f"(SELECT t FROM ps_ev WHERE {near_ends.replace('e.t', 't')}) e"
    return f"SELECT min({local}) AS lo, max({local}) AS hi FROM {ends}{local_join(with_tz)}"


def bin_expr(with_tz: bool, width: int | None, origin: int) -> str:
    """The time bin of ``e``: ``floor((local - origin) / width)``, or 0 for one bin over the period."""
    if width is None:
        return "CAST(0 AS BIGINT)"
    return floor_div(f"{local_time_sql(with_tz)} - {origin}", width)


def bins_of_range(lo: int, hi: int, width: int | None) -> tuple[int, int]:
    """(origin, n_bins) for local times ``lo..hi``, aligned to Monday midnight as ``time_bins`` does."""
    if width is None:
        return 0, 1
    first = (lo - MONDAY_EPOCH) // width
    last = (hi - MONDAY_EPOCH) // width
    return MONDAY_EPOCH + first * width, last - first + 1


def grid_cells_sql(km: float, with_locations: bool) -> str:
    """Every km-grid cell holding an event or a known location, numbered in (cx, cy) order from 0."""
    cx, cy = floor_div("x", km), floor_div("y", km)
    parts = [f"SELECT DISTINCT {cx} AS cx, {cy} AS cy FROM ps_ev"]
    if with_locations:
        parts.append(f"SELECT {cx} AS cx, {cy} AS cy FROM ps_loc WHERE x IS NOT NULL AND y IS NOT NULL")
    cells = " UNION ".join(parts)
    return f"SELECT cx, cy, CAST(row_number() OVER (ORDER BY cx, cy) - 1 AS BIGINT) AS unit FROM ({cells}) c"


def raw_cells_sql() -> str:
    """Distinct coordinate pairs numbered in (x, y) order: the raw units without ids (exact identity)."""
    return (
        "SELECT rx, ry, CAST(row_number() OVER (ORDER BY rx, ry) - 1 AS BIGINT) AS unit FROM "
        "(SELECT DISTINCT x AS rx, y AS ry FROM ps_ev) c"
    )


def magnitude_guess(per_decade: int) -> str:
    """floor(per_decade · log10 |a|) of a non-zero amount (NULL for 0): its class, or one off at an edge."""
    return f"CAST(floor({int(per_decade)} * log10(CASE WHEN e.a <> 0 THEN abs(e.a) END)) AS BIGINT)"


def price_guess_sql(per_decade: int) -> str:
    """The range of the guessed classes and the number of missing amounts (``ps_pedge`` is built from it)."""
    guess = magnitude_guess(per_decade)
    return (
        f"SELECT min({guess}) AS lo, max({guess}) AS hi, "
        "CAST(sum(CASE WHEN e.a IS NULL THEN 1 ELSE 0 END) AS BIGINT) AS missing FROM ps_ev e"
    )


#: ``ps_pedge(k, lo, hi)`` joined on every event's guessed class: its edges settle the class.
PRICE_JOIN = " LEFT JOIN ps_pedge pe ON pe.k = {guess}"


def magnitude_class() -> str:
    """The exact class k of ``|e.a|`` (``price_edge(k) <= |a| < price_edge(k + 1)``) from the joined edges."""
    return (
        "pe.k - CASE WHEN abs(e.a) < pe.lo THEN 1 ELSE 0 END + CASE WHEN abs(e.a) >= pe.hi THEN 1 ELSE 0 END"
    )


def price_layout_sql(per_decade: int) -> str:
    """Smallest and largest class of the positive amounts and of the refunds, and the number of zeros."""
    k = magnitude_class()
    join = PRICE_JOIN.format(guess=magnitude_guess(per_decade))
    return (
        f"SELECT min(CASE WHEN e.a > 0 THEN {k} END) AS pos_lo, "
        f"max(CASE WHEN e.a > 0 THEN {k} END) AS pos_hi, "
        f"min(CASE WHEN e.a < 0 THEN {k} END) AS neg_lo, max(CASE WHEN e.a < 0 THEN {k} END) AS neg_hi, "
        f"CAST(sum(CASE WHEN e.a = 0 THEN 1 ELSE 0 END) AS BIGINT) AS zeros FROM ps_ev e{join}"
    )


def price_bin_expr(n_negative: int, zero: bool, pos_lo: int, neg_hi: int) -> str:
    """The price bin of ``e`` as ``generalize.price_bins`` numbers it: refunds largest first, 0, positives."""
    k = magnitude_class()
    first_pos = n_negative + int(zero)
    return (
        f"CASE WHEN e.a > 0 THEN {first_pos - pos_lo} + ({k}) WHEN e.a = 0 THEN {n_negative} "
        f"ELSE {neg_hi} - ({k}) END"
    )


@dataclass(frozen=True)
class PriceSql:
    """A profile's price axis in the plan: bins per factor of ten, number of bins, bin of ``e``."""

    per_decade: int
    n_bins: int
    expr: str  # :func:`price_bin_expr`


def gen_sql(points: str) -> str:
    """``ps_gen(u, point, cnt)``: the distinct (user, point) rows of ``points`` (:func:`points_sql`) with
    their numbers of events."""
    return f"SELECT u, point, CAST(count(*) AS INTEGER) AS cnt FROM ({points}) g GROUP BY u, point"


def points_sql(
    unit_kind: str,
    km: float | None,
    n_bins: int,
    bin_sql: str,
    with_tz: bool,
    price: PriceSql | None = None,
) -> str:
    """``(u, point)`` of every event: its user and its point ``(unit * n_bins + bin) * n_price + price bin``.

    ``unit_kind``: ``loc`` (the location code), ``level`` (``ps_units``), ``grid`` (``ps_cells`` on km
    squares of side ``km``) or ``xy`` (``ps_cells`` on rounded coordinates). ``price``: the price axis, or
    None when the amount is not released.
    """
    joins = local_join(with_tz)
    if unit_kind == "loc":
        unit = "e.loc"
    elif unit_kind == "level":
        unit, joins = "m.unit", joins + " JOIN ps_units m ON m.loc = e.loc"
    elif unit_kind == "grid":
        cx, cy = floor_div("e.x", km), floor_div("e.y", km)
        unit, joins = "c.unit", joins + f" JOIN ps_cells c ON c.cx = {cx} AND c.cy = {cy}"
    else:
        unit, joins = "c.unit", joins + " JOIN ps_cells c ON c.rx = e.x AND c.ry = e.y"
    point = f"CAST({unit} AS BIGINT) * {int(n_bins)} + {bin_sql}"  # d may pass 2^31: INT32 would overflow
    if price is not None:
        joins += PRICE_JOIN.format(guess=magnitude_guess(price.per_decade))
        point = f"({point}) * {int(price.n_bins)} + {price.expr}"
    return f"SELECT e.u AS u, {point} AS point FROM ps_ev e{joins}"


@dataclass(frozen=True)
class BinAxis:
    """A profile's time bins: width in seconds (None: one bin), first bin's local start, number of bins."""

    width: int | None
    origin: int
    n_bins: int
