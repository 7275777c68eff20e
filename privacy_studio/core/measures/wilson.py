"""Wilson score interval for a binomial proportion (the unicity estimate's 95 % interval)."""

from __future__ import annotations

import math

from scipy.stats import norm


def wilson_interval(successes: float, trials: float, level: float = 0.95) -> tuple[float, float]:
    """Wilson interval of ``successes / trials`` (either may be an effective, fractional number); (0, 1)
    when there are no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    z = float(norm.ppf(0.5 + level / 2.0))
    phat = successes / trials
    denom = 1.0 + z * z / trials
    centre = (phat + z * z / (2 * trials)) / denom
    half = z * math.sqrt(phat * (1.0 - phat) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
