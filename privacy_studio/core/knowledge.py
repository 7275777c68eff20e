"""Adversary-knowledge models (metrics.md §2): which p points of a user's own trace the attacker knows.

Every model answers ``draw(points, counts, p, rng)`` with p distinct points of the trace, so new models
plug in. The built-in ones also carry a ``kind`` code for the numba fast path, where one random order per
(user, draw) is taken and its first p points serve every p (nested draws, monotone curves).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa

from privacy_studio.core.events import EventTable
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.timeparse import OUT_OF_RANGE, TimeParser, outside_supported_range
from privacy_studio.core.kernels.orders import ACTIVITY, GIVEN, RAREST, TOP, UNIFORM  # noqa: F401 (re-exported)


@dataclass(frozen=True)
class KnowledgeModel:
    """Base of the models: ``kind`` selects the kernel order (None: Python ``draw`` per user)."""

    name: ClassVar[str] = ""
    kind: ClassVar[int | None] = None
    random: ClassVar[bool] = True  # False: the same points for every draw
    spatial_only: ClassVar[bool] = False  # True: points are spatial units, time ignored

    def draw(self, points: np.ndarray, counts: np.ndarray, p: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError


@dataclass(frozen=True)
class Uniform(KnowledgeModel):
    """p distinct points drawn uniformly from the trace (de Montjoye et al. 2013)."""

    name: ClassVar[str] = "uniform"
    kind: ClassVar[int | None] = UNIFORM

    def draw(self, points: np.ndarray, counts: np.ndarray, p: int, rng: np.random.Generator) -> np.ndarray:
        return points[rng.choice(len(points), size=p, replace=False)]


@dataclass(frozen=True)
class Activity(KnowledgeModel):
    """p distinct points without replacement, each pick proportional to the user's events there."""

    name: ClassVar[str] = "activity"
    kind: ClassVar[int | None] = ACTIVITY

    def draw(self, points: np.ndarray, counts: np.ndarray, p: int, rng: np.random.Generator) -> np.ndarray:
        w = counts / counts.sum()
        return points[rng.choice(len(points), size=p, replace=False, p=w)]


@dataclass(frozen=True)
class TopLocations(KnowledgeModel):
    """The p spatial units where the user has most events (ties: lowest unit id), time ignored."""

    name: ClassVar[str] = "top"
    kind: ClassVar[int | None] = TOP
    random: ClassVar[bool] = False
    spatial_only: ClassVar[bool] = True

    def draw(self, points: np.ndarray, counts: np.ndarray, p: int, rng: np.random.Generator) -> np.ndarray:
        order = np.lexsort((points, -counts))
        return points[order[:p]]


@dataclass(frozen=True)
class Explicit(KnowledgeModel):
    """Known events read from a file: every listed user's known points, whatever p."""

    name: ClassVar[str] = "explicit"
    random: ClassVar[bool] = False
    path: str = ""
    table: object = field(default=None, compare=False, repr=False)  # EventTable of the known events


@dataclass(frozen=True)
class MatchingModel(KnowledgeModel):
    """Models of scikit-mobility's attacks (metrics.md §2): knowledge and matching rule beyond set inclusion.

    They are evaluated by ``measures.matching`` on the events' points, not by the inclusion kernel.
    """

    random: ClassVar[bool] = True
    on_events: ClassVar[bool] = False  # True: the attacker knows p events (repeats allowed), else p points
    tolerance: float = 0.0

    @property
    def label(self) -> str:
        return f"{self.name}:{self.tolerance:g}" if self.name in ("frequency", "proportion") else self.name


@dataclass(frozen=True)
class Records(MatchingModel):
    """p of the user's events; a candidate needs at least as many visits to every known point."""

    name: ClassVar[str] = "records"
    on_events: ClassVar[bool] = True


@dataclass(frozen=True)
class Sequence(MatchingModel):
    """p of the user's events in time order; a candidate's time-ordered points must contain that sequence."""

    name: ClassVar[str] = "sequence"
    on_events: ClassVar[bool] = True


@dataclass(frozen=True)
class Frequency(MatchingModel):
    """p distinct points with the user's visit count at each; candidates' counts within ±tolerance of it."""

    name: ClassVar[str] = "frequency"


@dataclass(frozen=True)
class Proportion(MatchingModel):
    """p distinct points with the user's share of visits at each; candidates' shares within ±tolerance."""

    name: ClassVar[str] = "proportion"


@dataclass(frozen=True)
class HomeWork(MatchingModel):
    """The user's two most visited spatial units (ties: lowest unit id); candidates with the same top two."""

    name: ClassVar[str] = "homework"
    random: ClassVar[bool] = False
    spatial_only: ClassVar[bool] = True


MATCHING_MODELS = {m.name: m for m in (Records, Sequence, Frequency, Proportion, HomeWork)}
KNOWLEDGE_CHOICES = (
    "uniform, activity, top, records, sequence, frequency:TOL, proportion:TOL, homework or explicit:FILE"
)


def parse_knowledge(text: str) -> KnowledgeModel:
    """A model from its option text (``explicit:PATH``: the file is read when the grid runs)."""
    t = (text or "").strip()
    simple = {m.name: m for m in (Uniform, Activity, TopLocations)}
    name, _, arg = t.partition(":")
    if t.lower() in simple:
        return simple[t.lower()]()
    if name.lower() == "explicit" and arg.strip():
        return Explicit(path=arg.strip())
    if name.lower() in ("frequency", "proportion"):
        return MATCHING_MODELS[name.lower()](tolerance=_tolerance(arg, t))
    if name.lower() in MATCHING_MODELS and not arg:
        return MATCHING_MODELS[name.lower()]()
    raise ValueError(f"unknown knowledge model {text!r}; use {KNOWLEDGE_CHOICES}")


def _tolerance(arg: str, text: str) -> float:
    """The relative tolerance of ``frequency:TOL`` / ``proportion:TOL`` (0 when omitted), in [0, 1]."""
    try:
        tol = float(arg) if arg.strip() else 0.0
    except ValueError:
        tol = float("nan")
    if not 0.0 <= tol <= 1.0:
        raise ValueError(f"the tolerance of {text!r} must be a number from 0 to 1 (e.g. frequency:0.5)")
    return tol


def read_known_events(path: str, events: EventTable) -> EventTable:
    """Read ``user_id,time,location_id`` rows (CSV/TSV, header) as known events coded like ``events``; an
    optional ``price`` / ``amount`` column gives card payments' amounts (for profiles with price bins).

    ``time`` is epoch seconds or ISO 8601, parsed by the reader's own parser: naive times are wall-clock
    times in the data's zone, so known events land in the bins of the events they describe. Users or
    locations the dataset does not have are an error, never dropped.
    """

    from privacy_studio.core.io.sniff import check_side_table

    check_side_table(path)  # a FIFO or /dev/zero would block or grow without end
    try:
        frame = pd.read_csv(path, sep=None, engine="python", dtype=str)
    except (OSError, ValueError, pd.errors.ParserError) as exc:
        raise ValueError(f"cannot read the knowledge file {path}: {exc}") from None
    cols = {c.strip().lower(): c for c in frame.columns}
    picked = {}
    for need, names in (
        ("user", ("user_id", "user")),
        ("time", ("time", "timestamp", "datetime")),
        ("location", ("location_id", "location", "antenna_id", "shop")),
    ):
        found = next((cols[n] for n in names if n in cols), None)
        if found is None:
            raise ValueError(f"the knowledge file {path} needs a column {' or '.join(names)}")
        picked[need] = frame[found].astype(str).str.strip()
    if len(frame) == 0:
        raise ValueError(f"the knowledge file {path} lists no known events")
    user_code = _codes(events.user_ids, picked["user"], path, "user(s)")
    loc_code = _codes(events.location_ids, picked["location"], path, "location(s)")
    seconds = _known_times(picked["time"], path, events.tz)
    user = np.fromiter((user_code[u] for u in picked["user"]), dtype=np.int32, count=len(frame))
    location = np.fromiter((loc_code[x] for x in picked["location"]), dtype=np.int32, count=len(frame))
    order = np.lexsort((seconds, user))
    xy = {}
    if events.locations is not None and events.has_coordinates():
        xy = {"x_km": events.locations.x_km[location[order]], "y_km": events.locations.y_km[location[order]]}
    amount_column = next((cols[n] for n in ("price", "amount") if n in cols), None)
    if amount_column is not None:
        amount = pd.to_numeric(frame[amount_column].str.strip(), errors="coerce").to_numpy(dtype=np.float64)
        if not np.isfinite(amount).all():
            bad = int(np.flatnonzero(~np.isfinite(amount))[0]) + 2
            raise ValueError(f"the knowledge file {path} has an unreadable amount on line {bad}")
        xy["amount"] = amount[order]
    return EventTable(
        user=user[order],
        time=seconds[order],
        location=location[order],
        user_ids=events.user_ids,
        location_ids=events.location_ids,
        tz=events.tz,
        locations=events.locations,
        **xy,
    )


def _codes(ids: np.ndarray, named: object, path: str, what: str) -> dict[str, int]:
    """The code of every id of the data; ValueError when the knowledge file names ids it does not have."""
    code = {x: i for i, x in enumerate(ids.tolist())}
    unknown = sorted(set(named) - set(code))  # type: ignore[call-overload]
    if unknown:
        raise ValueError(
            f"the knowledge file {path} names {len(unknown)} {what} not in the data, e.g. "
            + ", ".join(unknown[:5])
        )
    return code


def _known_times(texts: object, path: str, tz: str) -> np.ndarray:
    """UTC epoch seconds of the knowledge file's times, read exactly as the data reader reads times."""
    parser = TimeParser(tz, dayfirst=False, monthfirst=False, column="time", path=path)
    try:
        seconds, ok = parser.parse(pa.array(list(texts), pa.string()), first_line=2)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0]) + 2
        raise ValueError(f"the knowledge file {path} has an unreadable time on line {bad}")
    far = outside_supported_range(seconds, ok)
    if far.any():
        line = int(np.flatnonzero(far)[0]) + 2
        raise ValueError(f"the knowledge file {path} has a {OUT_OF_RANGE} on line {line}")
    return np.asarray(seconds, dtype=np.int64)


def combined_table(events: EventTable, known: EventTable) -> EventTable:
    """The data followed by the known events as extra users n.., so one generalization bins both alike."""
    n = events.n_users
    xy = {}
    if events.has_coordinates() and known.has_coordinates():
        xy = {k: np.concatenate([getattr(events, k), getattr(known, k)]) for k in ("x_km", "y_km")}
    if events.amount is not None and known.amount is not None:  # card payments: amounts known too
        xy["amount"] = np.concatenate([events.amount, known.amount])
    return EventTable(
        user=np.concatenate([events.user, known.user + n]).astype(np.int32),
        time=np.concatenate([events.utc_seconds(), known.utc_seconds()]),
        location=np.concatenate([events.location, known.location]).astype(np.int32),
        user_ids=np.concatenate([events.user_ids, np.asarray([f"known:{u}" for u in events.user_ids])]),
        location_ids=events.location_ids,
        tz=events.tz,
        locations=events.locations,
        **xy,
    )
