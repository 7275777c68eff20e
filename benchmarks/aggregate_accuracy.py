"""Accuracy of a differentially private aggregate over repeated draws of the noise, against its manifest.

For a project, a profile, a kind, ε, δ and the contribution bound N, it prepares the aggregate R times (the
bound and the true counts stay the same, the noise is drawn anew) and prints the figures the manifest states
beside what the draws show: the expected absolute error per cell (busy and empty cells) and its 95 % bound,
the observed mean absolute error against the bounded counts (the noise) and against the true counts (noise
and bound), the share of cells within the bound, the people the bound cuts, and the utility scores (against
the true counts, and against the grid's finest profile as the microdata candidates are scored). Nothing is
written and the project is not changed.

Usage: python benchmarks/aggregate_accuracy.py PROJECT --profile S:T [--kind density|od] [--epsilon 1]
       [--delta 0] --max-points-per-person N [--runs 20] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from privacy_studio.core.aggregate import AggregateOptions, prepare_aggregate
from privacy_studio.core.aggregate.export import grid_profiles
from privacy_studio.core.analyses import ComputedUtility
from privacy_studio.core.project import Project


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--kind", choices=("density", "od"), default="density")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--delta", type=float, default=0.0)
    parser.add_argument("--max-points-per-person", type=int, required=True)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    project = Project.load(args.project)
    dataset = project.load_dataset()
    options = AggregateOptions.at(
        args.profile, args.kind, args.epsilon, args.delta, args.max_points_per_person
    )
    profiles = grid_profiles(project)
    noise_error, total_error, within, utility, vs_finest = [], [], [], [], []
    for _ in range(args.runs):
        prepared = prepare_aggregate(dataset, options, profiles=profiles)
        f, m = prepared.figures, prepared.mechanism
        noise = np.abs(prepared.released - prepared.counts.bounded)
        noise_error.append(f.mean_abs_error_bounded)
        total_error.append(f.mean_abs_error_true)
        within.append(float((noise <= m.error_bound_95).mean()))
        utility.append(f.utility)
        if f.utility_vs_finest is not None:
            vs_finest.append(f.utility_vs_finest)
    computed = project.analysis(ComputedUtility)
    microdata = None if computed is None else computed.scores.get(options.profile.label, {}).get(f.score)
    result = {
        "options": options.to_dict(),
        "runs": args.runs,
        "cells": f.cells,
        "people": f.people,
        "people_cut": f.people_cut,
        "contributions_cut": f.contributions_cut,
        "contributions": f.contributions,
        "mechanism": m.name,
        "scale": m.scale,
        "expected_abs_error": m.expected_abs_error,
        "expected_abs_error_empty": m.expected_abs_error_empty,
        "error_bound_95": m.error_bound_95,
        "empty_cells_share": float((prepared.counts.true == 0).mean()),
        "observed_abs_error_vs_bounded": float(np.mean(noise_error)),
        "observed_abs_error_vs_true": float(np.mean(total_error)),
        "share_within_bound": float(np.mean(within)),
        "score": f.score,
        "utility_vs_true": float(np.mean(utility)),
        "utility_bound_only": f.utility_bound_only,
        "finest": f.finest,
        "utility_vs_finest": float(np.mean(vs_finest)) if vs_finest else None,
        "microdata_at_profile_vs_finest": microdata,
    }
    for key, value in result.items():
        print(f"{key}: {value}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
