"""``privacy-studio warmup`` compiles every kernel specialization a real analysis uses, so none waits."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

from numba.core.registry import CPUDispatcher

import privacy_studio.core

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"


def studio_kernels() -> dict[str, CPUDispatcher]:
    """Every numba kernel defined in the core (name -> dispatcher)."""
    found = {}
    for info in pkgutil.walk_packages(privacy_studio.core.__path__, "privacy_studio.core."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.py_func.__module__ == info.name:
                found[f"{info.name}.{name}"] = value
    return found


def loaded_counts() -> dict[str, int]:
    """Per kernel, the specializations this process compiled or read from numba's cache (misses + hits).

    One the process already holds is neither: so what grows after the warm-up is what it did not prepare.
    """
    return {
        name: sum(k.stats.cache_misses.values()) + sum(k.stats.cache_hits.values())
        for name, k in studio_kernels().items()
    }


WORKLOAD = f"""
import json
from privacy_studio.cli import main
from privacy_studio.core.warmup import warm_up
from tests.test_warmup import loaded_counts

steps = warm_up()
before = loaded_counts()
data = ["{SAMPLE / "events.csv"}", "--antennas", "{SAMPLE / "antennas.csv"}", "--hierarchy",
        "{SAMPLE / "hierarchy.csv"}", "--tz", "Europe/Paris"]
assert main(["risk", *data, "--spatial", "antenna,zip,district", "--temporal", "1h,1w", "--p", "1-4",
             "--samples", "300", "--json", "/dev/null"]) == 0
assert main(["risk", *data, "--spatial", "grid:1,antenna", "--temporal", "1h,1min", "--p", "1-2",
             "--samples", "100", "--json", "/dev/null"]) == 0  # km cells; d far above the points
assert main(["risk", *data, "--spatial", "district", "--temporal", "1w", "--p", "2", "--exact",
             "--measures", "unicity,kdisc,worst", "--json", "/dev/null"]) == 0
assert main(["risk", *data, "--engine", "duckdb", "--spatial", "antenna,district", "--temporal", "1h,1w",
             "--p", "1-2", "--samples", "100", "--json", "/dev/null"]) == 0  # the fetch's own kernels
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.project_run import computed_utility
from privacy_studio.core.risk.settings import RiskSettings
sample = load_dataset(data[0], ReaderOptions(antennas=data[2], hierarchy=data[4], tz="Europe/Paris"))
computed_utility(sample, RiskSettings(spatial=["antenna", "district", "grid:1"], temporal=["1h", "1w"]))
after = loaded_counts()
new = {{k: after[k] - before[k] for k in after if after[k] > before[k]}}
print(json.dumps({{"steps": list(steps), "new": new}}))
"""


def test_after_the_warmup_a_real_analysis_compiles_nothing():
    """The warm-up runs every step, then risk runs (in memory and out of core) and the information loss of
    the sample data (in its local time, as the sample project reads it) need no other specialization."""
    done = subprocess.run(
        [sys.executable, "-c", WORKLOAD], capture_output=True, text=True, cwd=ROOT, timeout=1800
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    from privacy_studio.core.warmup import STEPS

    assert {step.name for step in STEPS} <= set(result["steps"])
    assert result["new"] == {}
