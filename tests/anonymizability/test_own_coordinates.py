"""Anonymizability of a file with both lat/lon and x_km/y_km measures distances in the file's own km."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy_studio.cli import main
from privacy_studio.core.io import ReaderOptions, load_dataset
from privacy_studio.core.measures.anonymizability import DistanceParams, anonymizability
from tests.anonymizability import anonymizability_reference as ref

T0 = dt.datetime(2024, 3, 5, tzinfo=dt.UTC)


@st.composite
def rows_with_disagreeing_coordinates(draw):
    """(user, seconds, x_km, y_km, lat, lon) rows; lat/lon drawn independently of x_km/y_km."""
    n_users = draw(st.integers(2, 5))
    rows = []
    for u in range(n_users):
        for _ in range(draw(st.integers(1, 4))):
            rows.append(
                (
                    u,
                    draw(st.integers(0, 6 * 3600)),
                    draw(st.sampled_from([0.0, 0.4, 1.5, 7.25, 30.0])),
                    draw(st.sampled_from([0.0, 2.0, 3.5, 25.0])),
                    draw(st.floats(40.0, 50.0)),
                    draw(st.floats(0.0, 10.0)),
                )
            )
    return rows


def write_csv(path: Path, rows) -> str:
    lines = ["user,time,x_km,y_km,lat,lon"]
    for u, s, x, y, lat, lon in rows:
        stamp = (T0 + dt.timedelta(seconds=s)).isoformat().replace("+00:00", "Z")
        lines.append(f"u{u},{stamp},{x!r},{y!r},{lat!r},{lon!r}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def reference_deltas(rows, user_ids, k: int, params: DistanceParams) -> list[float]:
    """Δ per user from the plain-Python reference, on the file's x_km/y_km."""
    code = {f"u{u}": i for i, u in enumerate(user_ids)}
    users = [code[f"u{r[0]}"] for r in rows]
    fps = ref.fingerprints(users, [r[1] / 60.0 for r in rows], [r[2] for r in rows], [r[3] for r in rows])
    expected = ref.anonymizability(fps, range(len(user_ids)), (k,), params.kernel_args())
    return [row[0] for row in expected[k]]


@given(rows_with_disagreeing_coordinates())
@settings(max_examples=25, deadline=None)
def test_distances_come_from_the_files_km_not_its_lat_lon(tmp_path_factory, rows):
    path = write_csv(tmp_path_factory.mktemp("own") / "events.csv", rows)
    params = DistanceParams(smax_km=5.0, tmax_h=2.0)
    result = anonymizability(load_dataset(path, ReaderOptions(use_cache=False)).events, (2,), params=params)
    users = [int(name[1:]) for name in result.user_ids.tolist()]
    np.testing.assert_allclose(
        result.delta[0], reference_deltas(rows, users, 2, params), rtol=1e-9, atol=1e-12
    )


def test_the_cli_measures_in_the_files_km(tmp_path):
    """Two users at one minute: 3 km apart in x_km/y_km, hundreds of km apart in lat/lon."""
    rows = [(0, 0, 0.0, 0.0, 45.0, 4.0), (1, 0, 3.0, 0.0, 48.0, 2.0)]
    path = write_csv(tmp_path / "events.csv", rows)
    out = tmp_path / "anon.json"
    assert main(["anonymizability", path, "--k", "2", "--smax-km", "20", "--json", str(out), "--quiet"]) == 0
    delta = json.loads(out.read_text())["results"][0]["delta"]
    assert delta == [0.5 * 3.0 / 20.0] * 2  # w_s · min(|Δx| + |Δy|, smax) / smax, no time gap
