"""``privacy-studio tradeoff``: Pareto front, ordinal equivalence, recommendation and power law of a grid."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from privacy_studio.cli import UserError


def load_inputs(path: Path) -> tuple[list[dict], dict, dict, dict]:
    """Risk results, expert utility, saved trade-off choices and computed utility scores (by profile) of a
    ``.psproj``, or of a ``risk --json`` file (which has only results)."""
    if path.suffix == ".psproj":
        from privacy_studio.core.project import Project, ProjectError

        try:
            project = Project.load(path)
        except ProjectError as exc:
            raise UserError(str(exc)) from exc
        computed = project.analyses.get("information_loss") or {}
        return project.results, project.utility, project.tradeoff, computed
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"cannot read results file {path}: {exc}") from exc
    if not isinstance(document, dict) or not isinstance(document.get("profiles"), list):
        raise UserError(f"{path} is not the JSON of 'privacy-studio risk' (no 'profiles' list)")
    return document["profiles"], {"domains": [], "scores": {}}, {}, {}


def read_scores(path: Path) -> dict:
    """Expert scores from a CSV: a ``profile`` column with profile labels, then one column per domain."""
    import pandas as pd

    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the scores file {path}: {exc}") from exc
    if "profile" not in table.columns or table.shape[1] < 2:
        raise UserError(f"{path}: a scores file needs a 'profile' column and one column per utility domain")
    domains = [c for c in table.columns if c != "profile"]
    scores = {row["profile"]: {d: row[d] or None for d in domains} for row in table.to_dict("records")}
    return {"domains": domains, "scores": scores}


def run(args: argparse.Namespace) -> int:
    from privacy_studio.core.tradeoff import grid_table
    from privacy_studio.core.tradeoff.analysis import analyse
    from privacy_studio.core.utility import UtilityGrid

    results, utility_entry, saved, computed = load_inputs(Path(args.input))
    if args.scores:
        utility_entry = read_scores(Path(args.scores))
    try:
        grid = grid_table(results)
        scores = UtilityGrid.from_dict(utility_entry)
        if not grid.labels:
            raise ValueError("the results hold no profile yet: run the risk analysis first")
        domain = args.utility or saved.get("utility") or (scores.domains or [None])[0]
        if domain is None:
            raise ValueError("no utility scores: give --scores FILE or type expert scores in the project")
        column = utility_column(domain, grid.labels, scores, computed)
        missing = [label for label, value in zip(grid.labels, column, strict=True) if not np.isfinite(value)]
        analysis = analyse(
            grid,
            column,
            measure=args.measure or saved.get("risk_measure", "unicity"),
            p=_p_value(args.p, saved.get("risk_p", 4)),
            utility_name=domain,
            ceiling=args.ceiling if args.ceiling is not None else float(saved.get("ceiling", 0.05)),
            unit_areas=dict(_unit_area(text) for text in args.unit_area),
            period_seconds=args.period_days * 86400 if args.period_days else math.nan,
        )
        document = analysis.to_dict()
        if args.attributes:
            document["risk_by_group"] = groups(args, grid.labels, results, analysis.recommendation.label)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    print(summary(analysis, missing))
    if "risk_by_group" in document:
        print(groups_text(document["risk_by_group"]))
    if args.json:
        from privacy_studio.cli._output import write_output

        write_output(args.json, json.dumps(document, indent=2, ensure_ascii=False))
    return 0


def groups(args: argparse.Namespace, labels: list[str], results: list, recommended: str | None) -> dict:
    """Risk by group at ``--group-profile`` (default: the recommended profile, else the first)."""
    from dataclasses import asdict

    from privacy_studio.core.tradeoff.groups import read_attributes, risk_by_group_of

    label = args.group_profile or recommended or labels[0]
    if label not in labels:
        raise ValueError(f"--group-profile {label!r} is not a profile of the results; they have {labels}")
    report = risk_by_group_of(results[labels.index(label)], read_attributes(args.attributes))
    return {
        "profile": label,
        "n_matched": report.n_matched,
        "n_without_attributes": report.n_without_attributes,
        "n_without_risk": report.n_without_risk,
        "groups": [{k: _json(v) for k, v in asdict(row).items()} for row in report.rows],
    }


def groups_text(doc: dict) -> str:
    """Risk-by-group table for stdout."""
    lines = [
        f"\nRisk by group at {doc['profile']} ({doc['n_matched']:,} users with risk and attributes; "
        f"{doc['n_without_attributes']:,} without attributes, {doc['n_without_risk']:,} without risk):",
        f"{'attribute':<14}{'group':<16}{'users':>8}{'unique':>9}{'odds ratio':>12}  95 % interval",
    ]
    for g in doc["groups"]:
        lines.append(
            f"{g['attribute']:<14}{g['group']:<16}{g['n_users']:>8,}{_num(g['mean_unique']):>9}"
            f"{_num(g['odds_ratio']):>12}  {_num(g['ci_low'])} – {_num(g['ci_high'])}"
        )
    return "\n".join(lines)


def _json(value: object) -> object:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def utility_column(name: str, labels: list[str], scores, computed: dict) -> np.ndarray:
    """The expert domain ``name``, or the computed score of that name (``points_kept``, …) if no domain is."""
    from privacy_studio.core.utility import COMPUTED_SCORES

    if name in COMPUTED_SCORES and name not in scores.domains:
        if not computed:
            raise ValueError(f"the computed score {name!r} has not been computed for this project yet")
        values = [computed.get(label, {}).get(name) for label in labels]
        return np.asarray([np.nan if v is None else v for v in values], dtype=np.float64)
    return scores.column(name, labels)


def summary(analysis, unscored: list[str]) -> str:
    """Human-readable table of the analysis for stdout."""
    width = max(len(label) for label in analysis.labels) + 2
    lines = [f"{'profile':<{width}}{'risk':>10}{'upper':>10}{'utility':>9}  Pareto"]
    for i, label in enumerate(analysis.labels):
        upper = "" if analysis.risk_upper is None else _num(analysis.risk_upper[i])
        by = analysis.pareto.dominated_by.get(label)
        status = (
            "front" if label in analysis.pareto.front else ("dominated by " + ", ".join(by) if by else "-")
        )
        lines.append(
            f"{label:<{width}}{_num(analysis.risk[i]):>10}{upper:>10}{_num(analysis.utility[i]):>9}  {status}"
        )
    table = analysis.ordinal
    lines += ["", "Kendall's tau between risk measures:", " " * 18 + "".join(f"{n:>18}" for n in table.names)]
    lines += [
        f"{a:<18}" + "".join(f"{_num(v):>18}" for v in row)
        for a, row in zip(table.names, table.tau, strict=True)
    ]
    lines += [
        table.message(),
        "",
        "Recommendation: " + analysis.recommendation.reasoning,
        "",
        analysis.power_law_text,
    ]
    if unscored:
        lines.append(f"\nNo utility score for: {', '.join(unscored)} (left out of the Pareto analysis).")
    return "\n".join(lines)


def _num(value: float | None) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.4g}"


def _p_value(text: str | None, default: object) -> int | None:
    value = default if text is None else text
    if value in (None, "none", "null"):
        return None
    try:
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise UserError(f"--p must be a whole number or 'none', got {value!r}") from None


def _unit_area(text: str) -> tuple[str, float]:
    level, _, km2 = text.partition("=")
    try:
        area = float(km2)
    except ValueError:
        area = math.nan
    if not level or not area > 0:
        raise UserError(
            f"--unit-area expects LEVEL=KM2 with a positive area, e.g. district=4.5, got {text!r}"
        )
    return level, area


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tradeoff",
        help="privacy-utility trade-off: Pareto front, ordinal equivalence, recommendation, power law",
        description="Read risk results (a project or the JSON of 'privacy-studio risk') and expert utility "
        "scores, then print the Pareto front, Kendall's tau between risk measures, the most useful profile "
        "under a risk ceiling and the power-law fit of risk against coarseness.",
    )
    p.add_argument("input", metavar="RESULTS.json|PROJECT.psproj")
    p.add_argument("--scores", metavar="CSV", help="expert scores: a 'profile' column, one column per domain")
    p.add_argument(
        "--utility", metavar="DOMAIN", help="utility domain to use (default: saved choice or first)"
    )
    p.add_argument(
        "--measure", help="risk measure: unicity, k_disclosure, em, kl, worst_mean, worst_share_at_1"
    )
    p.add_argument(
        "--p", help="points of adversary knowledge (default: saved choice or 4; 'none' if explicit)"
    )
    p.add_argument("--ceiling", type=float, help="largest acceptable risk (default: saved choice or 0.05)")
    p.add_argument(
        "--unit-area",
        action="append",
        default=[],
        metavar="LEVEL=KM2",
        help="mean unit area of a non-grid spatial level, for the power law (grid:L levels are L²)",
    )
    p.add_argument("--period-days", type=float, help="length of the observation period (for 'all' time bins)")
    p.add_argument("--attributes", metavar="CSV", help="user attributes (user id + columns): risk by group")
    p.add_argument(
        "--group-profile", metavar="LABEL", help="profile for risk by group (default: recommended)"
    )
    p.add_argument("--json", metavar="OUT", help="write the whole analysis as JSON")
    p.set_defaults(func=run)
