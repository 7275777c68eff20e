"""Timestamps to UTC epoch seconds, vectorized: ISO 8601 (offsets honoured), dd/mm or mm/dd, epoch seconds.

The style is decided once per column from the first batch and then applied to every batch, so a file is
read one way throughout. Naive times are wall-clock times in the reader's zone; in the repeated hour of a
daylight-saving change the earlier instant is taken, a skipped wall-clock time moves to the hour after.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from privacy_studio.core.io.convert import as_plain
from privacy_studio.core.io.errors import ReaderError

_ISO_RE = r"^\s*\d{4}-\d{1,2}-\d{1,2}"
_OFFSET_RE = r"\d[T ]?\d{1,2}:?\d{2}(:?\d{2}(\.\d*)?)?\s*([Zz]|[+-]\d{2}(:?\d{2})?)$"
_EPOCH_RE = r"^\s*[-+]?\d+(\.\d*)?\s*$"
_SLASHED_RE = (
    r"^\s*(?P<a>\d{1,2})[/.-](?P<b>\d{1,2})[/.-](?P<y>\d{4}|\d{2})"
    r"(?:[ T]+(?P<H>\d{1,2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:\.\d*)?)?)?\s*$"
)
#: Plausible epoch seconds: 1900-01-01 .. 2200-01-01 (larger values are usually milliseconds).
EPOCH_RANGE = (-2_208_988_800, 7_258_118_400)
#: UTC seconds the studio supports (the span of pandas' nanosecond timestamps, whole years): times outside
#: it are rejected row by row rather than wrapped to other dates.
TIME_RANGE = (-9_183_024_000, 9_214_646_400)  # 1679-01-01 .. 2262-01-01
OUT_OF_RANGE = "time outside the supported years 1679-2261"
EXPECTED = (
    "ISO 8601 (2014-03-02 07:13:30, optional Z/+01:00), dd/mm/yyyy or mm/dd/yyyy [HH:MM[:SS]], "
    "or epoch seconds"
)


class TimeParser:
    """Parses one time column batch by batch; ``style`` is fixed by the first batch."""

    def __init__(self, tz: str, dayfirst: bool, monthfirst: bool, column: str, path: str) -> None:
        self.tz = tz
        self.dayfirst = dayfirst
        self.monthfirst = monthfirst
        self.column = column
        self.path = path
        self.style: str | None = None
        self.aware = False  # ISO values carry offsets (decided with the style, tried first)

    def parse(self, values: pa.Array, first_line: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """UTC epoch seconds (int64) and a mask of rows that parsed."""
        values = as_plain(values)
        if pa.types.is_timestamp(values.type):
            return self._from_timestamps(values)
        if pa.types.is_date(values.type):
            return self._from_timestamps(pc.cast(values, pa.timestamp("s")))
        if pa.types.is_integer(values.type) or pa.types.is_floating(values.type):
            return _epoch(values if pa.types.is_integer(values.type) else pc.cast(values, pa.float64()))
        if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
            raise ReaderError(f"cannot read {values.type} values as times", self.path, column=self.column)
        if self.style is None:
            self.style = self.decide_style(values, first_line)
        if self.style == "epoch":
            return _epoch(pc.cast(pc.if_else(_matches(values, _EPOCH_RE), values, None), pa.float64()))
        if self.style == "slashed":
            return self._slashed(values)
        return self._iso(values)

    def decide_style(self, values: pa.Array, first_line: int) -> str:
        """How the column's times are written (epoch, ISO, day-first …), judged on its first values;
        public so that engines reading files themselves decide exactly as the reader does."""
        present = pc.drop_null(values)
        present = pc.filter(present, pc.not_equal(pc.utf8_trim_whitespace(present), ""))
        sample = present.slice(0, 2000)
        if len(sample) == 0:
            return "iso"
        votes = {
            "iso": pc.sum(_matches(sample, _ISO_RE)).as_py() or 0,
            "epoch": pc.sum(_matches(sample, _EPOCH_RE)).as_py() or 0,
            "slashed": pc.sum(_matches(sample, _SLASHED_RE)).as_py() or 0,
        }
        style = max(votes, key=lambda k: votes[k])
        if votes[style] * 2 < len(sample):
            raise ReaderError(
                f"values such as {sample[0].as_py()!r} are not times; expected {EXPECTED}",
                self.path,
                column=self.column,
            )
        if style == "iso":
            self.aware = (pc.sum(_matches(sample, _OFFSET_RE)).as_py() or 0) * 2 > len(sample)
        if style == "epoch":
            self._refuse_sub_second_epochs(sample)
        if style == "slashed" and not (self.dayfirst or self.monthfirst):
            self._refuse_ambiguous(present.slice(0, 200_000))
        return style

    def _refuse_sub_second_epochs(self, sample: pa.Array) -> None:
        """ReaderError when most epoch values are too large for seconds but fit milli-, micro- or
        nanoseconds: read as seconds every row would be rejected as unparsable."""
        raw = pc.cast(pc.if_else(_matches(sample, _EPOCH_RE), sample, None), pa.float64())
        values = raw.to_numpy(zero_copy_only=False)
        values = values[np.isfinite(values)]
        for unit, factor in (("milliseconds", 1e3), ("microseconds", 1e6), ("nanoseconds", 1e9)):
            fits = (values >= EPOCH_RANGE[0] * factor) & (values < EPOCH_RANGE[1] * factor)
            if len(values) and fits.sum() * 2 > len(values) and not _epoch(raw)[1].any():
                raise ReaderError(
                    f"values such as {sample[0].as_py()!r} look like epoch {unit}, but the studio reads "
                    f"epoch seconds: divide the column by {factor:,.0f} or write ISO 8601 times",
                    self.path,
                    column=self.column,
                )

    def _refuse_ambiguous(self, values: pa.Array) -> None:
        parts = pc.extract_regex(pc.filter(values, _matches(values, _SLASHED_RE)), _SLASHED_RE)
        a = pc.cast(parts.field("a"), pa.int64()).to_numpy()
        b = pc.cast(parts.field("b"), pa.int64()).to_numpy()
        if (b > 12).any() and not (a > 12).any():
            self.monthfirst = True
            return
        hint = (
            "the first number exceeds 12 in some rows, so pass --dayfirst"
            if (a > 12).any()
            else ("every date could be either; pass --dayfirst (dd/mm/yyyy) or --monthfirst (mm/dd/yyyy)")
        )
        raise ReaderError(
            f"dates such as {values[0].as_py()!r} are ambiguous between day/month and month/day: {hint}",
            self.path,
            column=self.column,
        )

    def _slashed(self, values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        ok = _matches(values, _SLASHED_RE).to_numpy(zero_copy_only=False)
        parts = pc.extract_regex(pc.if_else(ok, values, "01/01/1970"), _SLASHED_RE)

        def num(name: str) -> np.ndarray:
            field = pc.if_else(pc.equal(parts.field(name), ""), "0", parts.field(name))
            return pc.cast(field, pa.int64()).to_numpy(zero_copy_only=False)

        a, b, year = num("a"), num("b"), num("y")
        day, month = (a, b) if self.dayfirst else (b, a)
        year = np.where(year < 100, np.where(year < 70, year + 2000, year + 1900), year)
        hour, minute, sec = num("H"), num("M"), num("S")
        ok &= (month >= 1) & (month <= 12) & (day >= 1) & (hour < 24) & (minute < 60) & (sec < 61)
        months = np.where(ok, (year - 1970) * 12 + month - 1, 0).astype("datetime64[M]")
        days_in_month = ((months + 1).astype("datetime64[D]") - months.astype("datetime64[D]")).astype(
            np.int64
        )
        ok &= day <= days_in_month
        date = months.astype("datetime64[D]").astype(np.int64) + np.where(ok, day - 1, 0)
        naive = date * 86400 + hour * 3600 + minute * 60 + sec
        return self._localize(naive, ok), ok

    def _iso(self, values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        # Arrow's cast is fast but all-or-nothing: try the column's usual kind, else go row by row.
        try:
            return self._from_timestamps(
                pc.cast(values, pa.timestamp("us", tz="UTC" if self.aware else None))
            )
        except pa.ArrowInvalid:
            pass
        # Mixed zone styles or bad rows: pandas parses row by row in C and marks failures.
        text = pd.Series(values.to_numpy(zero_copy_only=False), dtype=object)
        has_offset = _matches(values, _OFFSET_RE).to_numpy(zero_copy_only=False)
        out = np.zeros(len(text), dtype=np.int64)
        ok = np.zeros(len(text), dtype=bool)
        for aware in (False, True):
            rows = has_offset == aware
            if not rows.any():
                continue
            parsed = pd.to_datetime(text[rows], format="ISO8601", errors="coerce", utc=aware)
            good = parsed.notna().to_numpy()
            # pandas keeps far-out times in a coarser unit: going to seconds cannot wrap, nanoseconds could
            naive = parsed.dt.tz_localize(None) if aware else parsed
            secs = naive.to_numpy().astype("datetime64[s]").astype(np.int64)
            if not aware:
                secs = self._localize(secs, good)
            out[rows] = np.where(good, secs, 0)
            ok[rows] = good
        return out, ok

    def _from_timestamps(self, values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
        # Integers in the column's own unit, floor-divided: a cast to another unit could overflow.
        ok = values.is_valid().to_numpy(zero_copy_only=False)
        per_second = _UNITS_PER_SECOND[values.type.unit]
        raw = values.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
        secs = np.floor_divide(raw, per_second)
        if values.type.tz is None:
            secs = self._localize(secs, ok)
        return secs, ok

    def _localize(self, naive_seconds: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """UTC seconds of wall-clock seconds read in ``tz``."""
        # Times outside the supported range stay as they are, to be rejected by the caller.
        inside = ok & ~outside_supported_range(naive_seconds, ok)
        return np.where(inside, localize(np.where(inside, naive_seconds, 0), self.tz), naive_seconds)


def localize(naive_seconds: np.ndarray, tz: str) -> np.ndarray:
    """UTC seconds of wall-clock seconds in ``tz``: the first of two equal wall-clock times when clocks go
    back, the moment clocks went forward for a time they skipped. The engines convert exactly alike."""
    if tz in ("UTC", "utc", "Z", ""):
        return np.asarray(naive_seconds, dtype=np.int64)
    stamps = pa.array(np.asarray(naive_seconds, dtype=np.int64), type=pa.timestamp("s"))
    try:
        local = pc.assume_timezone(stamps, tz, ambiguous="earliest", nonexistent="latest")
    except pa.ArrowInvalid as exc:
        raise ReaderError(f"unknown time zone {tz!r} ({exc})") from None
    return local.cast(pa.int64()).to_numpy(zero_copy_only=False)


_UNITS_PER_SECOND = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}


def outside_supported_range(seconds: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Rows that parsed but lie outside :data:`TIME_RANGE` (rejected with their own reason)."""
    return ok & ((seconds < TIME_RANGE[0]) | (seconds >= TIME_RANGE[1]))


def _matches(values: pa.Array, pattern: str) -> pa.Array:
    return pc.fill_null(pc.match_substring_regex(values, pattern), False)


def _epoch(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    whole_seconds = pa.types.is_signed_integer(values.type) or (
        pa.types.is_integer(values.type) and values.type.bit_width < 64
    )
    if whole_seconds and values.null_count == 0:  # exact in int64: no float round trip
        whole = values.to_numpy().astype(np.int64, copy=False)
        ok = (whole >= EPOCH_RANGE[0]) & (whole < EPOCH_RANGE[1])
        return np.where(ok, whole, 0), ok
    raw = values.to_numpy(zero_copy_only=False).astype(np.float64)
    ok = np.isfinite(raw) & (raw >= EPOCH_RANGE[0]) & (raw < EPOCH_RANGE[1])
    return np.where(ok, np.floor(np.where(ok, raw, 0)), 0).astype(np.int64), ok


def check_tz(tz: str) -> None:
    """Raise ReaderError for a time zone name the zone database does not know."""
    try:
        pd.Timestamp(0, tz=tz)
    except Exception:
        raise ReaderError(f"unknown time zone {tz!r}; use an IANA name such as Europe/Paris or UTC") from None
