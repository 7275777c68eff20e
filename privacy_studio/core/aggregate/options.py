"""What the officer asks of an aggregate: profile, kind of table, privacy loss and contribution bound."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from privacy_studio.core.generalize import Profile
from privacy_studio.core.release.options import ReleaseError, parse_profile

#: ``density``: distinct people per (place, time bin); ``od``: distinct people moving from one place to the
#: next (consecutive points of their trace) per time bin of the origin.
KINDS = ("density", "od")


def plain(value: float, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, never in e-notation (δ = 0.000001, not 1e-06)."""
    return np.format_float_positional(value, precision=digits, unique=False, fractional=False, trim="-")


class AggregateError(ReleaseError):
    """An aggregate that cannot be made as asked: one sentence saying why; nothing was written (a kind of
    release error, so a damaged aggregate record in the release history is reported like any other)."""


@dataclass(frozen=True)
class AggregateOptions:
    """Profile labels, kind, (ε, δ) for the whole file and the most cells one person may count in."""

    spatial: str
    temporal: str
    kind: str
    epsilon: float
    delta: float
    max_points_per_person: int

    @classmethod
    def at(cls, profile: str, kind: str, epsilon: float, delta: float, bound: int) -> AggregateOptions:
        """The options for a profile as ``--profile`` takes it (``district:1w``); not yet validated."""
        parsed = parse_profile(profile)
        return cls(parsed.spatial.label, parsed.temporal.label, kind, epsilon, delta, bound)

    @property
    def profile(self) -> Profile:
        try:
            return Profile.parse(self.spatial, self.temporal)
        except ValueError as exc:
            raise AggregateError(f"profile {self.spatial}:{self.temporal}: {exc}") from None

    def validate(self) -> None:
        """Raise :class:`AggregateError` for a choice no release can honour (before any data is touched)."""
        if self.kind not in KINDS:
            raise AggregateError(f"the kind must be density or od, got {self.kind!r}")
        eps = self.epsilon
        if isinstance(eps, bool) or not isinstance(eps, int | float) or not (math.isfinite(eps) and eps > 0):
            raise AggregateError(f"ε (--epsilon) must be a positive number, got {eps!r}")
        delta = self.delta
        if isinstance(delta, bool) or not isinstance(delta, int | float) or not 0 <= delta < 1:
            raise AggregateError(f"δ (--delta) must be at least 0 and below 1, got {delta!r}")
        n = self.max_points_per_person
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise AggregateError(
                f"the contribution bound (--max-points-per-person) must be a whole number of at least 1, "
                f"got {n!r}"
            )
        self.profile  # noqa: B018 - raises AggregateError for a malformed profile

    @property
    def label(self) -> str:
        """E.g. ``density at district × 1w, ε = 1``."""
        delta = f", δ = {plain(self.delta)}" if self.delta else ""
        return f"{self.kind} at {self.profile.label}, ε = {plain(self.epsilon)}{delta}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
