"""Where one profile's estimate spends its time at national scale (issue #30), each stage timed on its own.

Loads a month of ``bench_scale.py`` (compact columns, as the in-memory engine does) and, per profile, times:
generalizing and indexing; the sampled draws of 10,000 people without EM/KL (p = 1..10, rarest-first walk
included) and the EM/KL of the first 1,000 of them (the draws again for those people, with EM/KL at every p);
the targeted worst-case search with the default budget (and how many searches it cut); the exact pass at the
p values the exact budget allows; and the whole-trace sets of people with fewer than 10 points, timed on at
most ``--short`` of them and scaled to all (what ``add_file_populations`` walked for every row before it
kept to the exact rows). Numba compilation is done on a small profile first.

    python benchmarks/bench_stages.py --size 1M --profiles district:1w,zip:12h --json out.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numba
import numpy as np
from bench_engines import reader_options
from bench_scale import DATA, DAYS, users_of

from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.index import build_index
from privacy_studio.core.io import load_dataset
from privacy_studio.core.knowledge import UNIFORM
from privacy_studio.core.measures.disclosure import point_priors
from privacy_studio.core.measures.exact import cheap_p_values, exact_pass
from privacy_studio.core.measures.unicity import sample_sizes, whole_trace_sizes
from privacy_studio.core.measures.worstcase import search_budget, targeted_sizes
from privacy_studio.core.runner import sample_users

PMAX = 10


def timed(fn, *args, **kwargs) -> tuple[object, float]:
    """``fn(*args, **kwargs)`` and its wall seconds."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, round(time.perf_counter() - t0, 2)


def stages(events, hierarchy, profile: Profile, users: np.ndarray, short_cap: int) -> dict:
    """Every stage's seconds for ``profile`` (see the module docstring) and what it found."""
    traces, t_gen = timed(generalize, events, profile, hierarchy)
    index, t_index = timed(build_index, traces)
    plain, t_draws = timed(sample_sizes, index, users, kind=UNIFORM, pmax=PMAX, worst=True)
    em_users = users[:1000]
    em_args = dict(em_p=list(range(1, PMAX + 1)), em_users=len(em_users), ref_p=4)
    priors = point_priors(index.list_len, index.n_users)
    _, t_em = timed(sample_sizes, index, em_users, kind=UNIFORM, pmax=PMAX, priors=priors, **em_args)
    budget = search_budget(30.0, len(users), numba.get_num_threads())
    (_, cut), t_search = timed(targeted_sizes, index, users, PMAX, plain["rare"], budget)
    threads = numba.get_num_threads()
    cheap, t_cheap_plan = timed(cheap_p_values, index, list(range(1, PMAX + 1)), 10.0, threads)
    t_exact = sum(timed(exact_pass, index, p, with_em=False)[1] for p in cheap)
    lengths = np.diff(index.trace_ptr)
    short = np.flatnonzero((lengths > 0) & (lengths < PMAX))
    some = np.random.default_rng(0).choice(short, size=min(len(short), short_cap), replace=False)
    _, t_short = timed(whole_trace_sizes, index, some)
    return {
        "profile": profile.label,
        "nnz": int(index.nnz),
        "max_list": int(index.max_list),
        "dense_points": int(index.bitmaps.shape[0]),
        "generalize_s": t_gen,
        "index_s": t_index,
        "draws_s": t_draws,
        "em_1000_s": t_em,
        "search_s": t_search,
        "search_cut": int((cut > 0).sum()),
        "cheap_p": cheap,
        "cheap_plan_s": t_cheap_plan,
        "exact_s": round(t_exact, 2),
        "short_people": len(short),
        "short_s_all": round(t_short * len(short) / max(1, len(some)), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="1M")
    ap.add_argument("--profiles", default="raw:1h,zip:12h,district:12h,district:1w")
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--short", type=int, default=20_000, help="short traces timed (then scaled to all)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    folder = DATA / f"city_{users_of(args.size)}_{DAYS}_parquet"
    ds, t_load = timed(load_dataset, str(folder / "events.parquet"), reader_options(folder), compact=True)
    events, hierarchy = ds.events, ds.hierarchy
    print(f"{args.size}: {events.n_users:,} people, {events.n_events:,} events, read in {t_load} s")
    users = sample_users(events.n_users, args.samples, 0)
    stages(events, hierarchy, Profile.parse("district", "1w"), users[:50], 50)  # compile every kernel
    rows = []
    for text in args.profiles.split(","):
        spatial, temporal = text.split(":")
        rows.append({"size": args.size, **stages(events, hierarchy, Profile.parse(spatial, temporal), users,
                                                 args.short)})  # fmt: skip
        print(json.dumps(rows[-1]), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"load_s": t_load, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
