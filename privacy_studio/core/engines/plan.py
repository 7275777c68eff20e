"""The SQL text of the relational risk plan, written once for every engine (see docs/engines.md).

Tables the plan reads and writes (all names start with ``ps_``):

* ``ps_ev(u, t, loc, x, y)``: one row per kept event; ``u`` the user code (rank of the user id), ``t`` UTC
  epoch seconds, ``loc`` the location code (-1 when the event has coordinates only), ``x, y`` km or NULL.
* ``ps_tz(h, split, off_before, off_after)``: the zone's UTC offset (seconds) in every UTC hour ``h``,
  ``off_before`` until ``split`` seconds into the hour and ``off_after`` from then (``hourly_offset_pieces``).
* ``ps_units(loc, unit)``: the spatial unit of every location code at a hierarchy level.
* ``ps_gen(u, point, cnt)``: the generalized traces, exactly the in-memory ``Traces`` (CSR) as rows.
* ``ps_k(q, pos, point)``: the knowledge orders, query ``q`` = one (sampled user, draw) or rarest order.
* ``ps_first(q, a, b)``: the first two points of each query, ``a`` the rarer one.
* ``ps_cand0``, ``ps_cand1`` (alternating): candidate users ``v`` still matching the first points of ``q``.
* ``ps_freq(point, n)``, ``ps_emt(q, point, prior, e, kl, g)``: point frequencies and EM/KL terms of the sets.

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

    def sorted_list(self, expr: str) -> str:
        """Aggregate: the values of ``expr`` in the group as one ascending list (groupable)."""
        if self.name == "spark":
            return f"sort_array(collect_list({expr}))"
        return f"list({expr} ORDER BY {expr})"

    def hash64(self, expr: str) -> str:
        """A 64-bit hash of an integer expression (any fixed function will do: matches are verified)."""
        return f"xxhash64({expr})" if self.name == "spark" else f"hash({expr})"

    def exact_sum(self, expr: str) -> str:
        """Aggregate: the sum of 64-bit values without overflow (38-digit decimal / HUGEINT)."""
        kind = "DECIMAL(38, 0)" if self.name == "spark" else "HUGEINT"
        return f"sum(CAST({expr} AS {kind}))"

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
    """``floor(a / b)`` as BIGINT, divided in doubles like numpy does for km; exact for epoch seconds."""
    return f"CAST(floor(({a}) / {float(b)!r}) AS BIGINT)"


DUCKDB = Dialect("duckdb")
SPARK = Dialect("spark")


def quote(text: str) -> str:
    """A SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def ident(name: str) -> str:
    """A quoted SQL identifier (column names from files may hold spaces or keywords)."""
    return '"' + str(name).replace('"', '""') + '"'


# -- generalization ----------------------------------------------------------------------------------------


def period_sql() -> str:
    """First and last event time and the number of users and events of ``ps_ev``."""
    return "SELECT min(t) AS t0, max(t) AS t1, count(*) AS n_events, count(DISTINCT u) AS n_users FROM ps_ev"


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


def local_range_sql(with_tz: bool) -> str:
    """First and last wall-clock second of the events (bins are aligned from them, as ``time_bins``)."""
    local = local_time_sql(with_tz)
    return f"SELECT min({local}) AS lo, max({local}) AS hi FROM ps_ev e{local_join(with_tz)}"


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


def gen_sql(
    unit_kind: str,
    km: float | None,
    n_bins: int,
    bin_sql: str,
    with_tz: bool,
    price: PriceSql | None = None,
) -> str:
    """``ps_gen(u, point, cnt)``: distinct (user, (unit * n_bins + bin) * n_price + price bin) with the
    number of events.

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
    point = f"{unit} * {int(n_bins)} + {bin_sql}"
    if price is not None:
        joins += PRICE_JOIN.format(guess=magnitude_guess(price.per_decade))
        point = f"({point}) * {int(price.n_bins)} + {price.expr}"
    return (
        f"SELECT u, point, CAST(count(*) AS INTEGER) AS cnt FROM "
        f"(SELECT e.u AS u, {point} AS point FROM ps_ev e{joins}) g GROUP BY u, point"
    )


def derived_gen_sql(unit_kind: str, base: BinAxis, axis: BinAxis) -> str:
    """``ps_gen`` coarsened from ``ps_base`` (the locations in ``base``'s time bins) instead of the events.

    A base point is ``loc * base.n_bins + b``; its bin starts ``base.origin + b * base.width`` local seconds,
    which lies in bin ``floor((start - origin) / width)`` of ``axis`` since both are aligned to Monday and
    ``axis.width`` is a multiple of ``base.width`` (or None: one bin). ``unit_kind``: ``loc`` or ``level``.
    """
    loc = floor_div("b.point", base.n_bins)
    if axis.width is None:
        time_bin = "CAST(0 AS BIGINT)"
    else:
        fine = f"b.point - {loc} * {int(base.n_bins)}"
        time_bin = floor_div(f"{base.origin - axis.origin} + ({fine}) * {base.width}", axis.width)
    unit, joins = (loc, "") if unit_kind == "loc" else ("m.unit", f" JOIN ps_units m ON m.loc = {loc}")
    return (
        "SELECT u, point, CAST(sum(cnt) AS INTEGER) AS cnt FROM "
        f"(SELECT b.u AS u, {unit} * {int(axis.n_bins)} + {time_bin} AS point, b.cnt AS cnt "
        f"FROM ps_base b{joins}) g GROUP BY u, point"
    )


@dataclass(frozen=True)
class BinAxis:
    """A profile's time bins: width in seconds (None: one bin), first bin's local start, number of bins."""

    width: int | None
    origin: int
    n_bins: int


def spatial_only_sql(n_bins: int) -> str:
    """``ps_gen`` with time ignored (the top-locations model): points are the units, counts summed."""
    return (
        "SELECT u, unit AS point, CAST(sum(cnt) AS BIGINT) AS cnt FROM "
        f"(SELECT u, {floor_div('point', n_bins)} AS unit, cnt FROM ps_gen) g GROUP BY u, unit"
    )


def shape_sql() -> str:
    """Number of (user, point) rows of ``ps_gen``."""
    return "SELECT count(*) AS nnz FROM ps_gen"


# -- sampling ------------------------------------------------------------------------------------------------


def sampled_traces_sql() -> str:
    """The sampled users' traces (``ps_samp(s, u)``), points ascending, with each point's |D_x|."""
    return (
        "SELECT s.s AS s, g.point AS point, g.cnt AS cnt, f.n AS n "
        "FROM ps_samp s "
        "JOIN ps_gen g ON g.u = s.u "
        "JOIN (SELECT point, CAST(count(*) AS BIGINT) AS n FROM ps_gen GROUP BY point) f "
        "ON f.point = g.point ORDER BY s.s, g.point"
    )


# -- class sizes -------------------------------------------------------------------------------------------


def first_candidates_sql() -> str:
    """Candidates after the first two known points of every open query (users visiting both).

    ``ps_first(q, a, b)`` holds the two points with ``a`` the one with the shorter posting list, so only
    that list is scanned and each of its users probes ``gen`` for ``b``.
    """
    return (
        "SELECT f.q AS q, ga.u AS v FROM ps_first f JOIN ps_open o ON o.q = f.q "
        "JOIN ps_gen ga ON ga.point = f.a "
        "JOIN ps_gen gb ON gb.u = ga.u AND gb.point = f.b"
    )


def next_candidates_sql(cand: str, pos: int) -> str:
    """Candidates in ``cand`` of the open queries that also visit the query's point at ``pos`` (semi-join)."""
    return (
        f"SELECT c.q AS q, c.v AS v FROM {cand} c JOIN ps_open o ON o.q = c.q "
        f"JOIN ps_k k ON k.q = c.q AND k.pos = {int(pos)} "
        "JOIN ps_gen g ON g.u = c.v AND g.point = k.point"
    )


def candidate_counts_sql(cand: str) -> str:
    """|E| of every query with candidates in ``cand``."""
    return f"SELECT q, CAST(count(*) AS BIGINT) AS n FROM {cand} GROUP BY q"


def kanon_sql(dialect: Dialect) -> str:
    """Histogram of full-fingerprint class sizes: users grouped by their whole sorted point list.

    One row per class size: ``size`` and ``users`` (the number of users in classes of that size). Exact
    but slow on large data; :func:`fingerprints_sql` and the check below are tried first.
    """
    return (
        "SELECT size, CAST(sum(size) AS BIGINT) AS users FROM "
        "(SELECT CAST(count(*) AS BIGINT) AS size FROM "
        f"(SELECT u, {dialect.sorted_list('point')} AS fp FROM ps_gen GROUP BY u) t GROUP BY fp) c "
        "GROUP BY size"
    )


def fingerprints_sql(dialect: Dialect) -> str:
    """``ps_fp(u, n, h1, h2)``: each user's number of points and two order-free hashes of the point set."""
    return (
        f"SELECT u, CAST(count(*) AS BIGINT) AS n, {dialect.exact_sum(dialect.hash64('point'))} AS h1, "
        f"bit_xor({dialect.hash64('point + 1')}) AS h2 FROM ps_gen GROUP BY u"
    )


def fingerprint_classes_sql() -> str:
    """``ps_cls(n, h1, h2, rep, size)``: users with equal fingerprints, one representative each."""
    return "SELECT n, h1, h2, min(u) AS rep, CAST(count(*) AS BIGINT) AS size FROM ps_fp GROUP BY n, h1, h2"


def fingerprint_mismatches_sql() -> str:
    """Members of a class whose point set is not their representative's (a hash collision): 0 or more."""
    return (
        "WITH m AS (SELECT f.u AS u, c.rep AS rep, f.n AS n FROM ps_fp f "
        "JOIN ps_cls c ON c.n = f.n AND c.h1 = f.h1 AND c.h2 = f.h2 WHERE c.size > 1 AND f.u <> c.rep), "
        "hit AS (SELECT m.u AS u, min(m.n) AS n, count(*) AS k FROM m JOIN ps_gen g ON g.u = m.u "
        "JOIN ps_gen r ON r.u = m.rep AND r.point = g.point GROUP BY m.u) "
        "SELECT (SELECT count(*) FROM m) - (SELECT count(*) FROM hit WHERE k = n) AS bad"
    )


def class_histogram_sql() -> str:
    """Histogram of class sizes from ``ps_cls`` (as :func:`kanon_sql` returns it)."""
    return "SELECT size, CAST(sum(size) AS BIGINT) AS users FROM ps_cls GROUP BY size"


# -- EM / KL disclosure --------------------------------------------------------------------------------------


def point_frequencies_sql() -> str:
    """``ps_freq(point, n)``: every point's posting-list length |D_x| (the prior is n / n_users)."""
    return "SELECT point, CAST(count(*) AS BIGINT) AS n FROM ps_gen GROUP BY point"


def frequency_histogram_sql() -> str:
    """How many points have each posting-list length: the client sums the priors of all points from it."""
    return "SELECT n, CAST(count(*) AS BIGINT) AS points FROM ps_freq GROUP BY n"


def unit_frequencies_sql(n_bins: int) -> str:
    """Σ |D_x| over the points of every spatial unit (``point // n_bins``)."""
    return f"SELECT {floor_div('point', n_bins)} AS unit, CAST(sum(n) AS BIGINT) AS n FROM ps_freq GROUP BY 1"


def first_members_sql() -> str:
    """Members of the sets at p = 1 (``ps_emf(q, point)``): the posting list of the query's first point."""
    return "SELECT f.q AS q, g.u AS v FROM ps_emf f JOIN ps_gen g ON g.point = f.point"


def held_members_sql(cand: str, n_q: int) -> str:
    """Members of the EM queries (``q < n_q``) among the candidates ``cand`` of the semi-join."""
    return f"SELECT c.q AS q, c.v AS v FROM {cand} c WHERE c.q < {int(n_q)}"


def em_terms_sql(members: str, n_users: int) -> str:
    """``ps_emt``: per query and point visited by a member of its set, the EM and KL terms.

    ``members`` is a query of ``(q, v)`` rows (v in E_q). Columns: ``e`` = |posterior - prior|, ``kl`` the
    KL term (0 ln 0 = 0), ``prior`` and ``g`` = -ln(1 - prior), the terms the point would add unvisited.
    """
    post, prior = "CAST(c.c AS DOUBLE) / z.e", f"CAST(f.n AS DOUBLE) / {float(n_users)!r}"
    return (
        f"WITH mem AS ({members}), "
        "z AS (SELECT q, count(*) AS e FROM mem GROUP BY q), "
        "c AS (SELECT m.q AS q, g.point AS point, count(*) AS c FROM mem m JOIN ps_gen g ON g.u = m.v "
        "GROUP BY m.q, g.point), "
        f"t AS (SELECT c.q AS q, c.point AS point, {post} AS post, {prior} AS prior "
        "FROM c JOIN z ON z.q = c.q JOIN ps_freq f ON f.point = c.point) "
        "SELECT q, point, prior, abs(post - prior) AS e, "
        "post * ln(post / prior) "
        "+ (1 - post) * ln(CASE WHEN post < 1 THEN (1 - post) / (1 - prior) ELSE 1 END) AS kl, "
        "-ln(CASE WHEN prior < 1 THEN 1 - prior ELSE 1 END) AS g FROM t"
    )


def em_sums_sql() -> str:
    """Per query, the sums over its visited points of ``ps_emt``'s terms (the rest is closed form)."""
    return "SELECT q, sum(e) AS e, sum(kl) AS kl, sum(prior) AS prior, sum(g) AS g FROM ps_emt GROUP BY q"


def em_units_sql(n_bins: int) -> str:
    """Per spatial unit, Σ (EM_uj - prior) over the queries and visited points of ``ps_emt``."""
    return f"SELECT {floor_div('point', n_bins)} AS unit, sum(e - prior) AS acc FROM ps_emt GROUP BY 1"
