"""The in-memory risk engine's grid runs (``run_grid``) and the pieces other engines share with it.

``grid`` runs the profiles; ``derivation`` makes coarser traces from finer ones; ``sampled`` and
``exact_runs`` compute one profile's figures by sampling or enumeration; ``models`` covers the knowledge
models beyond the sampled kernels (explicit, matching, Python-drawn orders) and the sensitive attributes.
"""

from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.runner.derivation import (
    DerivationPlan,
    base_profile,
    check_levels,
    derive_traces,
    from_pool,
    unit_map,
)
from privacy_studio.core.runner.exact_runs import (
    add_file_populations,
    estimate_exact_run,
    exact_p_values,
    exact_when_cheap,
)
from privacy_studio.core.runner.grid import rows_not_needed, run_grid, run_profile
from privacy_studio.core.runner.models import load_sensitive, python_orders
from privacy_studio.core.runner.sampled import (
    CHUNK_USERS,
    all_points_unicity,
    fill_short_traces,
    per_user_details,
    results_by_p,
    sample_users,
)

__all__ = [
    "CHUNK_USERS",
    "DerivationPlan",
    "RiskSettings",
    "add_file_populations",
    "all_points_unicity",
    "base_profile",
    "check_levels",
    "derive_traces",
    "estimate_exact_run",
    "exact_p_values",
    "exact_when_cheap",
    "fill_short_traces",
    "from_pool",
    "load_sensitive",
    "per_user_details",
    "python_orders",
    "results_by_p",
    "rows_not_needed",
    "run_grid",
    "run_profile",
    "sample_users",
    "unit_map",
]
