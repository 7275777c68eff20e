"""Results travel typed from the run to the Decide step; the plots' records are made once per result."""

from __future__ import annotations

from dataclasses import replace

from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.gui.results import ArrivedResult, RecordCache

from .test_responsive import _record


def _result(spatial: str, temporal: str) -> ProfileResult:
    return ProfileResult.from_dict(_record(spatial, temporal))


def test_a_result_keeps_its_record_until_it_is_replaced():
    zip_1h, district_1w = _result("zip", "1h"), _result("district", "1w")
    cache = RecordCache()
    first = cache.records([zip_1h])
    assert first == [zip_1h.to_dict()]
    made_elsewhere = district_1w.to_dict()
    cache.seed(district_1w, made_elsewhere)
    both = cache.records([zip_1h, district_1w])
    assert both[0] is first[0], "a result shown before is not converted again"
    assert both[1] is made_elsewhere, "a record made in the worker is the one the plots read"
    changed = replace(district_1w, n_users=7)
    assert cache.records([zip_1h, changed])[1] == changed.to_dict(), "a replaced result gets its own record"
    assert cache.records([changed])[0]["n_users"] == 7 and len(cache.records([])) == 0


def test_a_finished_profile_reaches_plots_as_its_record_and_the_decide_step_as_itself(window, qtbot):
    arrived = [ArrivedResult(r, r.to_dict()) for r in (_result("zip", "1h"), _result("district", "1w"))]
    window.show_step("decide")
    window.run_worker = object()  # a run is going on: results come one by one
    for step in arrived:
        window._on_step(step)
    assert window.session.project.results == [a.result for a in arrived]
    unicity = window.plots[0]
    assert all(shown is a.record for shown, a in zip(unicity.records, arrived, strict=True))
    panel = window.tradeoff
    qtbot.waitUntil(lambda: len(panel.results) == 2, timeout=3000)
    assert all(kept is a.result for kept, a in zip(panel.results, arrived, strict=True))
    assert panel.grid is not None and panel.grid.labels == ["zip × 1h", "district × 1w"]
    window.run_worker = None


def test_the_unicity_plot_redraws_only_the_curves_of_new_results(window, monkeypatch):
    from privacy_studio.gui.plots import unicity

    drawn: list[str] = []
    draw = unicity._Curve.set_data
    monkeypatch.setattr(unicity._Curve, "set_data", lambda c, *a: (drawn.append(c.record), draw(c, *a)))
    plot = window.plots[0]
    first, second = _record("zip", "1h"), _record("district", "1w")
    plot.set_records([first])
    plot.flush()
    plot.set_records([first, second])
    plot.flush()
    assert len(drawn) == 2, "the zip curve, drawn before, is not drawn again"
    changed = _record("district", "1w")
    changed["by_p"][0]["unicity"] = 0.5
    plot.set_records([first, changed])
    plot.flush()
    assert len(drawn) == 3 and plot.curves["district × 1w"].line.yData[0] == 0.5
