"""Differentially private aggregates of a project's data: people per place and time bin, or moves between
consecutive places per time bin, with each person's contribution bounded and noise from OpenDP.

``prepare_aggregate`` bounds, counts and adds the noise (nothing written, so the window can preview it);
``write_aggregate`` writes the full grid of cells and the manifest beside it. docs/aggregate.md describes the
guarantee, the file and the manifest.
"""

from privacy_studio.core.aggregate.export import PreparedAggregate, prepare_aggregate, write_aggregate
from privacy_studio.core.aggregate.manifest import AggregateManifest
from privacy_studio.core.aggregate.options import KINDS, AggregateError, AggregateOptions

__all__ = [
    "KINDS",
    "AggregateError",
    "AggregateManifest",
    "AggregateOptions",
    "PreparedAggregate",
    "prepare_aggregate",
    "write_aggregate",
]
