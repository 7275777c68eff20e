"""``privacy-studio measures [--json]``: every risk measure the studio computes, from the catalogue."""

from __future__ import annotations

import argparse
import json
import sys

from privacy_studio.core.explanations import EXPLANATIONS
from privacy_studio.core.risk.catalogue import CATALOGUE, Measure


def describe(measure: Measure) -> dict:
    """A measure as scripts read it: name, result fields, unit, label and plain-language explanation."""
    explanation = EXPLANATIONS[measure.explanation]
    return {
        "name": measure.name,
        "fields": measure.result_fields(),
        "unit": measure.unit,
        "label": measure.label,
        "explanation": explanation.text(),
        "formula": explanation.formula,
        "proportion": measure.proportion,
        "default": measure.default,
        "aliases": list(measure.aliases),
    }


def run(args: argparse.Namespace) -> int:
    rows = [describe(m) for m in CATALOGUE]
    if args.json:
        sys.stdout.write(json.dumps({"measures": rows}, indent=1, ensure_ascii=False) + "\n")
        return 0
    for row in rows:
        print(f"{row['name']} — {row['label']} ({row['unit']}); result fields: {', '.join(row['fields'])}")
        print(f"    {row['formula']}")
        print(f"    {row['explanation']}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("measures", help="list every risk measure: name, result fields, unit, explanation")
    p.add_argument("--json", action="store_true", help="print the list as JSON (for scripts)")
    p.set_defaults(func=run)
