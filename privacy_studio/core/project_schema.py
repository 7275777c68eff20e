"""The ``.psproj`` document: its schema version, the migrations from older schemas, and the validation of
every field (a clear sentence naming the place of the first problem). ``core.project`` builds the typed
project from a document that passed here; ``docs/project-format.md`` describes the layout."""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from privacy_studio import __version__
from privacy_studio.core import json_parts
from privacy_studio.core.report_details import ReportDetails
from privacy_studio.core.risk.catalogue import DEFAULT_RISK
from privacy_studio.core.risk.results import ProfileResult, results_of
from privacy_studio.core.saved_figures import check_saved_result
from privacy_studio.core.user_keys import KEY as USER_KEYS
from privacy_studio.core.user_keys import check_salt

SCHEMA_VERSION = 3
FORMAT_TAG = "privacy-studio-project"
SOURCE_ROLES = ("events", "attributes")


class ProjectError(Exception):
    """A project file that cannot be read or written: the message names the file, the problem, the fix."""


def now() -> str:
    """The time of day in UTC to the second, as project files record it."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def default_utility() -> dict[str, Any]:
    return {"domains": [], "scores": {}}


def default_engine() -> dict[str, Any]:
    return {"name": "numba", "memory_limit": None, "temp_dir": None, "spark_master": None}


def default_tradeoff() -> dict[str, Any]:
    return {"risk_measure": DEFAULT_RISK, "risk_p": 4, "utility": None, "ceiling": 0.05}


def parse_results(results: list[dict[str, Any]], origin: str) -> list[ProfileResult]:
    """The saved results (already range-checked) as typed results, read once when the project opens."""
    try:
        return results_of(results, f"{origin}: results")
    except ValueError as exc:
        raise ProjectError(str(exc)) from None


#: Bytes decoded in one call: decoding a 59 MB project at once held the GIL 30-55 ms (a pause of the window).
DECODE_CHUNK = 1 << 22


def _decoded(raw: bytes, origin: str) -> str:
    """The bytes as UTF-8 text (a byte-order mark dropped), decoded a slice at a time so a worker reading a
    large project lets the window's thread run between slices."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    view, parts = memoryview(raw), []
    for start in range(0, len(raw), DECODE_CHUNK):
        try:
            parts.append(
                decoder.decode(view[start : start + DECODE_CHUNK], final=start + DECODE_CHUNK >= len(raw))
            )
        except UnicodeDecodeError:
            raise ProjectError(
                f"{origin}: not UTF-8 text (byte {_first_bad_byte(raw)}); expected a project in JSON"
            ) from None
    return "".join(parts)


def _first_bad_byte(raw: bytes) -> int:
    """Where the bytes stop being UTF-8, counted from the file's start (the sliced decoder counts from the
    bytes it held over, which may begin in the previous slice)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return len(raw)


def parse_document(raw: bytes, origin: str) -> Any:
    """Decode the bytes of a project file as UTF-8 JSON, with a readable message for each failure."""
    if not raw or raw.isspace():  # isspace stops at the first other byte; strip() copied 59 MB (30 ms)
        raise ProjectError(f"{origin}: the file is empty; expected a Privacy Studio project (JSON)")
    if b"\0" in raw[:4096]:
        raise ProjectError(f"{origin}: this is a binary file, not a Privacy Studio project (JSON text)")
    text = _decoded(raw, origin)
    try:
        return json_parts.loads(text)  # in parts: a large file read in a worker lets the window paint
    except RecursionError:
        raise ProjectError(f"{origin}: nested too deeply to be a Privacy Studio project") from None
    except json.JSONDecodeError as exc:
        hint = " — the file looks truncated" if exc.pos >= len(text.rstrip()) - 1 else ""
        raise ProjectError(
            f"{origin}: not valid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}){hint}"
        ) from None
    except ValueError:  # an integer with more digits than Python converts
        raise ProjectError(
            f"{origin}: holds a number of thousands of digits, which no project field takes; "
            "this is not a Privacy Studio project or it is damaged"
        ) from None


def _version_of(d: dict[str, Any], origin: str) -> int:
    if "schema_version" in d:
        version = d["schema_version"]
    elif d.get("format") == FORMAT_TAG and "version" in d:
        version = d["version"]  # schema 0 called it "version"
    else:
        raise ProjectError(f"{origin}: no schema version; expected a Privacy Studio project (.psproj)")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ProjectError(f"{origin}: schema version {version!r} is not a non-negative whole number")
    if version > SCHEMA_VERSION:
        by = d.get("app_version", "a newer version")
        raise ProjectError(
            f"{origin}: written by Privacy Studio {by} with schema {version}; this studio ({__version__}) "
            f"reads schema {SCHEMA_VERSION} and older — update the studio to open it"
        )
    return version


def _migrate_0_to_1(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 0 (studio 0.0.x) had one ``data`` block and a flat grid; schema 1 has sources + settings."""
    data = dict(d.get("data") or {})
    path = data.pop("events", None)
    if not isinstance(path, str):
        raise ValueError("data.events (the events file path) is missing")
    sha = data.pop("events_sha256", None)
    grid = d.get("grid") or {}
    p_max = d.get("p_max", 10)
    if not isinstance(p_max, int) or p_max < 1:
        raise ValueError(f"p_max must be a whole number >= 1, got {p_max!r}")
    settings = {
        "spatial": list(grid.get("spatial", [])),
        "temporal": list(grid.get("temporal", [])),
        "p_values": list(range(1, p_max + 1)),
        "seed": d.get("seed", 0),
    }
    return {
        "format": FORMAT_TAG,
        "schema_version": 1,
        "app_version": d.get("app_version", "0.0"),
        "name": d.get("title", "Untitled"),
        "created": d.get("saved", now()),
        "modified": d.get("saved", now()),
        "sources": [{"path": path, "sha256": sha, "reader": data, "role": "events"}],
        "settings": settings,
        "results": list(d.get("results", [])),
        "import_report": None,
        "utility": default_utility(),
        "tradeoff": default_tradeoff(),
        "analyses": {},
    }


def _migrate_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 adds the risk engine choice; older projects ran on the in-memory numba engine."""
    return {**d, "schema_version": 2, "engine": default_engine()}


def _migrate_2_to_3(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 3 adds the price axis of the grid (``settings.price``); older grids never released the amount
    (``none``). Their results need no change: a result without ``price`` is a profile without price bins."""
    settings = d.get("settings")
    if isinstance(settings, dict) and settings:
        settings = {**settings, "price": settings.get("price", ["none"])}
    return {**d, "schema_version": 3, "settings": settings}


#: ``_MIGRATIONS[v]`` turns a schema-``v`` document into a schema ``v + 1`` one.
_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    0: _migrate_0_to_1,
    1: _migrate_1_to_2,
    2: _migrate_2_to_3,
}


def migrate(d: Any, origin: str = "project") -> dict[str, Any]:
    """Bring a parsed document of any supported schema up to :data:`SCHEMA_VERSION`, step by step."""
    if not isinstance(d, dict):
        raise ProjectError(f"{origin}: expected a JSON object at the top level, found {_kind(d)}")
    if d.get("format", FORMAT_TAG) != FORMAT_TAG:
        raise ProjectError(f"{origin}: format is {d.get('format')!r}, expected {FORMAT_TAG!r}")
    version = _version_of(d, origin)
    while version < SCHEMA_VERSION:
        try:
            d = _MIGRATIONS[version](d)
        except (ValueError, TypeError, AttributeError) as exc:
            raise ProjectError(f"{origin}: cannot upgrade from schema {version}: {exc}") from None
        version += 1
    return d


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number"
    )


_FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "format": (str, "a text"),
    "schema_version": (int, "a whole number"),
    "app_version": (str, "a text"),
    "name": (str, "a text"),
    "created": (str, "an ISO date-time text"),
    "modified": (str, "an ISO date-time text"),
    "sources": (list, "a list"),
    "settings": (dict, "an object"),
    "results": (list, "a list"),
    "import_report": ((dict, type(None)), "an object or null"),
    "utility": (dict, "an object"),
    "tradeoff": (dict, "an object"),
    "analyses": (dict, "an object"),
    "engine": (dict, "an object"),
}


def check_role(role: Any, where: str) -> None:
    if role not in SOURCE_ROLES:
        raise ProjectError(f"{where}: role {role!r} is not one of {', '.join(SOURCE_ROLES)}")


def validate(d: dict[str, Any], origin: str) -> None:
    """Check every field of a current-schema document; the first problem is reported with its place."""
    unknown = sorted(set(d) - set(_FIELDS))
    if unknown:
        raise ProjectError(f"{origin}: unknown field(s) {', '.join(unknown)} for schema {SCHEMA_VERSION}")
    for key, (types, expected) in _FIELDS.items():
        if key not in d:
            raise ProjectError(f"{origin}: field {key!r} is missing (expected {expected})")
        if not isinstance(d[key], types) or isinstance(d[key], bool):
            raise ProjectError(f"{origin}: field {key!r} is {_kind(d[key])}, expected {expected}")
    for i, s in enumerate(d["sources"]):
        where = f"{origin}: sources[{i}]"
        if not isinstance(s, dict):
            raise ProjectError(f"{where} is {_kind(s)}, expected an object with path, sha256, reader, role")
        if not isinstance(s.get("path"), str) or not s["path"]:
            raise ProjectError(f"{where}.path is missing or not a text")
        if s.get("sha256") is not None and not (isinstance(s["sha256"], str) and len(s["sha256"]) == 64):
            raise ProjectError(f"{where}.sha256 must be a 64-character hex text or null")
        for key in ("size", "mtime_ns"):
            if s.get(key) is not None and (
                not isinstance(s[key], int) or isinstance(s[key], bool) or s[key] < 0
            ):
                raise ProjectError(f"{where}.{key} must be a non-negative whole number or null")
        if not isinstance(s.get("reader", {}), dict):
            raise ProjectError(f"{where}.reader is {_kind(s['reader'])}, expected an object")
        check_role(s.get("role"), where)
    for i, r in enumerate(d["results"]):
        if not isinstance(r, dict):
            raise ProjectError(f"{origin}: results[{i}] is {_kind(r)}, expected an object")
        try:
            check_saved_result(r, f"results[{i}]")
        except ValueError as exc:
            raise ProjectError(f"{origin}: {exc}") from None
    for key in ("domains", "scores"):
        if key in d["utility"] and not isinstance(d["utility"][key], list if key == "domains" else dict):
            raise ProjectError(f"{origin}: utility.{key} has the wrong type")
    from privacy_studio.core.engines.engine_choice import EngineChoice

    try:
        EngineChoice.from_dict(d["engine"])
    except (ValueError, TypeError) as exc:
        raise ProjectError(f"{origin}: engine: {exc}") from None
    _validate_sections(d, origin)


def _validate_sections(d: dict[str, Any], origin: str) -> None:
    """The risk settings, trade-off choices and saved analyses, each through its typed reader; analyses
    written in an older form are brought to the current one in ``d``."""
    from privacy_studio.core.analyses import TradeoffChoice, validate_analyses
    from privacy_studio.core.risk.settings import RiskSettings

    try:
        if d["settings"]:  # a grid with nothing ticked yet is saved work, checked again at Run
            RiskSettings.from_dict(d["settings"], empty_grid_ok=True)
    except (ValueError, TypeError) as exc:
        raise ProjectError(f"{origin}: settings: {exc}") from None
    try:
        choice = TradeoffChoice.from_dict(d["tradeoff"])
        if "risk_measure" in d["tradeoff"]:  # an alias (em_disclosure) is read as its field (em)
            d["tradeoff"] = {**d["tradeoff"], "risk_measure": choice.risk_measure}
        d["analyses"] = validate_analyses(d["analyses"])
    except ValueError as exc:
        raise ProjectError(f"{origin}: {exc}") from None
    try:
        ReportDetails.of(d["analyses"])
        if d["analyses"].get(USER_KEYS) is not None:
            check_salt(d["analyses"][USER_KEYS], f"analyses.{USER_KEYS}")
    except (ValueError, TypeError) as exc:
        raise ProjectError(f"{origin}: analyses: {exc}") from None
