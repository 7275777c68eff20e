"""The synthetic city generator: realistic, reproducible CDRs, card payments and attributes for testing.

``generate_city`` writes a folder of files; ``simulate_city`` keeps everything in memory for benchmarks.
"""

from __future__ import annotations

from privacy_studio.core.sample.city import CityModel, CityParams, SimulatedCity, build_city, simulate_city
from privacy_studio.core.sample.generate import CityPaths, generate_city

__all__ = [
    "CityModel",
    "CityParams",
    "CityPaths",
    "SimulatedCity",
    "build_city",
    "generate_city",
    "simulate_city",
]
