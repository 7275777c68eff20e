"""``privacy-studio tradeoff``: Pareto front, ordinal equivalence, recommendation and power law of a grid."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from privacy_studio.cli import UserError
from privacy_studio.core.atomic import write_text
from privacy_studio.core.numbers import number, share
from privacy_studio.core.risk.catalogue import RISK_FIELDS, format_value
from privacy_studio.core.user_keys import project_salt

if TYPE_CHECKING:
    from privacy_studio.core.project import Project
    from privacy_studio.core.tradeoff.analysis import TradeoffAnalysis
    from privacy_studio.core.tradeoff.candidates import SearchResult
    from privacy_studio.core.tradeoff.decision import DecisionInputs


def load_inputs(path: Path, save: bool = False) -> tuple[DecisionInputs, Project | None, bool]:
    """What the decision is derived from, the project when ``path`` is a ``.psproj`` (its analysis and
    protection search are run first when it has no results, as ``project run`` does, and saved in it with
    ``save``), and whether they were run; a ``risk --json`` file gives results only."""
    from privacy_studio.cli.project import analyse_project
    from privacy_studio.core.tradeoff.decision import DecisionInputs

    if path.suffix == ".psproj":
        from privacy_studio.core.project import Project, ProjectError

        try:
            project = Project.load(path)
            had_results = bool(project.results) or not project.sources
            if not had_results:
                print(f"{path}: no results yet, running the analysis first", file=sys.stderr)
                if analyse_project(project, search=True) != 0:
                    raise UserError("the analysis was cancelled")
                if save:
                    project.save()
            from privacy_studio.core.project_run import decision_inputs

            return decision_inputs(project), project, not had_results
        except (ProjectError, ValueError) as exc:
            raise UserError(str(exc)) from exc
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise UserError(f"cannot read results file {path}: {exc}") from None
    except ValueError:  # an integer of thousands of digits
        raise UserError(
            f"{path}: holds a number of thousands of digits, not results of 'privacy-studio risk'"
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("profiles"), list):
        raise UserError(f"{path} is not the JSON of 'privacy-studio risk' (no 'profiles' list)")
    from privacy_studio.core.risk.results import results_of

    try:
        return DecisionInputs(results_of(document["profiles"], str(path))), None, False
    except ValueError as exc:
        raise UserError(str(exc)) from None


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
    from privacy_studio.core.release.search import is_current
    from privacy_studio.core.tradeoff.criteria import ATTRIBUTE_CRITERIA, ReleaseCriteria
    from privacy_studio.core.tradeoff.decision import Overrides, decide
    from privacy_studio.core.utility import UtilityGrid

    flags = {
        "ceiling": args.ceiling,
        "max_unique_traces": args.max_unique_traces,
        "max_worst_share": args.max_worst_share,
        "max_excluded": args.max_excluded,
        **{key: getattr(args, key) for key in ATTRIBUTE_CRITERIA},
    }
    criteria: dict = {k: v for k, v in flags.items() if v is not None}
    if args.limit_reason:
        criteria["reasons"] = {k: args.limit_reason for k in criteria if k != "ceiling"}
    try:
        replace(ReleaseCriteria(), **criteria)  # a bad limit is refused before any work
        overrides = Overrides(
            measure=args.measure,
            p="saved" if args.p is None else _p_value(args.p),
            utility=args.utility,
            criteria=criteria,
            unit_areas=dict(_unit_area(text) for text in args.unit_area),
            period_seconds=args.period_days * 86400 if args.period_days else None,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    inputs, project, searched = load_inputs(Path(args.input), args.save or args.search)
    found = protection_search(project, args.search and not searched)
    if args.scores:
        inputs.experts = UtilityGrid.from_dict(read_scores(Path(args.scores)))
    try:
        analysis = decide(inputs, overrides)
        missing = [x for x, v in zip(analysis.labels, analysis.utility, strict=True) if not math.isfinite(v)]
        document = analysis.to_dict()
        fresh = found is not None and project is not None and is_current(project, found, analysis)
        current = found if fresh and not args.scores else None
        document["recommendation"].update(recommendation_fields(current, analysis))
        document["candidates"] = (
            None if found is None else {**found.to_dict(), "current": current is not None}
        )
        if args.attributes:
            labels = analysis.labels
            document["risk_by_group"] = groups(args, labels, inputs.results, analysis.recommendation.label)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    print(summary(analysis, missing))
    if found is not None:
        from privacy_studio.core.utility import utility_title

        note = [] if current is not None else ["(judged by the project's saved choices, not this command's)"]
        print("", *found.lines(utility_title(found.utility_name)), *note, sep="\n")
    if "risk_by_group" in document:
        print(groups_text(document["risk_by_group"]))
    if args.json:
        write_text(args.json, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return 0


def protection_search(project: Project | None, run_it: bool) -> SearchResult | None:
    """The project's protection search (run and saved first with ``--search``); None for a results file."""
    from privacy_studio.core.project import ProjectError
    from privacy_studio.core.tradeoff.candidates import SearchResult

    if project is None:
        if run_it:
            raise UserError(
                "--search needs a project (.psproj): it prepares releases from the project's data"
            )
        return None
    try:
        if run_it:
            from privacy_studio.cli.project import search_project

            if search_project(project) != 0:
                raise UserError("the search was cancelled; the project is unchanged")
            project.save()
        return project.analysis(SearchResult)
    except (ProjectError, ValueError) as exc:
        raise UserError(str(exc)) from None


def recommendation_fields(found: SearchResult | None, analysis: TradeoffAnalysis) -> dict:
    """``recommendation.suppression``, ``released_people``, ``total_people`` and ``candidate``: from the
    project's current protection search, else the recommended profile released whole (no suppression)."""
    from privacy_studio.core.tradeoff.candidates import Suppression

    if found is not None:
        c = found.recommended
        if c is None:
            return {"suppression": None, "released_people": None, "total_people": None, "candidate": None}
        return {
            "suppression": c.suppression.to_dict(),
            "released_people": c.released_people,
            "total_people": c.total_people,
            "candidate": c.to_dict(),
        }
    label = analysis.recommendation.label
    people = None if label is None else analysis.population[analysis.labels.index(label)].in_file
    return {
        "suppression": None if label is None else Suppression().to_dict(),
        "released_people": people,
        "total_people": people,
        "candidate": None,
    }


def groups(args: argparse.Namespace, labels: list[str], results: list, recommended: str | None) -> dict:
    """Risk by group at ``--group-profile`` (default: the recommended profile, else the first)."""
    from privacy_studio.core.analyses import RiskByGroup
    from privacy_studio.core.tradeoff.groups import read_attributes, risk_by_group_of

    label = args.group_profile or recommended or labels[0]
    if label not in labels:
        raise ValueError(f"--group-profile {label!r} is not a profile of the results; they have {labels}")
    salt = None
    if Path(args.input).suffix == ".psproj":  # a project names its users by salted keys
        from privacy_studio.core.project import Project

        salt = project_salt(Project.load(args.input).analyses)
    report = risk_by_group_of(results[labels.index(label)], read_attributes(args.attributes), salt)
    return RiskByGroup(label, report).to_dict()


def groups_text(doc: dict) -> str:
    """Risk-by-group table for stdout."""
    from privacy_studio.core.analyses import RiskByGroup

    analysis = RiskByGroup.from_dict(doc)
    report = analysis.report
    lines = [
        f"\nRisk by group at {analysis.profile} ({report.n_matched:,} users with risk and attributes; "
        f"{report.n_without_attributes:,} without attributes, {report.n_without_risk:,} without risk):",
        f"{'attribute':<14}{'group':<16}{'users':>8}{'unique':>9}  odds ratio [95 % interval]",
    ]
    for g in report.rows:
        lines.append(
            f"{g.attribute:<14}{g.group:<16}{g.n_users:>8,}{share(g.mean_unique):>9}  {report.odds_text(g)}"
        )
    return "\n".join(lines)


def summary(analysis, unscored: list[str]) -> str:
    """Human-readable table of the analysis for stdout."""
    from privacy_studio.core.naming import label_words

    names = [label_words(label) for label in analysis.labels]
    width = max(len(name) for name in names) + 2
    risk = partial(format_value, analysis.measure)
    lines = [f"{'profile':<{width}}{'risk':>10}{'upper':>10}{'utility':>9}  Pareto"]
    for i, (label, name) in enumerate(zip(analysis.labels, names, strict=True)):
        upper = "" if analysis.risk_upper is None else risk(analysis.risk_upper[i])
        by = analysis.pareto.dominated_by.get(label)
        status = (
            "front"
            if label in analysis.pareto.front
            else ("dominated by " + ", ".join(map(label_words, by)) if by else "-")
        )
        utility = number(analysis.utility[i])
        lines.append(f"{name:<{width}}{risk(analysis.risk[i]):>10}{upper:>10}{utility:>9}  {status}")
    table = analysis.ordinal
    measures = [
        f"({k}) {RISK_FIELDS[n].label if n in RISK_FIELDS else n}" for k, n in enumerate(table.names, 1)
    ]
    first = max(len(m) for m in measures) + 2
    header = " " * first + "".join(f"{f'({k})':>8}" for k in range(1, len(measures) + 1))
    lines += ["", "Kendall's tau between risk measures (columns numbered as the rows):", header]
    lines += [
        f"{a:<{first}}" + "".join(f"{number(v):>8}" for v in row)
        for a, row in zip(measures, table.tau, strict=True)
    ]
    lines += [
        table.message(),
        *([analysis.ranking_note] if analysis.ranking_note else []),
        "",
        *analysis.criteria_lines(),
        "",
        *analysis.decision_lines(),
        "",
        analysis.power_law_text,
    ]
    if unscored:
        lines.append(
            f"\nNo utility score for: {', '.join(map(label_words, unscored))} (left out of the Pareto "
            "analysis)."
        )
    return "\n".join(lines)


def _p_value(text: str) -> int | None:
    if text in ("none", "null"):
        return None
    try:
        return int(text)
    except ValueError:
        raise UserError(f"--p must be a whole number or 'none', got {text!r}") from None


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
    _add_choices(p)
    _add_criteria(p)
    _add_sizes_and_outputs(p)
    p.set_defaults(func=run)


def _add_choices(p: argparse.ArgumentParser) -> None:
    """The decision's choices: utility domain, risk measure, p and ceiling (default: the saved ones)."""
    p.add_argument(
        "--utility", metavar="DOMAIN", help="utility domain to use (default: saved choice or first)"
    )
    p.add_argument(
        "--measure",
        help=f"risk measure: a result field ({', '.join(RISK_FIELDS)}) or a measure's name, as in risk "
        "--measures",
    )
    p.add_argument(
        "--p", help="points of adversary knowledge (default: saved choice or 4; 'none' if explicit)"
    )
    p.add_argument(
        "--ceiling",
        type=float,
        help="largest acceptable risk, judged on the upper end of its 95 %% interval, strictly between 0 "
        "and 1 (default: saved choice or 0.05)",
    )


def _add_criteria(p: argparse.ArgumentParser) -> None:
    """The release criteria besides the ceiling, and why they differ from their defaults."""
    p.add_argument(
        "--max-unique-traces",
        type=float,
        metavar="SHARE",
        help="criterion: largest share of unique whole traces (default: the ceiling; a change needs "
        "--limit-reason)",
    )
    p.add_argument(
        "--max-worst-share",
        type=float,
        metavar="SHARE",
        help="criterion: largest share at worst-case risk 1 (default: the ceiling; a change needs "
        "--limit-reason)",
    )
    p.add_argument(
        "--max-excluded",
        type=float,
        metavar="SHARE",
        help="criterion: largest share of people excluded at p (default: not used; needs --limit-reason)",
    )
    p.add_argument(
        "--limit-reason",
        metavar="TEXT",
        help="why the limits given here differ from their defaults (kept in the decision record)",
    )
    for flag, what in (
        ("--max-homogeneous", "in a class with one value"),
        ("--max-below-distinct-l", "in a class with fewer than l values"),
        ("--max-below-entropy-l", "in a class below entropy l"),
        ("--max-above-t", "in a class farther than t from the file"),
    ):
        p.add_argument(
            flag,
            type=float,
            metavar="SHARE",
            help=f"criterion: largest share of people {what}, for the worst sensitive attribute "
            "(attribute disclosure: risk --sensitive)",
        )


def _add_sizes_and_outputs(p: argparse.ArgumentParser) -> None:
    """Profile sizes for the power law, risk by group, and what the command writes or saves."""
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
    p.add_argument(
        "--save", action="store_true", help="store the analysis run for a project without results in it"
    )
    p.add_argument(
        "--search",
        action="store_true",
        help="search every profile with a ladder of suppression settings, measured as written, and save it "
        "in the project (project run does it too); the most useful passing candidate is recommended",
    )
