"""The noise of an aggregate, through OpenDP: discrete Laplace for (ε, 0), discrete Gaussian for (ε, δ).

Neighbouring datasets differ by one person. After the bound a person counts 1 in at most N cells, so the
vector of all cells moves by at most N in L1 norm and √N in L2 norm when one person is added or removed.
The whole budget goes to one noisy vector of every cell (no split between cells: the sensitivity covers
them together). With δ = 0, OpenDP's Laplace measurement on integers (discrete Laplace) is calibrated to
(L1 = N, ε); with δ > 0, its Gaussian measurement on integers (discrete Gaussian, zero-concentrated DP)
is calibrated to (L2 = √N) and converted by OpenDP to (ε, δ)-DP. OpenDP's own search finds the scale.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from importlib.metadata import version
from typing import Any

import numpy as np

from privacy_studio.core.aggregate.options import plain

LIBRARY = "opendp"
#: Share of cells whose noise stays within the stated bound.
COVERAGE = 0.95


@dataclass(frozen=True)
class Mechanism:
    """The calibrated noise and what it costs in accuracy (per cell, before clamping at 0)."""

    name: str  # "discrete Laplace" | "discrete Gaussian"
    library: str
    library_version: str
    sensitivity_norm: str  # "L1" | "L2"
    sensitivity: float
    scale: float  # Laplace: b of exp(-|x|/b); Gaussian: σ of exp(-x²/2σ²)
    epsilon: float
    delta: float
    rho: float | None  # zero-concentrated DP parameter of the Gaussian before conversion
    expected_abs_error: float  # E|noise|: a busy cell's expected error
    expected_abs_error_empty: float  # E[max(noise, 0)]: an empty cell's, once clamped at 0 (half of E|noise|)
    error_bound_95: int  # |noise| ≤ this in 95 % of cells

    def describe(self) -> str:
        """The mechanism and budget in one sentence (manifest, report, dialog)."""
        conversion = "" if self.rho is None else f" (ρ = {plain(self.rho)} zero-concentrated DP, converted)"
        return (
            f"{self.name} noise of scale {plain(self.scale)} from {self.library} {self.library_version}, "
            f"added to every cell: the whole budget ε = {plain(self.epsilon)}, δ = "
            f"{plain(self.delta)}{conversion} is spent once on the vector of all cells, whose "
            f"{self.sensitivity_norm} sensitivity is {plain(self.sensitivity)} after the bound"
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _opendp():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    return dp


def _measurement(delta: float, scale: float):
    """The OpenDP measurement over integer vectors at ``scale``: (ε)-DP Laplace or (ε, δ)-DP Gaussian."""
    dp = _opendp()
    if delta == 0:
        return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=scale)
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(_gaussian(scale)), delta=delta)


def _gaussian(scale: float):
    dp = _opendp()
    return dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T=int)), dp.l2_distance(T=float), scale=scale)


def sensitivity(delta: float, bound: int) -> int | float:
    """How far one person moves the vector of cells: N in L1 (Laplace), √N in L2 (Gaussian, never below)."""
    return bound if delta == 0 else math.nextafter(math.sqrt(bound), math.inf)


def calibrate(epsilon: float, delta: float, bound: int) -> Mechanism:
    """The smallest scale OpenDP accepts for (ε, δ) at contribution bound ``bound``, and its accuracy."""
    dp = _opendp()
    d_out: Any = epsilon if delta == 0 else (epsilon, delta)
    d_in = sensitivity(delta, bound)
    scale = dp.binary_search_param(lambda s: _measurement(delta, s), d_in=d_in, d_out=d_out)
    if not _measurement(delta, scale).check(d_in, d_out):  # OpenDP's own privacy map, not ours
        raise RuntimeError(f"OpenDP refused its own scale {scale} for ε = {epsilon}, δ = {delta}")
    rho = None if delta == 0 else float(_gaussian(scale).map(d_in))
    name = "discrete Laplace" if delta == 0 else "discrete Gaussian"
    support, pmf = noise_distribution(name, scale)
    return Mechanism(
        name,
        LIBRARY,
        version(LIBRARY),
        "L1" if delta == 0 else "L2",
        float(d_in),
        float(scale),
        float(epsilon),
        float(delta),
        rho,
        float(np.abs(support) @ pmf),
        float(np.maximum(support, 0) @ pmf),
        bound_covering(support, pmf, COVERAGE),
    )


def noise_distribution(name: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Integer support and probabilities of the noise (tails beyond 40 scales, below e^-40, left out)."""
    reach = math.ceil(40 * scale) + 10
    support = np.arange(-reach, reach + 1)
    if name == "discrete Laplace":
        weight = np.exp(-np.abs(support) / scale)
    else:
        weight = np.exp(-(support.astype(np.float64) ** 2) / (2 * scale * scale))
    return support, weight / weight.sum()


def bound_covering(support: np.ndarray, pmf: np.ndarray, coverage: float) -> int:
    """The smallest b with P(|noise| ≤ b) ≥ ``coverage``."""
    by_size = np.bincount(np.abs(support), weights=pmf)
    return int(np.searchsorted(np.cumsum(by_size), coverage - 1e-12))


def add_noise(counts: np.ndarray, mechanism: Mechanism) -> np.ndarray:
    """Run the OpenDP measurement on the bounded counts; the result is a new int64 array (not clamped)."""
    return np.asarray(_measurement(mechanism.delta, mechanism.scale)(counts.tolist()), dtype=np.int64)


def post_process(noisy: np.ndarray) -> np.ndarray:
    """Clamp negative counts to 0: post-processing, so the guarantee holds; it only moves a cell towards
    every possible true count (all ≥ 0), never away from it."""
    return np.maximum(noisy, 0)
