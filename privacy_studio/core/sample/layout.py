"""The synthetic city's geography: antennas over a centre and suburbs, and their nested hierarchy.

Antennas are denser in the centre, like real networks; municipalities are split into districts and
districts into ZIP areas by clustering their antennas, so every ZIP lies in exactly one district and
every district in exactly one municipality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from privacy_studio.core.geo import LocalProjection

#: A fictional city placed in south-eastern France (the default time zone is Europe/Paris).
CITY_CENTRE = LocalProjection(lat0=45.76, lon0=4.84)

MUNICIPALITY_NAMES = (
    "Centreville", "Nordbourg", "Sudmont", "Estival", "Ouestrie", "Beaulac", "Hautpre", "Valroux",
    "Pierrefeu", "Marlieu", "Boisjoli", "Clairval", "Fontenelle", "Grandpre", "Lussac", "Mirabel",
)  # fmt: skip

SHOP_CATEGORIES = ("grocery", "bakery", "restaurant", "cafe", "pharmacy", "fuel", "clothing", "electronics")
#: Typical ticket (EUR) and share of shops of each category, aligned with SHOP_CATEGORIES.
SHOP_MEDIAN_PRICE = np.array([24.0, 6.0, 32.0, 5.5, 17.0, 55.0, 48.0, 120.0])
SHOP_CATEGORY_SHARE = np.array([0.22, 0.14, 0.2, 0.14, 0.08, 0.06, 0.11, 0.05])


@dataclass
class CityLayout:
    """Antennas (index = antenna code) with coordinates, hierarchy codes, neighbours and shops."""

    antenna_ids: np.ndarray  # str
    x_km: np.ndarray
    y_km: np.ndarray
    lat: np.ndarray
    lon: np.ndarray
    zip_code: np.ndarray  # int32 per antenna, into zip_ids
    district: np.ndarray  # int32 per zip, into district_ids
    municipality: np.ndarray  # int32 per district, into municipality_ids
    zip_ids: np.ndarray
    district_ids: np.ndarray
    municipality_ids: np.ndarray
    neighbours: np.ndarray  # (n_antennas, 3) int32: the nearest other antennas
    shop_ids: np.ndarray
    shop_antenna: np.ndarray  # int32 antenna code of each shop
    shop_category: np.ndarray  # int8 index into SHOP_CATEGORIES
    shop_x_km: np.ndarray
    shop_y_km: np.ndarray
    shop_offsets: np.ndarray  # CSR: shops of antenna a are shop_offsets[a]:shop_offsets[a+1]
    tree: cKDTree

    @property
    def n_antennas(self) -> int:
        """Number of antennas."""
        return len(self.antenna_ids)

    def antenna_district(self) -> np.ndarray:
        """District code of each antenna."""
        return self.district[self.zip_code]

    def antenna_municipality(self) -> np.ndarray:
        """Municipality code of each antenna."""
        return self.municipality[self.district[self.zip_code]]

    def nearest_antenna(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Code of the antenna closest to each point (the cell a phone there would use)."""
        _, idx = self.tree.query(np.column_stack([x, y]))
        return idx.astype(np.int32)


def antenna_count(n_users: int) -> int:
    """About 400 antennas for 2,000 users, growing sub-linearly up to 10,000 for a million."""
    return int(np.clip(round(8.0 * max(n_users, 1) ** 0.52), 40, 10_000))


def build_layout(n_users: int, rng: np.random.Generator) -> CityLayout:
    """Place antennas and shops for a population of ``n_users`` and cut the area into nested units."""
    n_ant = antenna_count(n_users)
    n_muni = int(np.clip(3 + round(2 * np.log2(max(n_ant / 400, 1.0))), 3, len(MUNICIPALITY_NAMES)))
    scale = (n_ant / 400) ** 0.25
    x, y, muni = _place_antennas(n_ant, n_muni, scale, rng)
    order = np.lexsort((x, muni))  # ids run through each municipality, west to east
    x, y, muni = x[order], y[order], muni[order]
    x, y = np.round(x, 3), np.round(y, 3)
    lat, lon = CITY_CENTRE.inverse(x, y)
    n_districts = max(round(n_ant / 34), 2 * n_muni)
    n_zips = max(round(n_ant / 7), 2 * n_districts)
    district_of_antenna = _split(x, y, muni, n_districts, rng)
    zip_of_antenna = _split(x, y, district_of_antenna, n_zips, rng)
    zip_district = np.zeros(zip_of_antenna.max() + 1, dtype=np.int32)
    zip_district[zip_of_antenna] = district_of_antenna
    district_muni = np.zeros(district_of_antenna.max() + 1, dtype=np.int32)
    district_muni[district_of_antenna] = muni
    tree = cKDTree(np.column_stack([x, y]))
    _, nb = tree.query(np.column_stack([x, y]), k=4)
    radius = np.hypot(x, y)
    shops_per_antenna = 1 + rng.poisson(3.0 * np.exp(-radius / (6.0 * scale)) + 0.5)
    shop_antenna = np.repeat(np.arange(n_ant, dtype=np.int32), shops_per_antenna)
    shop_offsets = np.zeros(n_ant + 1, dtype=np.int64)
    np.cumsum(shops_per_antenna, out=shop_offsets[1:])
    n_shops = len(shop_antenna)
    angle = rng.uniform(0, 2 * np.pi, n_shops)
    dist = rng.uniform(0.0, 0.3, n_shops)
    return CityLayout(
        antenna_ids=np.array([f"A{i + 1:05d}" for i in range(n_ant)]),
        x_km=x,
        y_km=y,
        lat=np.round(lat, 6),
        lon=np.round(lon, 6),
        zip_code=zip_of_antenna,
        district=zip_district,
        municipality=district_muni,
        zip_ids=_zip_ids(zip_district, district_muni),
        district_ids=np.array([f"D{i + 1:02d}" for i in range(len(district_muni))]),
        municipality_ids=np.array(MUNICIPALITY_NAMES[:n_muni]),
        neighbours=nb[:, 1:4].astype(np.int32),
        shop_ids=np.array([f"S{i + 1:06d}" for i in range(n_shops)]),
        shop_antenna=shop_antenna,
        shop_category=rng.choice(len(SHOP_CATEGORIES), size=n_shops, p=SHOP_CATEGORY_SHARE).astype(np.int8),
        shop_x_km=np.round(x[shop_antenna] + dist * np.cos(angle), 3),
        shop_y_km=np.round(y[shop_antenna] + dist * np.sin(angle), 3),
        shop_offsets=shop_offsets,
        tree=tree,
    )


def _place_antennas(
    n_ant: int, n_muni: int, scale: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Antenna coordinates (km from the centre) and the municipality each falls in.

    Half the antennas cluster tightly around the city centre, the rest around suburb centres on a ring,
    and a few are scattered over the countryside; each joins the municipality nearest in units of its spread.
    """
    ring = 11.0 * scale
    phase = rng.uniform(0, 2 * np.pi)
    angles = phase + 2 * np.pi * np.arange(n_muni - 1) / (n_muni - 1) + rng.normal(0, 0.2, n_muni - 1)
    radii = ring * rng.uniform(0.8, 1.25, n_muni - 1)
    cx = np.concatenate([[0.0], radii * np.cos(angles)])
    cy = np.concatenate([[0.0], radii * np.sin(angles)])
    share = np.concatenate([[0.5], 0.42 * rng.dirichlet(np.full(n_muni - 1, 4.0))])
    share = np.append(share, 0.08)  # countryside
    group = rng.choice(n_muni + 1, size=n_ant, p=share / share.sum())
    sigma = np.concatenate([[3.2 * scale], np.full(n_muni - 1, 2.2 * scale)])
    is_rural = group == n_muni
    g = np.where(is_rural, 0, group)
    x = cx[g] + rng.normal(0, 1, n_ant) * sigma[g]
    y = cy[g] + rng.normal(0, 1, n_ant) * sigma[g]
    r = 1.6 * ring * np.sqrt(rng.uniform(0, 1, n_ant))
    t = rng.uniform(0, 2 * np.pi, n_ant)
    x = np.where(is_rural, r * np.cos(t), x)
    y = np.where(is_rural, r * np.sin(t), y)
    dist = np.hypot(x[:, None] - cx[None, :], y[:, None] - cy[None, :]) / sigma[None, :]
    return x, y, np.argmin(dist, axis=1).astype(np.int32)


def _split(
    x: np.ndarray, y: np.ndarray, parent: np.ndarray, n_total: int, rng: np.random.Generator
) -> np.ndarray:
    """Cluster the antennas of each parent unit into child units (k-means); child codes are global."""
    n_parent = int(parent.max()) + 1
    sizes = np.bincount(parent, minlength=n_parent)
    quota = np.maximum(1, np.round(n_total * sizes / sizes.sum()).astype(int))
    child = np.zeros(len(x), dtype=np.int32)
    next_code = 0
    for p in range(n_parent):
        members = np.flatnonzero(parent == p)
        labels = _kmeans(x[members], y[members], min(quota[p], len(members)), rng)
        child[members] = labels + next_code
        next_code += int(labels.max()) + 1
    return child


def _kmeans(
    x: np.ndarray, y: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 12
) -> np.ndarray:
    """Lloyd's k-means started from random antennas; clusters numbered west to east by their centre."""
    pts = np.column_stack([x, y])
    centres = pts[rng.choice(len(pts), size=k, replace=False)]
    for _ in range(iterations):
        labels = np.argmin(((pts[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2), axis=1)
        for c in range(k):
            if np.any(labels == c):
                centres[c] = pts[labels == c].mean(axis=0)
    used = np.unique(labels)
    order = used[np.argsort(centres[used, 0], kind="stable")]
    remap = np.full(k, -1, dtype=np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    return remap[labels]


def _zip_ids(zip_district: np.ndarray, district_muni: np.ndarray) -> np.ndarray:
    """Postcode-like ids: 69, 70 ... for the municipality, then the ZIP's rank in it (no leading zero)."""
    muni = district_muni[zip_district]
    rank = np.zeros(len(zip_district), dtype=np.int64)
    for m in np.unique(muni):
        idx = np.flatnonzero(muni == m)
        rank[idx] = np.arange(1, len(idx) + 1)
    width = max(3, len(str(int(rank.max()))))
    return np.array([f"{69 + int(m)}{int(r):0{width}d}" for m, r in zip(muni, rank, strict=True)])
