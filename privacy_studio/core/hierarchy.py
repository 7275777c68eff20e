"""Spatial hierarchies: every location mapped to its unit at each coarser named level.

Read from ``location_id,level_1,level_2,...`` files (e.g. antenna, zip, district, municipality); the
first column is the location itself, the following columns its enclosing units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Hierarchy:
    """Codes of the enclosing unit of every location code, for each named level."""

    location_level: str  # name of the first column (e.g. "antenna")
    levels: tuple[str, ...]  # coarser level names, finest first
    unit_codes: dict[str, np.ndarray]  # level -> int32 array indexed by location code
    unit_ids: dict[str, np.ndarray]  # level -> original unit ids (str), index = unit code

    def n_units(self, level: str) -> int:
        return len(self.unit_ids[level])

    def has_level(self, level: str) -> bool:
        return level == self.location_level or level in self.levels

    @classmethod
    def from_mapping(
        cls, location_ids: np.ndarray, location_level: str, columns: dict[str, np.ndarray]
    ) -> Hierarchy:
        """Build from one array of unit ids per level, aligned with ``location_ids`` (the event codes)."""
        unit_codes: dict[str, np.ndarray] = {}
        unit_ids: dict[str, np.ndarray] = {}
        for level, values in columns.items():
            if len(values) != len(location_ids):
                raise ValueError(
                    f"hierarchy level {level!r} has {len(values)} entries for {len(location_ids)} locations"
                )
            ids, codes = np.unique(np.asarray(values).astype(str), return_inverse=True)
            unit_codes[level] = codes.astype(np.int32)
            unit_ids[level] = ids
        return cls(location_level, tuple(columns), unit_codes, unit_ids)
