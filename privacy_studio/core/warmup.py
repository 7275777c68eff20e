"""Compile every numba kernel once, on a tiny made-up dataset, so no user waits for the compiler.

``privacy-studio warmup`` runs it at install time (``installer/run-studio.sh``, the installer build) and the
window runs it in the background at start; kernels already in numba's cache load in a fraction of a second.
Each step goes through the same public functions as a real run, so it compiles the same specializations.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from privacy_studio.core.choices import MASKING_METHODS
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.io import Dataset, ReaderOptions, load_dataset
from privacy_studio.core.progress import TaskControl, as_control

USERS, EVENTS_PER_USER, ANTENNAS = 12, 8, 6


@dataclass(frozen=True)
class TinyData:
    """Two periods of the same dozen people at six antennas (two per zip), read from CSV files."""

    first: Dataset
    second: Dataset


@dataclass(frozen=True)
class WarmupStep:
    """One group of kernels and the call that compiles them."""

    name: str
    run: Callable[[TinyData], object]


def _read_period(folder: Path, seed: int) -> Dataset:
    """A week of made-up events written as a user's CSV file and read back in a zone with summer time (local
    days and hours take their own kernel), with a zip level."""
    rng = np.random.default_rng(seed)
    n = USERS * EVENTS_PER_USER
    user = np.repeat(np.arange(USERS), EVENTS_PER_USER)
    when = 1_700_000_000 + seed * 7 * 86400 + rng.integers(0, 7 * 86400, n)
    antenna = rng.integers(0, ANTENNAS, n)
    lat, lon = 45.0 + 0.01 * antenna, 7.0 + 0.02 * (antenna % 3)
    path = folder / f"period{seed}.csv"
    rows = ["user,time,location,lat,lon"]
    rows += [
        f"u{u},{t},a{a},{y:.4f},{x:.4f}" for u, t, a, y, x in zip(user, when, antenna, lat, lon, strict=True)
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    dataset = load_dataset(str(path), ReaderOptions(use_cache=False, tz="Europe/Paris"))
    ids = dataset.events.location_ids
    zips = np.asarray([f"z{int(str(i)[1:]) // 2}" for i in ids])
    return replace(dataset, hierarchy=Hierarchy.from_mapping(ids, "antenna", {"zip": zips}))


def _risk_grid(data: TinyData) -> object:
    from privacy_studio.core.runner import RiskSettings, run_grid

    for knowledge in ("uniform", "activity", "top"):
        settings = RiskSettings(
            # km squares number places by int64 cell codes, read-only when cached: their own specializations
            spatial=["antenna", "zip"] + (["grid:1"] if knowledge == "uniform" else []),
            temporal=["1h", "1d", "1w", "all"],
            p_values=[1, 2],
            knowledge=knowledge,
        )
        list(run_grid(data.first, settings))
    _sparse_index(data)
    _compact_columns(data)
    return None


def _compact_columns(data: TinyData) -> None:
    """The in-memory engine reading the file itself, as ``risk`` runs it: compact columns whose times are
    int32 seconds from the period's start (the sort, the clock and the traces take their own kernels)."""
    from privacy_studio.core.engines import EventFiles, open_engine
    from privacy_studio.core.runner import RiskSettings

    settings = RiskSettings(spatial=["raw", "grid:1"], temporal=["1h", "all"], p_values=[1, 2])
    with open_engine("numba") as engine:
        list(engine.run_grid(EventFiles(data.first.sources[0].path, data.first.options), settings))


def _sparse_index(data: TinyData) -> None:
    """Index traces whose d is far above their number of points (fine places and short bins on real data,
    e.g. Gowalla's venues by the hour): the index then numbers points without a d-long lookup table."""
    from privacy_studio.core.generalize import Profile, generalize
    from privacy_studio.core.index import build_index

    traces = generalize(data.first.events, Profile.parse("antenna", "1h"), data.first.hierarchy)
    build_index(replace(traces, n_bins=1 << 21))


def _attribute_disclosure(data: TinyData) -> object:
    """Sensitive values in whole-trace classes and anonymity sets (an attributes file written for it)."""
    from privacy_studio.core.runner import RiskSettings, run_grid

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "attributes.csv"
        ids = data.first.events.user_ids
        path.write_text(
            "user_id,band\n" + "".join(f"{u},{('low', 'high')[i % 2]}\n" for i, u in enumerate(ids))
        )
        settings = RiskSettings(
            spatial=["antenna", "grid:1"],
            temporal=["1h", "all"],
            p_values=[1, 2],
            measures=["attribute_disclosure"],
            sensitive=["band"],
            attributes=str(path),
        )
        exact = replace(settings, spatial=["zip"], temporal=["1d"], exact=True)  # every p-subset
        return list(run_grid(data.first, settings)) + list(run_grid(data.first, exact))


def _information_loss(data: TinyData) -> object:
    from privacy_studio.core.project_run import computed_utility
    from privacy_studio.core.runner import RiskSettings

    return computed_utility(
        data.first, RiskSettings(spatial=["antenna", "zip", "grid:1"], temporal=["1h", "1w"])
    )


def _exact(data: TinyData) -> object:
    from privacy_studio.core.runner import RiskSettings, run_grid

    list(run_grid(data.first, RiskSettings(["antenna"], ["1d"], p_values=[1, 2], exact=True)))
    worst_only = RiskSettings(["zip"], ["all"], p_values=[2], exact=True, measures=["worst_case"])
    return list(run_grid(data.first, worst_only))


def _anonymizability(data: TinyData) -> object:
    from privacy_studio.core.measures.anonymizability import Fingerprints, anonymizability

    fingerprints = Fingerprints.from_events(data.first.events)
    return [anonymizability(fingerprints, (2, 5), mode=mode) for mode in ("prune", "merge", "plain")]


def _attacks(data: TinyData) -> object:
    from privacy_studio.core.generalize import Profile
    from privacy_studio.core.measures.attacks.matching import run_matching
    from privacy_studio.core.measures.attacks.profiling import run_profiling

    first, second = data.first.events, data.second.events
    profile = Profile.parse("raw", "1d")
    sizes, top_k = (4,), (1,)
    return (
        run_matching(first, second, profile),
        [
            run_profiling(first, second, profile.spatial, distance=d, sizes=sizes, top_k=top_k)
            for d in ("js", "l1")
        ],
    )


def _release(data: TinyData) -> object:
    """A release prepared and measured as written (suppression, pseudonyms, its rows read back and measured,
    as a new project measures them): the protection search measures each candidate this way, so ``report``
    and ``project run`` search with these specializations."""
    from privacy_studio.core.project import Project
    from privacy_studio.core.release.defaults import measure_settings
    from privacy_studio.core.release.export import prepare_release
    from privacy_studio.core.release.options import ReleaseOptions

    options = ReleaseOptions("zip", "1w", min_people_per_point=2, k_anonymity=2, max_points_per_person=10)
    return prepare_release(data.first, options, measure_settings(Project()))


def _masking(data: TinyData) -> object:
    from privacy_studio.core.masking import mask

    table = np.random.default_rng(0).normal(size=(40, 3))
    return [mask(table, method, k=2) for method in MASKING_METHODS]


def _out_of_core(data: TinyData) -> object:
    """A grid on the DuckDB engine, from the file (as for data beyond memory) and from the events in memory:
    its fetch streams the traces back through kernels of its own, typed by where the events come from."""
    from privacy_studio.core.engines import EventFiles, open_engine
    from privacy_studio.core.runner import RiskSettings

    files = EventFiles(data.first.sources[0].path, data.first.options)
    settings = RiskSettings(spatial=["raw"], temporal=["1h", "1w"], p_values=[1, 2])
    with open_engine("duckdb", threads=1) as engine:
        return [list(engine.run_grid(source, settings)) for source in (files, data.first)]


STEPS = (
    WarmupStep("risk grid (sampled)", _risk_grid),
    WarmupStep("out-of-core fetch", _out_of_core),
    WarmupStep("attribute disclosure", _attribute_disclosure),
    WarmupStep("information loss", _information_loss),
    WarmupStep("exact mode", _exact),
    WarmupStep("anonymizability", _anonymizability),
    WarmupStep("attacks", _attacks),
    WarmupStep("masking", _masking),
    WarmupStep("release", _release),
)


def _as_cached(dataset: Dataset, name: str) -> Dataset:
    """The dataset as the columnar cache gives it back (read-only memory maps: other specializations).

    A fixed cache key is reused on every warm-up, so nothing accumulates in the user's cache folder.
    """
    from privacy_studio.core.io import cache

    cache.store(f"warm-up-{name}", dataset)
    cached = cache.load(f"warm-up-{name}", dataset.options)
    return dataset if cached is None else replace(cached, hierarchy=dataset.hierarchy)


def warm_up(control: TaskControl | None = None) -> dict[str, float]:
    """Run every step on freshly read and on cached data (compiling, or loading from numba's cache);
    seconds per step, with progress."""
    control = as_control(control)
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="privacy-studio-warmup-") as folder:
        t0 = time.perf_counter()
        control.report(0.0, "reading files")
        fresh = TinyData(_read_period(Path(folder), 0), _read_period(Path(folder), 1))
        cached = TinyData(_as_cached(fresh.first, "first"), _as_cached(fresh.second, "second"))
        seconds["reading files"] = time.perf_counter() - t0
        for i, step in enumerate(STEPS):
            control.report((i + 1) / (len(STEPS) + 1), f"compiling: {step.name}")
            t0 = time.perf_counter()
            step.run(fresh)
            step.run(cached)
            seconds[step.name] = time.perf_counter() - t0
    control.report(1.0, "all kernels ready")
    return seconds
