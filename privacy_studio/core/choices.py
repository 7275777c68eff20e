"""Option values and defaults of the attacks and masking methods, as plain data: the command line offers
them without importing the computations (numba, scipy), so ``privacy-studio --help`` starts fast."""

from __future__ import annotations

#: Distances of record linkage on masked numeric files.
LINKAGE_DISTANCES = ("euclidean", "mahalanobis", "learned")
#: ε values of the matching attack: 0 to 5 in steps of 0.25.
DEFAULT_EPSILONS = tuple(0.25 * i for i in range(21))
#: Histogram distances, population sizes and top-k of the profiling attack.
PROFILING_DISTANCES = ("js", "cosine", "l1", "dot")
DEFAULT_SIZES = (100, 200, 500, 1000, 2000, 5000, 10000)
DEFAULT_TOP_K = (1, 5, 10)
#: Tabular masking methods.
MASKING_METHODS = ("noise", "multiplicative", "micro", "rankswap", "rankswap-dist")
