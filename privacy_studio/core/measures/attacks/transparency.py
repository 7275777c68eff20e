"""Transparency attack on rank swapping (metrics.md §6): with the method and its window published, the masked
version of an original record can only be among the masked records whose every value lies within the window
of that record's rank on the attribute. Intersecting these candidate sets often pins the record.
"""

from __future__ import annotations

import numpy as np

from privacy_studio.core.kernels.attacks import intersect_candidates
from privacy_studio.core.masking import window_ranks
from privacy_studio.core.measures.attacks.linkage import credit_for_true, squared_distances, standardize_pair


def candidate_bounds(original: np.ndarray, masked: np.ndarray, window: int) -> tuple[np.ndarray, np.ndarray]:
    """Per record and attribute, the value range [lo, hi] a masked value can take (ranks ± ``window``).

    Ranks come from the masked column (rank swapping keeps each marginal); tied values share the whole
    range of ranks they occupy, so the true record is never excluded.
    """
    n, m = masked.shape
    lo, hi = np.empty(original.shape), np.empty(original.shape)
    for j in range(m):
        s = np.sort(masked[:, j])
        first = np.searchsorted(s, original[:, j], side="left")
        last = np.searchsorted(s, original[:, j], side="right") - 1
        lo[:, j] = s[np.clip(first - window, 0, n - 1)]
        hi[:, j] = s[np.clip(last + window, 0, n - 1)]
    return lo, hi


def transparency_attack(
    original: np.ndarray, masked: np.ndarray, *, window: int | None = None, p_percent: float | None = None
) -> dict:
    """Candidate sets of every original record, the share pinned to one record, and linkage inside the sets.

    Give the published window either in ranks (``window``) or in % of the records (``p_percent``). Row i of
    the masked file is taken to be the masked version of original row i, to score the attack.
    """
    za, zb = standardize_pair(original, masked)
    original, masked = np.asarray(original, float), np.asarray(masked, float)
    n = len(masked)
    if (window is None) == (p_percent is None):
        raise ValueError("give the rank-swapping window either in ranks or as p percent (exactly one)")
    if window is None:
        window = window_ranks(n, float(p_percent))
    if window < 0:
        raise ValueError(f"the window must be >= 0 ranks, got {window}")
    lo, hi = candidate_bounds(original, masked, window)
    indptr, rows = intersect_candidates(lo, hi, masked)
    sizes = np.diff(indptr)
    records, credit, contains = [], 0.0, 0
    for i in range(n):
        cand = rows[indptr[i] : indptr[i + 1]]
        rec: dict = {"candidates": (cand + 1).tolist()}
        if len(cand):
            dist = squared_distances(za[i : i + 1], zb[cand])
            rec["linked"] = int(cand[np.argmin(dist[0])] + 1)
            where = np.flatnonzero(cand == i)
            if len(where):
                contains += 1
                credit += float(credit_for_true(dist, where)[0])
        records.append(rec)
    return {
        "window_ranks": int(window),
        "n_records": n,
        "records": records,
        "pinned_share": float(np.mean(sizes == 1)),
        "mean_candidates": float(sizes.mean()),
        "empty_share": float(np.mean(sizes == 0)),
        "true_in_candidates_share": contains / n,
        "linkage_percent_correct": 100.0 * credit / n,
    }
