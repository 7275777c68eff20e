"""Distance-based record linkage between an original numeric file and its masked version (metrics.md §6).

Row i of the masked file is the masked version of row i of the original. Each original record is linked to
its nearest masked record; a record whose nearest distance is shared by t masked records counts 1/t if the
true one is among them. Distances: standardized Euclidean, Mahalanobis, and a weighted mean of per-attribute
squared differences whose weights are learned to maximize correct links (mixed-integer program).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from privacy_studio.core.choices import LINKAGE_DISTANCES
from privacy_studio.core.masking import check_table, information_loss
from privacy_studio.core.progress import TaskControl, as_control

DISTANCES = LINKAGE_DISTANCES
#: Above this many records, learned weights use the relaxation (sampled records, nearest rivals).
EXACT_LIMIT = 60
TRAIN_RECORDS = 100
RIVALS = 10
_CHUNK = 512


def standardize_pair(original: np.ndarray, masked: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both files checked for shape and standardized, each with its own means and standard deviations."""
    original, masked = check_table(original, "original file"), check_table(masked, "masked file")
    if original.shape != masked.shape:
        raise ValueError(
            f"the original file has {original.shape[0]} records x {original.shape[1]} attributes but the "
            f"masked file has {masked.shape[0]} x {masked.shape[1]}: they must describe the same records"
        )
    return _z(original), _z(masked)


def _z(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def squared_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared Euclidean distance of every row of ``a`` to every row of ``b`` (clipped at 0)."""
    d = (a * a).sum(axis=1)[:, None] + (b * b).sum(axis=1)[None, :] - 2.0 * a @ b.T
    return np.maximum(d, 0.0)


def credit_for_true(dist: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Per row: 1/t if the true column is among the t columns at the row's minimum distance, else 0."""
    best = dist.min(axis=1, keepdims=True)
    tol = 1e-9 * np.maximum(1.0, np.abs(best))
    ties = dist <= best + tol
    hit = ties[np.arange(len(dist)), truth]
    return np.where(hit, 1.0 / ties.sum(axis=1), 0.0)


def linked_share(za: np.ndarray, zb: np.ndarray, transform: np.ndarray) -> float:
    """Share of original records linked to their own masked record after mapping both by ``transform``."""
    ta, tb = za @ transform, zb @ transform
    credit = 0.0
    for start in range(0, len(ta), _CHUNK):
        rows = np.arange(start, min(start + _CHUNK, len(ta)))
        credit += credit_for_true(squared_distances(ta[rows], tb), rows).sum()
    return float(credit / len(ta))


def mahalanobis_transform(za: np.ndarray, zb: np.ndarray) -> np.ndarray:
    """Linear map L with ||(a - b) L||² = (a - b)ᵀ S⁺ (a - b), S the covariance of the paired differences."""
    s = np.atleast_2d(np.cov(za - zb, rowvar=False))
    vals, vecs = np.linalg.eigh(s)
    keep = vals > 1e-12 * max(vals.max(), 1e-300)
    if not keep.any():
        return np.eye(za.shape[1])
    return vecs[:, keep] / np.sqrt(vals[keep])


@contextmanager
def _native_stdout_silenced() -> Iterator[None]:
    """Keep the solver's native debug prints off standard output, where the JSON result may go."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


@dataclass
class LearnedWeights:
    """Weights of the weighted-mean distance and how they were found."""

    weights: np.ndarray
    relaxed: bool  # True when the relaxation (sampled records, nearest rivals) was used
    status: str
    train_records: int
    train_correct: int


def learn_weights(za: np.ndarray, zb: np.ndarray, seed: int = 0, time_limit: float = 10.0) -> LearnedWeights:
    """Weights p (p >= 0, Σp = 1) minimizing the records i with some rival j closer than their true match.

    Mixed-integer program: minimize Σ K_i subject to Σ_k p_k (D_ijk - D_iik) + C·K_i >= δ, K_i ∈ {0, 1},
    where D_ijk is the squared standardized difference on attribute k. Up to ``EXACT_LIMIT`` records every
    rival is a constraint; above it, ``TRAIN_RECORDS`` sampled records with their ``RIVALS`` nearest rivals
    (standardized Euclidean) are used, which keeps the program small.
    """
    n, m = za.shape
    relaxed = n > EXACT_LIMIT
    train, ri, rj = _rivals(za, zb, relaxed, seed)
    diff = (za[ri] - zb[rj]) ** 2 - (za[ri] - zb[ri]) ** 2  # (constraints, m)
    delta = 1e-3  # margin well above the solver's integrality tolerance
    big = float(max(0.0, -diff.min())) + delta + 1.0
    k_of = np.searchsorted(train, ri)
    n_k = len(train)
    # Variables: weights p (m), failure flags K (n_k), |p - 1/m| bounds t (m). The t terms weigh less than
    # one record in total, so they only choose, among equally good weightings, the one nearest to equal.
    nv = 2 * m + n_k
    a_rows = np.zeros((len(ri), nv))
    a_rows[:, :m] = diff
    a_rows[np.arange(len(ri)), m + k_of] = big
    simplex = np.zeros((1, nv))
    simplex[0, :m] = 1.0
    eye = np.eye(m)
    pull = np.zeros((2 * m, nv))
    pull[:m, :m], pull[:m, m + n_k :] = -eye, eye  # t - p >= -1/m
    pull[m:, :m], pull[m:, m + n_k :] = eye, eye  # t + p >= 1/m
    with _native_stdout_silenced():
        res = milp(
            c=np.concatenate([np.zeros(m), np.ones(n_k), np.full(m, 0.25)]),
            constraints=[
                LinearConstraint(a_rows, delta, np.inf),
                LinearConstraint(simplex, 1.0, 1.0),
                LinearConstraint(pull, np.r_[np.full(m, -1.0 / m), np.full(m, 1.0 / m)], np.inf),
            ],
            integrality=np.concatenate([np.zeros(m), np.ones(n_k), np.zeros(m)]),
            bounds=Bounds(np.zeros(nv), np.ones(nv)),
            options={"time_limit": time_limit},
        )

    def train_correct(w: np.ndarray) -> int:
        margin = np.full(n_k, np.inf)
        np.minimum.at(margin, k_of, diff @ w)
        return int((margin > 0).sum())

    # A solver stopped by its time limit may hold weights worse than equal ones: keep the better of the two.
    best, status = np.full(m, 1.0 / m), f"{res.message}; equal weights kept"
    if res.x is not None:
        w = np.clip(res.x[:m], 0.0, None)
        if w.sum() > 0 and train_correct(w / w.sum()) >= train_correct(best):
            best, status = w / w.sum(), str(res.message)
    return LearnedWeights(best, relaxed, status, n_k, train_correct(best))


def _rivals(
    za: np.ndarray, zb: np.ndarray, relaxed: bool, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The training records (all, or ``TRAIN_RECORDS`` sampled when ``relaxed``) and the (record, rival)
    pairs of the program's constraints: every other record, or the ``RIVALS`` nearest when relaxed."""
    n = len(za)
    rng = np.random.default_rng(seed)
    train = np.sort(rng.choice(n, size=min(n, TRAIN_RECORDS), replace=False)) if relaxed else np.arange(n)
    rows, rivals = [], []
    for i in train:
        d = ((zb - za[i]) ** 2).sum(axis=1)
        d[i] = np.inf
        others = np.argsort(d, kind="stable")[: min(RIVALS, n - 1)] if relaxed else np.delete(np.arange(n), i)
        rows.append(np.full(len(others), i))
        rivals.append(others)
    return train, np.concatenate(rows), np.concatenate(rivals)


def _no_worse_than_equal(za: np.ndarray, zb: np.ndarray, learned: LearnedWeights) -> tuple[np.ndarray, bool]:
    """Weights of the learned distance, and whether equal weights replaced the relaxation's weights.

    The exact program's optimum links at least as many records as equal weights (they are a feasible
    point); weights trained on a sample can fall below that on the whole file, so equal ones are kept then.
    """
    m = za.shape[1]
    if not learned.relaxed:
        return learned.weights, False
    equal = np.full(m, 1.0 / m)
    if linked_share(za, zb, np.diag(np.sqrt(equal))) > linked_share(
        za, zb, np.diag(np.sqrt(learned.weights))
    ):
        return equal, True
    return learned.weights, False


def record_linkage(
    original: np.ndarray,
    masked: np.ndarray,
    distances: tuple[str, ...] = DISTANCES,
    seed: int = 0,
    control: TaskControl | None = None,
) -> dict:
    """% of correct re-identifications per distance, the learned weights and the information loss."""
    ctl = as_control(control)
    unknown = [d for d in distances if d not in DISTANCES]
    if unknown:
        raise ValueError(f"unknown distance {unknown[0]!r}; use one of {', '.join(DISTANCES)}")
    za, zb = standardize_pair(original, masked)
    if len(za) < 2:
        raise ValueError("record linkage needs at least two records: with one there is nothing to tell apart")
    m = za.shape[1]
    out: dict = {"n_records": len(za), "n_attributes": m, "distances": {}}
    for i, name in enumerate(distances):
        ctl.report(i / len(distances), f"record linkage: {name}")
        if name == "euclidean":
            transform = np.eye(m) / np.sqrt(m)
        elif name == "mahalanobis":
            transform = mahalanobis_transform(za, zb)
        else:
            learned = learn_weights(za, zb, seed)
            weights, equal_kept = _no_worse_than_equal(za, zb, learned)
            transform = np.diag(np.sqrt(weights))
            out["learned"] = {
                "weights": weights.tolist(),
                "relaxed": learned.relaxed,
                "solver_status": learned.status,
                "train_records": learned.train_records,
                "train_correct": learned.train_correct,
                "equal_weights_kept": equal_kept,
            }
        share = linked_share(za, zb, transform)
        out["distances"][name] = {"percent_correct": 100.0 * share, "correct": share * len(za)}
    out["information_loss"] = information_loss(np.asarray(original, float), np.asarray(masked, float))
    return out
