"""How long ``core.events.build_event_table`` keeps a window waiting (issue #27): it codes string ids into
integers on a worker thread during a release read-back and an attack's merge, while the GUI thread needs the
interpreter lock to turn its event loop.

A Qt-free heartbeat stands in for the event loop: the main thread sleeps 5 ms at a time and records the
longest gap between two wake-ups while a worker thread builds the table. Two inputs, of the shapes those
callers pass: string user and place ids (a release read back), and the same with a location table whose
order the codes follow (an attack's merge). Each runs in a fresh process on the base tree and on this one,
in the same invocation (``baseline.py``).

Usage: python benchmarks/bench_event_table.py [--events N] [--users N] [--base REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time

from baseline import run_timed, trees, write_results

CASES = ("string ids", "with a location table")


def inputs(events: int, users: int, places: int, seed: int = 1) -> dict:
    """Random events: user ids ``u<n>`` and place ids ``p<n>`` as numpy strings, times in one month."""
    import numpy as np

    rng = np.random.default_rng(seed)
    user = np.char.add("u", rng.integers(0, users, events).astype(str))
    place = np.char.add("p", rng.integers(0, places, events).astype(str))
    time_ = rng.integers(1_700_000_000, 1_700_000_000 + 30 * 86_400, events)
    return {"user": user, "time": time_, "place": place, "place_ids": np.unique(place)}


def measure(case: str, data: dict) -> dict:
    """Seconds of one build on a worker thread and the longest heartbeat gap meanwhile (ms)."""
    import numpy as np

    from privacy_studio.core.events import LocationTable, build_event_table

    kwargs = {}
    if case == "with a location table":
        ids = data["place_ids"]
        nan = np.full(len(ids), np.nan)
        kwargs["locations"] = LocationTable(ids, nan, nan, nan, nan)
    worker = threading.Thread(
        target=build_event_table, args=(data["user"], data["time"], data["place"]), kwargs=kwargs
    )
    gaps, t0 = [], time.perf_counter()
    worker.start()
    last = t0
    while worker.is_alive():
        time.sleep(0.005)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    worker.join()
    return {"case": case, "s": time.perf_counter() - t0, "gap_max_ms": 1000 * max(gaps or [0.0])}


def child(events: int, users: int) -> None:
    """Every case on one input, as JSON on stdout (one warm-up build first, so imports are not timed)."""
    data = inputs(events, users, max(1, users // 5))
    measure(CASES[0], inputs(1000, 100, 20))
    print(json.dumps([measure(case, data) for case in CASES]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=3_000_000)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--base", default="HEAD~1")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.events, args.users)
        return 0
    rows = []
    with trees(None if args.no_baseline else args.base) as all_trees:
        for tree in all_trees:
            argv = [__file__, "--child", "--events", str(args.events), "--users", str(args.users)]
            done = run_timed(tree, argv)
            if done.returncode != 0:
                print(f"{tree.label}: {done.stderr.strip()[-400:]}", file=sys.stderr)
                continue
            rows += [{"tree": tree.label, **r} for r in json.loads(done.stdout)]
    print(f"{args.events:,} events, {args.users:,} users; longest heartbeat gap while the table is built")
    print("tree | input | s | max gap ms")
    print("--- | --- | --- | ---")
    for r in rows:
        print(f"{r['tree']} | {r['case']} | {r['s']:.2f} | {r['gap_max_ms']:,.0f}")
    payload = {"base": args.base, "events": args.events, "users": args.users, "rows": rows}
    print(f"written {write_results('bench_event_table', payload)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
