"""The bundled ``sample_data/`` is exactly what the command in its README writes today."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from privacy_studio.core.sample import generate_city

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.mark.slow
def test_sample_data_matches_the_documented_command(tmp_path):
    if not (SAMPLE / "meta.json").exists():
        pytest.skip("no sample_data folder next to the tests (installed package)")
    readme = (SAMPLE / "README.md").read_text()
    command = re.search(r"privacy-studio generate (.+?)--out sample_data", readme.replace("\\\n", " "), re.S)
    assert command, "sample_data/README.md must show the generate command"
    args = dict(re.findall(r"--([\w-]+) (\S+)", command.group(1)))
    params = json.loads((SAMPLE / "meta.json").read_text())["parameters"]
    assert args == {
        "users": str(params["n_users"]),
        "days": str(params["days"]),
        "seed": str(params["seed"]),
        "start": params["start"],
        "tz": params["tz"],
        "cdr-layout": params["cdr_layout"],
        "periods": str(params["periods"]),
    }
    fresh = generate_city(
        int(args["users"]), int(args["days"]), int(args["seed"]), tmp_path / "s", args["start"], args["tz"],
        cdr_layout=args["cdr-layout"], periods=int(args["periods"]),
    )  # fmt: skip
    for path in fresh.files():
        name = path.relative_to(fresh.root)
        assert (SAMPLE / name).read_bytes() == path.read_bytes(), f"sample_data/{name} is out of date"
