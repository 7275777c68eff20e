"""Projection of latitude / longitude to planar kilometres for grids and distances.

The studio uses a local equirectangular projection centred on the data: x = R·Δλ·cos φ0, y = R·Δφ.
Within a city or a region (a few hundred km) its distance error stays below about 1 %, which is far
below the grid sizes a release officer picks, and it needs no projection library.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EARTH_RADIUS_KM = 6371.0088


@dataclass(frozen=True)
class LocalProjection:
    """Equirectangular projection around (lat0, lon0), in kilometres."""

    lat0: float
    lon0: float

    @classmethod
    def centred_on(cls, lat: np.ndarray, lon: np.ndarray) -> LocalProjection:
        """The projection centred on the mean of the finite coordinates (0, 0 if there are none)."""
        ok = np.isfinite(lat) & np.isfinite(lon)
        if not ok.any():
            return cls(0.0, 0.0)
        return cls(float(np.mean(lat[ok])), float(np.mean(lon[ok])))

    def forward(self, lat: np.ndarray, lon: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x_km, y_km) of each point."""
        k = np.pi / 180.0 * EARTH_RADIUS_KM
        x = (np.asarray(lon, dtype=np.float64) - self.lon0) * k * np.cos(np.radians(self.lat0))
        y = (np.asarray(lat, dtype=np.float64) - self.lat0) * k
        return x, y

    def inverse(self, x_km: np.ndarray, y_km: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lat, lon) of each projected point."""
        k = np.pi / 180.0 * EARTH_RADIUS_KM
        lat = np.asarray(y_km, dtype=np.float64) / k + self.lat0
        lon = np.asarray(x_km, dtype=np.float64) / (k * np.cos(np.radians(self.lat0))) + self.lon0
        return lat, lon
