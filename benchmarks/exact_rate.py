"""Exact mode's enumeration alone on one thread: p-subsets per CPU-second (run by ``bench_wait.py``).

Reads Gowalla NYC, builds the (venue, day) index, then times ``exact_pass`` at p = 2 warm, without and with
EM/KL, and prints one JSON line per case.

    python benchmarks/exact_rate.py /work/shared/real_data/gowalla_nyc/gowalla_events_nyc.tsv.gz
"""

from __future__ import annotations

import json
import sys
import time

import numba

from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.index import build_index
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.measures.exact import exact_pass


def main(path: str) -> None:
    columns = ["user", "time", "lat", "lon", "location"]
    dataset = load_dataset(path, ReaderOptions(header=False, columns=columns))
    index = build_index(generalize(dataset.events, Profile.parse("raw", "1d"), dataset.hierarchy))
    numba.set_num_threads(1)
    for with_em in (False, True):
        exact_pass(index, 2, with_em)  # compiles, or loads from the cache
        t0, c0 = time.perf_counter(), time.process_time()
        done = exact_pass(index, 2, with_em)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(json.dumps({"with_em": with_em, "subsets": done.subsets, "wall_s": wall, "cpu_s": cpu}))


if __name__ == "__main__":
    main(sys.argv[1])
