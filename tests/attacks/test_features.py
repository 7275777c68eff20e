"""Per-user numeric attributes against a plain loop over the events."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privacy_studio.core.events import build_event_table
from privacy_studio.core.measures.attacks.features import read_numeric_table, user_features

events = st.lists(
    st.tuples(st.sampled_from("abc"), st.integers(0, 5 * 86400), st.integers(0, 4), st.floats(1, 100)),
    min_size=1,
    max_size=30,
)


@given(rows=events)
def test_features_equal_loop(rows):
    users, times, places, amounts = zip(*rows, strict=True)
    xy = {p: (float(p), float(p * p)) for p in range(5)}
    table = build_event_table(
        np.array(users), np.array(times), np.array([f"L{p}" for p in places]),
        x_km=np.array([xy[p][0] for p in places]), y_km=np.array([xy[p][1] for p in places]),
        amount=np.array(amounts),
    )  # fmt: skip
    got = user_features(table)
    for u in sorted(set(users)):
        mine = [r for r in rows if r[0] == u]
        row = got.loc[u]
        assert row["events"] == len(mine)
        assert row["active_days"] == len({t // 86400 for _, t, _, _ in mine})
        assert row["distinct_places"] == len({p for _, _, p, _ in mine})
        mx = sum(xy[p][0] for _, _, p, _ in mine) / len(mine)
        my = sum(xy[p][1] for _, _, p, _ in mine) / len(mine)
        rg = math.sqrt(sum((xy[p][0] - mx) ** 2 + (xy[p][1] - my) ** 2 for _, _, p, _ in mine) / len(mine))
        assert row["radius_of_gyration_km"] == pytest.approx(rg, abs=1e-9)
        counts = Counter(f"L{p}" for _, _, p, _ in mine)
        top = max(counts.values())
        home = min(k for k, c in counts.items() if c == top)
        assert (row["home_x_km"], row["home_y_km"]) == xy[int(home[1:])]
        assert row["spend"] == pytest.approx(sum(a for *_, a in mine))


def test_numeric_table_errors(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("id,a,b\nx,1,2\ny,3,\n")
    with pytest.raises(ValueError, match="'id' is not numeric; choose the numeric ones with --columns"):
        read_numeric_table(str(f))
    with pytest.raises(ValueError, match="'b' has an empty value on line 3"):
        read_numeric_table(str(f), ["a", "b"])
    with pytest.raises(ValueError, match="no column 'c'"):
        read_numeric_table(str(f), ["c"])
    frame, cols = read_numeric_table(str(f), ["a"])
    assert cols == ["a"] and frame["a"].tolist() == [1, 3]
