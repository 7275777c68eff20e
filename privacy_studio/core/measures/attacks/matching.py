"""Matching attack (metrics.md §6): bivariate-Poisson likelihood-ratio scores, maximum-weight assignment,
eccentricity filter, and precision / recall against the eccentricity threshold ε.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from privacy_studio.core.choices import DEFAULT_EPSILONS
from privacy_studio.core.events import EventTable
from privacy_studio.core.generalize import Profile, generalize
from privacy_studio.core.hierarchy import Hierarchy
from privacy_studio.core.kernels.attacks import TERM_POISSON, eccentricity, pair_scores
from privacy_studio.core.measures.attacks.shared_space import merge_tables, truth_pairs
from privacy_studio.core.measures.attacks.sparse_users import (
    UserVectors,
    check_pair_budget,
    shuffled,
    split_traces,
)
from privacy_studio.core.progress import TaskControl, as_control

#: Default ε grid of the precision / recall curve (in standard deviations).


@dataclass
class MatchingResult:
    """Assignment of identified users to anonymous users, with its eccentricities and the ε curve."""

    identified_ids: np.ndarray
    anonymous_ids: np.ndarray
    assignment: np.ndarray  # anonymous code per identified user, -1 if unassigned
    eccentricity: np.ndarray  # per identified user, NaN if unassigned
    truth: np.ndarray  # anonymous code of the same person, -1 if absent
    curve: list[dict] = field(default_factory=list)
    profile: str = ""
    c: float = 0.5

    @property
    def n_true_pairs(self) -> int:
        return int((self.truth >= 0).sum())

    def to_dict(self) -> dict:
        return {
            "attack": "matching",
            "profile": self.profile,
            "c": self.c,
            "n_identified": len(self.identified_ids),
            "n_anonymous": len(self.anonymous_ids),
            "n_true_pairs": self.n_true_pairs,
            "assigned": int((self.assignment >= 0).sum()),
            "assigned_correct": int(((self.assignment >= 0) & (self.assignment == self.truth)).sum()),
            "curve": self.curve,
        }


def precision_recall_curve(
    assignment: np.ndarray, ecc: np.ndarray, truth: np.ndarray, epsilons: tuple[float, ...]
) -> list[dict]:
    """Precision = correct / kept and recall = correct / true pairs, keeping pairs with eccentricity > ε."""
    correct = (assignment >= 0) & (assignment == truth)
    n_true = int((truth >= 0).sum())
    rows = []
    for eps in epsilons:
        kept = (assignment >= 0) & (np.nan_to_num(ecc, nan=-np.inf) > eps)
        n_kept, n_ok = int(kept.sum()), int((kept & correct).sum())
        rows.append(
            {
                "epsilon": float(eps),
                "matched": n_kept,
                "correct": n_ok,
                "precision": n_ok / n_kept if n_kept else None,
                "recall": n_ok / n_true if n_true else None,
            }
        )
    return rows


def bin_rates(first: UserVectors, second: UserVectors, c: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-bin mean counts per user in each dataset, and the shared component θ = c·min(λ1, λ2)."""
    lam1 = np.bincount(first.keys, weights=first.vals, minlength=first.n_bins) / max(first.n_users, 1)
    lam2 = np.bincount(second.keys, weights=second.vals, minlength=second.n_bins) / max(second.n_users, 1)
    return lam1, lam2, c * np.minimum(lam1, lam2)


def matching_scores(first: UserVectors, second: UserVectors, c: float = 0.5) -> np.ndarray:
    """w(u, v) = Σ_b ln φ_b(A1(u, b), A2(v, b)) over every bin, minus the constant of the all-zero bins.

    Decomposed as (terms of u's bins alone) + (terms of v's bins alone) + (correction on shared bins), so
    only the shared bins are visited per pair.
    """
    if not 0.0 <= c < 1.0:
        raise ValueError(f"the shared-component factor c must be in [0, 1), got {c}")
    if first.n_bins != second.n_bins:
        raise ValueError("the two datasets are not on the same bin space")
    check_pair_budget(first.n_users, second.n_users)
    lam1, lam2, theta = bin_rates(first, second, c)
    # ln φ(a, 0) - θ = a·ln((λ1 - θ) / λ1): a closed form for the bins only one of the two users visits.
    with np.errstate(divide="ignore", invalid="ignore"):
        solo1 = np.where(lam1 > 0, np.log((lam1 - theta) / np.where(lam1 > 0, lam1, 1.0)), 0.0)
        solo2 = np.where(lam2 > 0, np.log((lam2 - theta) / np.where(lam2 > 0, lam2, 1.0)), 0.0)
    row_base = np.bincount(first.row_of(), weights=first.vals * solo1[first.keys], minlength=first.n_users)
    col_base = np.bincount(
        second.row_of(), weights=second.vals * solo2[second.keys], minlength=second.n_users
    )
    bin_indptr, bin_users, bin_vals = second.by_bin()
    return pair_scores(
        first.indptr, first.keys, first.vals, bin_indptr, bin_users, bin_vals,
        row_base, col_base, TERM_POISSON, lam1, lam2, theta,
    )  # fmt: skip


def assign_max(scores: np.ndarray) -> np.ndarray:
    """Maximum-weight assignment: the chosen column of every row, -1 for rows left out."""
    rows, cols = linear_sum_assignment(scores, maximize=True)
    out = np.full(scores.shape[0], -1, dtype=np.int64)
    out[rows] = cols
    return out


def matching_attack(
    first: UserVectors,
    second: UserVectors,
    truth: np.ndarray,
    c: float = 0.5,
    epsilons: tuple[float, ...] = DEFAULT_EPSILONS,
    control: TaskControl | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, list[dict]]:
    """Scores, assignment (anonymous codes), eccentricity per identified user, precision / recall curve.

    The anonymous users are scored in a seeded random order, so ties in the assignment are fair guesses.
    """
    ctl = as_control(control)
    ctl.report(0.0, "scoring pairs")
    second, truth, order = shuffled(second, truth, seed)
    scores = matching_scores(first, second, c)
    ctl.report(0.4, "maximum-weight assignment")
    assignment = assign_max(scores)
    ctl.report(0.9, "eccentricity")
    ecc = eccentricity(scores, assignment)
    curve = precision_recall_curve(assignment, ecc, truth, epsilons)
    return np.where(assignment >= 0, order[np.maximum(assignment, 0)], -1), ecc, curve


def run_matching(
    identified: EventTable,
    anonymous: EventTable,
    profile: Profile,
    *,
    hierarchy_identified: Hierarchy | None = None,
    hierarchy_anonymous: Hierarchy | None = None,
    links: list[tuple[str, str]] | None = None,
    c: float = 0.5,
    epsilons: tuple[float, ...] = DEFAULT_EPSILONS,
    control: TaskControl | None = None,
) -> MatchingResult:
    """The whole matching attack on two event tables generalized together under ``profile``."""
    ctl = as_control(control)
    # before merging: an attack too large to score is refused at once, not after the merge of two large
    # tables (30 s on two copies of a 100,000-person city, most of it holding the GIL)
    check_pair_budget(identified.n_users, anonymous.n_users)
    ctl.report(0.0, "generalizing both datasets")
    merged = merge_tables(identified, anonymous, hierarchy_identified, hierarchy_anonymous)
    first, second = split_traces(generalize(merged.events, profile, merged.hierarchy), merged.n_first)
    truth = truth_pairs(identified.user_ids, anonymous.user_ids, links)
    assignment, ecc, curve = matching_attack(first, second, truth, c, epsilons, ctl.sub(0.1, 1.0))
    return MatchingResult(
        identified.user_ids, anonymous.user_ids, assignment, ecc, truth, curve, profile.label, c
    )
