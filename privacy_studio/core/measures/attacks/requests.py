"""One entry point for every attack from a JSON-ready request, shared by the command line and the studio.

A request names the attack and its inputs as file paths plus reader options, so it can be saved in a project
and run again. ``run_attack`` returns the JSON-ready result; ``describe`` turns results into plain sentences
for the studio and the report.
"""

from __future__ import annotations

import csv
from typing import Any

from privacy_studio.core.progress import TaskControl, as_control

ATTACKS = ("matching", "profiling", "linkage", "transparency")


def read_links(path: str | None) -> list[tuple[str, str]] | None:
    """Ground-truth pairs from a CSV with a header and two columns (identified id, anonymous id)."""
    if not path:
        return None
    from privacy_studio.core.io.sniff import check_side_table

    check_side_table(path)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except OSError as exc:
        raise ValueError(f"cannot read the links file {path}: {exc.strerror or exc}") from None
    bad = next((i for i, r in enumerate(rows[1:], start=2) if len(r) < 2), None)
    if bad is not None:
        raise ValueError(f"{path}, line {bad}: expected two columns (identified id, anonymous id)")
    return [(r[0], r[1]) for r in rows[1:]]


def _load(side: dict[str, Any], control: TaskControl) -> Any:
    from privacy_studio.core.io import ReaderError, ReaderOptions, load_dataset

    try:
        return load_dataset(side["path"], ReaderOptions.from_dict(side.get("reader", {})), control)
    except ReaderError as exc:
        raise ValueError(str(exc)) from None


def _tables(request: dict[str, Any]) -> tuple[Any, Any]:
    """The original and masked numeric tables of a request, checked to have the same width."""
    from privacy_studio.core.measures.attacks.features import read_numeric_table

    columns = request.get("columns")
    orig, cols = read_numeric_table(request["original"], columns)
    masked, mcols = read_numeric_table(request["masked"], columns)
    if len(cols) != len(mcols):
        raise ValueError(
            f"{request['original']} has {len(cols)} numeric attributes but {request['masked']} has "
            f"{len(mcols)}: the files must have the same width (pick the same ones with --columns)"
        )
    if sorted(cols) == sorted(mcols):  # same names in another order: pair attributes by name, not position
        mcols = cols
    return orig[cols].to_numpy(float), masked[mcols].to_numpy(float)


def run_attack(request: dict[str, Any], control: TaskControl | None = None) -> dict[str, Any]:
    """Run the attack a request describes; raise ``ValueError`` with a readable message on bad input."""
    ctl = as_control(control)
    kind = request.get("attack")
    if kind in ("matching", "profiling"):
        links = read_links(request.get("links"))  # the cheap file first, so its errors come at once
        ctl.report(0.0, "reading the identified dataset")
        a = _load(request["identified"], ctl.sub(0.0, 0.15))
        ctl.report(0.15, "reading the anonymous dataset")
        b = _load(request["anonymous"], ctl.sub(0.15, 0.3))
        common = {
            "hierarchy_identified": a.hierarchy,
            "hierarchy_anonymous": b.hierarchy,
            "links": links,
            "control": ctl.sub(0.3, 1.0),
        }
        if kind == "matching":
            return _matching(request, a.events, b.events, common)
        return _profiling(request, a.events, b.events, common)
    if kind == "linkage":
        from privacy_studio.core.measures.attacks.linkage import DISTANCES, record_linkage

        x, y = _tables(request)
        distances = tuple(request.get("distances") or DISTANCES)
        return {"attack": "linkage", **record_linkage(x, y, distances, request.get("seed", 0), ctl)}
    if kind == "transparency":
        from privacy_studio.core.measures.attacks.transparency import transparency_attack

        x, y = _tables(request)
        result = transparency_attack(
            x, y, window=request.get("window_ranks"), p_percent=request.get("p_percent")
        )
        return {"attack": "transparency", **result}
    raise ValueError(f"unknown attack {kind!r}; use one of {', '.join(ATTACKS)}")


def _matching(request: dict[str, Any], a: Any, b: Any, common: dict[str, Any]) -> dict[str, Any]:
    from privacy_studio.core.generalize import Profile
    from privacy_studio.core.measures.attacks.matching import DEFAULT_EPSILONS, run_matching

    profile = Profile.parse(
        request.get("spatial", "raw"), request.get("temporal", "1h"), request.get("price_bins")
    )
    epsilons = tuple(request.get("epsilons") or DEFAULT_EPSILONS)
    return run_matching(a, b, profile, c=request.get("c", 0.5), epsilons=epsilons, **common).to_dict()


def _profiling(request: dict[str, Any], a: Any, b: Any, common: dict[str, Any]) -> dict[str, Any]:
    from privacy_studio.core.generalize import SpatialLevel
    from privacy_studio.core.measures.attacks.profiling import DEFAULT_SIZES, DEFAULT_TOP_K, run_profiling

    return run_profiling(
        a,
        b,
        SpatialLevel.parse(request.get("spatial", "raw")),
        distance=request.get("distance", "js"),
        hour_of_week=bool(request.get("hour_of_week", False)),
        sizes=tuple(request.get("sizes") or DEFAULT_SIZES),
        top_k=tuple(request.get("top_k") or DEFAULT_TOP_K),
        seed=request.get("seed", 0),
        **common,
    ).to_dict()


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f} %"


def describe(kind: str, r: dict[str, Any]) -> str:
    """One plain sentence about an attack result, for the studio and the report."""
    if kind == "matching":
        first = r["curve"][0] if r["curve"] else {}
        return (
            f"Matching ({r['profile']}): {r['n_identified']:,} identified vs {r['n_anonymous']:,} anonymous "
            f"people, {r['n_true_pairs']:,} true pairs. Without filter {r['assigned_correct']:,} of "
            f"{r['assigned']:,} assignments are right; at ε = {first.get('epsilon', 0)} precision "
            f"{_pct(first.get('precision'))}, recall {_pct(first.get('recall'))}."
        )
    if kind == "profiling":
        last = r["curve"][-1] if r["curve"] else {}
        cells = f"{r['spatial']}{' x hour of week' if r['hour_of_week'] else ''}"
        return (
            f"Profiling ({r['distance']} on {cells}): accuracy {_pct(last.get('accuracy'))} over the whole "
            f"population of {last.get('population', 0):,}."
        )
    if kind == "linkage":
        parts = ", ".join(f"{k} {v['percent_correct']:.1f} %" for k, v in r["distances"].items())
        loss = r.get("information_loss", {}).get("score", float("nan"))
        return (
            f"Record linkage on {r['n_records']:,} records x {r['n_attributes']} attributes: {parts} "
            f"re-identified; information loss score {loss:.4g}."
        )
    return (
        f"Transparency attack (window {r['window_ranks']} ranks, {r['n_records']:,} records): "
        f"{_pct(r['pinned_share'])} pinned to a single masked record, {r['mean_candidates']:.2f} "
        f"candidates on average, {r['linkage_percent_correct']:.1f} % re-identified by linkage inside the "
        "candidate sets."
    )
