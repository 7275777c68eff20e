"""Which column plays which role, and which of the studio's formats a set of columns is."""

from __future__ import annotations

import re

from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.options import ROLE_ALIASES, ROLES, ReaderOptions

_LOOKS_LIKE_DATA = re.compile(r"^\s*[-+]?[\d.:/T Z-]+\s*$")


def check_header(names: list[str], path: str) -> None:
    """Refuse duplicate, blank or data-looking header names with a hint."""
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        key = name.strip().lower()
        if key in seen:
            raise ReaderError(
                f"the header names column {name!r} twice (columns {seen[key] + 1} and {i + 1})", path, line=1
            )
        seen[key] = i
    if names and sum(bool(_LOOKS_LIKE_DATA.match(n)) for n in names) * 2 > len(names):
        raise ReaderError(
            f"the first line ({', '.join(repr(n) for n in names)}) looks like data, not a header; "
            "pass --no-header --columns user,time,... naming each column's role",
            path,
            line=1,
        )


def resolve_roles(names: list[str], options: ReaderOptions, path: str) -> dict[str, str]:
    """Map role -> column name: explicit ``--map`` first, then the recognized names (case-insensitive)."""
    lower = {n.strip().lower(): n for n in names}
    roles: dict[str, str] = {}
    for role, column in options.mapping.items():
        if column not in names and column.lower() not in lower:
            raise ReaderError(
                f"--map {role}={column}: no such column; the columns are {', '.join(names)}",
                path,
                column=column,
            )
        roles[role] = column if column in names else lower[column.lower()]
    taken = set(roles.values())
    for role in ROLES:
        if role in roles:
            continue
        found = [lower[a] for a in ROLE_ALIASES[role] if a in lower and lower[a] not in taken]
        if len(found) > 1:
            raise ReaderError(
                f"columns {' and '.join(repr(f) for f in found)} could both be the {role}; "
                f"choose one with --map {role}=COLUMN",
                path,
            )
        if found:
            roles[role] = found[0]
            taken.add(found[0])
    return roles


def detect_format(roles: dict[str, str], requested: str) -> str:
    """The requested format, or for ``auto`` the one the columns suggest."""
    if requested != "auto":
        return requested
    if "start" in roles and "end" in roles and "time" not in roles:
        return "sessions"
    if "merchant" in roles and "amount" in roles and "location" not in roles:
        return "transactions"
    if {"interaction", "direction", "correspondent"} & set(roles):
        return "cdr"
    return "events"


def check_roles(fmt: str, roles: dict[str, str], names: list[str], path: str, user_from_name: bool) -> None:
    """Raise a ReaderError naming what is missing for ``fmt``."""
    have = ", ".join(names)
    if "user" not in roles and not user_from_name:
        raise ReaderError(
            f"no user column (expected user, user_id or uid, or --map user=COLUMN); columns: {have}",
            path,
        )
    if fmt == "sessions":
        for role in ("start", "end"):
            if role not in roles:
                raise ReaderError(
                    f"a session log needs a {role} column (or --map {role}=COLUMN); columns: {have}", path
                )
    elif "time" not in roles:
        raise ReaderError(
            f"no time column (expected time, timestamp, datetime or date, or --map time=COLUMN); "
            f"columns: {have}",
            path,
        )
    if fmt == "transactions" and "merchant" not in roles and "location" not in roles:
        raise ReaderError(f"card transactions need a shop or merchant column; columns: {have}", path)
    has_xy = "x_km" in roles and "y_km" in roles
    has_latlon = "lat" in roles and "lon" in roles
    if ("lat" in roles) != ("lon" in roles):
        raise ReaderError(
            "latitude and longitude must come together", path, column=roles.get("lat", roles.get("lon"))
        )
    if not (has_xy or has_latlon or "location" in roles or "merchant" in roles):
        raise ReaderError(
            "no place column: expected a location/antenna_id, lat+lon or x_km+y_km "
            f"(or --map location=COLUMN); columns: {have}",
            path,
        )


def headerless_names(options: ReaderOptions, n_fields: int, path: str) -> list[str]:
    """Column names of a headerless file: the ``--columns`` roles (``_`` or blank skips a column)."""
    if not options.columns:
        raise ReaderError(
            "--no-header needs --columns naming each column's role, e.g. user,time,lat,lon,location", path
        )
    cols = [c.strip() for c in options.columns]
    if len(cols) != n_fields:
        raise ReaderError(f"--columns names {len(cols)} columns but the file has {n_fields}", path, line=1)
    bad = [c for c in cols if c not in ROLES and c not in ("", "_")]
    if bad:
        raise ReaderError(f"--columns: unknown role(s) {', '.join(bad)}; roles are {', '.join(ROLES)}", path)
    return [c if c not in ("", "_") else f"_skip{i}" for i, c in enumerate(cols)]
