"""The ``.psproj`` project file: a versioned JSON document, validated on load, migrated, saved atomically.

A project keeps what is needed to reproduce an analysis — input files (relative paths + content hashes),
reader mapping, grid and parameters — plus the results computed so far. Never pickle: only JSON.
The file layout is described in ``docs/project-format.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from privacy_studio import __version__
from privacy_studio.core import json_parts
from privacy_studio.core.atomic import WriteError, atomic_write
from privacy_studio.core.saved_figures import check_saved_result
from privacy_studio.core.user_keys import KEY as USER_KEYS
from privacy_studio.core.user_keys import check_salt, keyed_project_parts

if TYPE_CHECKING:
    from privacy_studio.core.analyses import TradeoffChoice
    from privacy_studio.core.engines import EventFiles
    from privacy_studio.core.engines.engine_choice import EngineChoice
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.progress import TaskControl

SCHEMA_VERSION = 3
A = TypeVar("A")
FORMAT_TAG = "privacy-studio-project"
SUFFIX = ".psproj"
SOURCE_ROLES = ("events", "attributes")
#: Keys of a reader-options dict that hold file paths (stored relative to the project like the sources).
READER_PATH_KEYS = ("antennas", "hierarchy", "locations")


class ProjectError(Exception):
    """A project file that cannot be read or written: the message names the file, the problem, the fix."""


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def sha256_of(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file's bytes, or of a folder's files (names + bytes, in sorted order)."""
    p = Path(path)
    digest = hashlib.sha256()
    files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    for f in files:
        if p.is_dir():
            digest.update(f.relative_to(p).as_posix().encode() + b"\0")
        with open(f, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def file_signature(path: str | os.PathLike[str]) -> tuple[int, int]:
    """(bytes, newest modification time in ns) of a file, or of a folder's files: a cheap first look at
    whether the content may have changed, before hashing it."""
    p = Path(path)
    files = [f for f in p.rglob("*") if f.is_file()] if p.is_dir() else [p]
    stats = [f.stat() for f in files]
    return sum(st.st_size for st in stats), max((st.st_mtime_ns for st in stats), default=0)


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON types: numpy scalars/arrays to Python, tuples to lists, NaN/inf to None."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"cannot store a {type(value).__name__} in a project file")


def _relative(path: str, folder: Path) -> str:
    """``path`` relative to ``folder`` when possible (same drive), in POSIX form; else absolute."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    try:
        return Path(os.path.relpath(p, folder)).as_posix()
    except ValueError:  # another drive on Windows
        return str(p)


def _resolve(path: str, folder: Path) -> str:
    """``path`` made absolute against ``folder`` (the project file's folder) and normalized."""
    return os.path.normpath(folder / Path(path))


@dataclass
class DataSource:
    """One input file (or folder of per-user files) with the reader options used to read it; ``size`` and
    ``mtime_ns`` are those of the content the SHA-256 was taken of."""

    path: str
    sha256: str | None = None
    reader: dict[str, Any] = field(default_factory=dict)
    role: str = "events"
    size: int | None = None
    mtime_ns: int | None = None

    def exists(self) -> bool:
        return Path(self.path).exists()

    def rehash(self) -> None:
        """Take the SHA-256, size and modification time of the file as it is now."""
        from privacy_studio.core.io.sniff import check_readable

        check_readable(self.path)  # a FIFO or device would block the hash forever
        self.size, self.mtime_ns = file_signature(self.path)
        self.sha256 = sha256_of(self.path)

    def changed(self) -> bool:
        """True when the file's content no longer has the saved SHA-256; when its size and modification time
        are those saved with the hash, it is not read again."""
        if not self.sha256 or not self.exists():
            return False
        size, mtime = file_signature(self.path)
        if self.size is not None and size != self.size:
            return True
        if (self.size, self.mtime_ns) == (size, mtime):
            return False
        return sha256_of(self.path) != self.sha256

    def aux_paths(self) -> dict[str, str]:
        """The auxiliary files named in the reader options (antennas, hierarchy, locations) that are set."""
        return {k: str(self.reader[k]) for k in READER_PATH_KEYS if self.reader.get(k)}

    def to_dict(self, folder: Path | None = None) -> dict[str, Any]:
        """JSON form; with ``folder``, paths are written relative to it."""
        reader = jsonable(self.reader)
        path = self.path
        if folder is not None:
            path = _relative(path, folder)
            reader.update({k: _relative(v, folder) for k, v in self.aux_paths().items()})
        return {
            "path": path,
            "sha256": self.sha256,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "reader": reader,
            "role": self.role,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], folder: Path | None = None) -> DataSource:
        """Inverse of :meth:`to_dict`; with ``folder``, relative paths are resolved against it."""
        src = cls(
            path=d["path"],
            sha256=d.get("sha256"),
            reader=dict(d.get("reader") or {}),
            role=d["role"],
            size=d.get("size") if d.get("sha256") else None,
            mtime_ns=d.get("mtime_ns") if d.get("sha256") else None,
        )
        if folder is not None:
            src.path = _resolve(src.path, folder)
            src.reader.update({k: _resolve(v, folder) for k, v in src.aux_paths().items()})
        src.refuse_special_files()
        return src

    def refuse_special_files(self) -> None:
        """ProjectError when a source that exists is a FIFO, a device or unreadable (it would block or never
        end); missing files are reported later, so the project can be relocated."""
        from privacy_studio.core.io.errors import ReaderError
        from privacy_studio.core.io.sniff import check_readable

        for path in (self.path, *self.aux_paths().values()):
            if os.path.lexists(path):
                try:
                    check_readable(path)
                except ReaderError as exc:
                    raise ProjectError(f"source {exc}") from None


def _default_utility() -> dict[str, Any]:
    return {"domains": [], "scores": {}}


def _default_engine() -> dict[str, Any]:
    return {"name": "numba", "memory_limit": None, "temp_dir": None, "spark_master": None}


def _default_tradeoff() -> dict[str, Any]:
    return {"risk_measure": "unicity", "risk_p": 4, "utility": None, "ceiling": 0.05}


@dataclass
class Project:
    """Everything the studio saves: inputs, settings, results, utility scores and trade-off choices."""

    name: str = "Untitled"
    sources: list[DataSource] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    import_report: dict[str, Any] | None = None
    utility: dict[str, Any] = field(default_factory=_default_utility)
    tradeoff: dict[str, Any] = field(default_factory=_default_tradeoff)
    analyses: dict[str, Any] = field(default_factory=dict)
    engine: dict[str, Any] = field(default_factory=_default_engine)
    app_version: str = __version__
    created: str = field(default_factory=_now)
    modified: str = field(default_factory=_now)
    path: Path | None = field(default=None, compare=False)

    # --- serialization -------------------------------------------------------------------------------

    def to_dict(self, folder: Path | None = None) -> dict[str, Any]:
        """The JSON document (current schema); with ``folder``, source paths are relative to it. Per-user
        results are keyed by a salted hash, never by the original ids (``core.user_keys``)."""
        analyses = dict(self.analyses)
        results = keyed_project_parts(self.results, analyses)
        if USER_KEYS in analyses:  # the salt stays the project's own from now on
            self.analyses[USER_KEYS] = analyses[USER_KEYS]
        return {
            "format": FORMAT_TAG,
            "schema_version": SCHEMA_VERSION,
            "app_version": self.app_version,
            "name": self.name,
            "created": self.created,
            "modified": self.modified,
            "sources": [s.to_dict(folder) for s in self.sources],
            "settings": jsonable(self.settings),
            "results": jsonable(results),
            "import_report": jsonable(self.import_report),
            "utility": jsonable(self.utility),
            "tradeoff": jsonable(self.tradeoff),
            "analyses": jsonable(analyses),
            "engine": jsonable(self.engine),
        }

    @classmethod
    def from_dict(cls, d: Any, folder: Path | None = None, *, origin: str = "project") -> Project:
        """Validate and migrate a parsed document, then build the project; ``origin`` names it in errors."""
        d = migrate(d, origin)
        _validate(d, origin)
        d["results"] = keyed_project_parts(d["results"], d["analyses"])  # older files named users by id
        return cls(
            name=d["name"],
            sources=[DataSource.from_dict(s, folder) for s in d["sources"]],
            settings=d["settings"],
            results=d["results"],
            import_report=d["import_report"],
            utility=d["utility"],
            tradeoff=d["tradeoff"],
            analyses=d["analyses"],
            engine=d["engine"],
            app_version=d["app_version"],
            created=d["created"],
            modified=d["modified"],
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Project:
        """Read, validate and migrate a ``.psproj`` file; relative input paths resolve against its folder."""
        p = Path(path)
        try:
            raw = p.read_bytes()
        except FileNotFoundError:
            raise ProjectError(f"{p}: no such project file") from None
        except IsADirectoryError:
            raise ProjectError(f"{p}: is a folder, expected a .psproj project file") from None
        except OSError as exc:
            raise ProjectError(f"{p}: cannot be read ({exc.strerror or exc})") from None
        doc = parse_document(raw, str(p))
        project = cls.from_dict(doc, p.resolve().parent, origin=str(p))
        for i, source in enumerate(project.sources):
            if os.path.realpath(source.path) == os.path.realpath(p):
                raise ProjectError(
                    f"{p}: sources[{i}] names the project file itself as its {source.role} data; "
                    "point it at the data file"
                )
        project.path = p
        return project

    def save(self, path: str | os.PathLike[str] | None = None, control: TaskControl | None = None) -> Path:
        """Write atomically (temp file in the same folder, fsync, rename; permissions kept) and remember the
        path; ``control`` reports progress and, when cancelled, leaves the earlier file as it was."""
        target = Path(path) if path is not None else self.path
        if target is None:
            raise ProjectError("this project has never been saved: give a file name ending in .psproj")
        folder = target.resolve().parent
        if not folder.is_dir():
            raise ProjectError(f"{target}: the folder {folder} does not exist")
        self.modified = _now()
        self.app_version = __version__
        document = self.to_dict(folder)
        _validate(document, str(target))  # never write a project that opening would refuse
        try:
            _write_document(target, document, control)
        except WriteError as exc:
            raise ProjectError(str(exc)) from None
        self.path = target
        return target

    # --- inputs --------------------------------------------------------------------------------------

    def add_source(
        self, path: str | os.PathLike[str], reader: dict[str, Any], role: str = "events"
    ) -> DataSource:
        """Add an input file with its reader options, hashing its content now; paths are made absolute, so the
        project file stores them relative to its own folder wherever it is saved."""
        _check_role(role, "new source")
        reader = dict(reader)
        for key in READER_PATH_KEYS:
            if reader.get(key):
                reader[key] = os.path.abspath(reader[key])
        source = DataSource(path=os.path.abspath(path), reader=reader, role=role)
        source.rehash()
        self.sources.append(source)
        return source

    def events_source(self) -> DataSource:
        """The (first) events source; :class:`ProjectError` if the project has none."""
        for s in self.sources:
            if s.role == "events":
                return s
        raise ProjectError(f"{self.name}: the project has no events data source; import a file first")

    def attributes_source(self) -> DataSource | None:
        """The user-attributes source (risk by group, attribute disclosure), if the project names one."""
        return next((s for s in self.sources if s.role == "attributes"), None)

    def missing_sources(self) -> list[DataSource]:
        """Sources whose file, or one of whose auxiliary files (antennas, hierarchy), is not there."""
        return [
            s
            for s in self.sources
            if not s.exists() or any(not Path(a).exists() for a in s.aux_paths().values())
        ]

    def changed_sources(self) -> list[DataSource]:
        """Present sources whose content no longer matches the hash saved with the project."""
        return [s for s in self.sources if s.changed()]

    def check_unchanged(self) -> None:
        """ProjectError when a data source changed since the project measured it: figures and releases made
        now would mix the saved results with other people's data."""
        changed = self.changed_sources()
        if changed:
            where = self.path if self.path is not None else self.name
            raise ProjectError(
                f"{changed[0].path} changed since the project measured it (its SHA-256 differs from the one "
                f"saved in {where}): run 'privacy-studio project run {where}' to measure the new content"
            )

    def rehash_changed(self) -> list[DataSource]:
        """Record the current SHA-256 of every source that changed (before a new run measures it); return
        those sources."""
        changed = self.changed_sources()
        for source in changed:
            source.rehash()
        return changed

    def relocate(self, source: DataSource, new_path: str | os.PathLike[str]) -> None:
        """Point ``source`` at a moved file; auxiliary files that moved along with it follow."""
        if source not in self.sources:
            raise ProjectError(f"{source.path}: not a data source of this project")
        new = Path(new_path)
        if not new.exists():
            raise ProjectError(f"{new}: no such file; choose the moved copy of {Path(source.path).name}")
        old_folder = Path(source.path).parent
        for key, aux in source.aux_paths().items():
            moved = (
                new.parent / Path(aux).relative_to(old_folder)
                if Path(aux).is_relative_to(old_folder)
                else None
            )
            if not Path(aux).exists() and moved is not None and moved.exists():
                source.reader[key] = str(moved)
        source.path = str(new)

    def load_dataset(self, control: TaskControl | None = None, changed_ok: bool = False) -> Dataset:
        """Read the events source with its saved reader options (a clear error if files are missing or, unless
        ``changed_ok``, if a source changed since the project measured it)."""
        from privacy_studio.core.io import load_dataset

        files = self.events_files()
        if not changed_ok:
            self.check_unchanged()
        return load_dataset(files.path, files.options, control)

    def events_files(self) -> EventFiles:
        """The events source as files an engine reads itself (a clear error if files are missing)."""
        source = self.events_source()
        if source in self.missing_sources():
            missing = [source.path, *source.aux_paths().values()]
            gone = ", ".join(p for p in missing if not Path(p).exists())
            raise ProjectError(f"{self.name}: input file not found: {gone}; relocate it in the project")
        from privacy_studio.core.engines import EventFiles
        from privacy_studio.core.io import ReaderOptions

        return EventFiles(source.path, ReaderOptions.from_dict(source.reader))

    def analysis(self, cls: type[A]) -> A | None:
        """The saved analysis of type ``cls`` (see ``core.analyses``), or None when not computed yet."""
        from privacy_studio.core.analyses import read_analysis

        return read_analysis(self.analyses, cls)

    def store(self, analysis: Any) -> None:
        """Keep an analysis (a ``core.analyses`` dataclass) in the project, replacing the previous one."""
        from privacy_studio.core.analyses import store_analysis

        store_analysis(self.analyses, analysis)

    def choice(self) -> TradeoffChoice:
        """The trade-off choices and release criteria (validated when the file was read)."""
        from privacy_studio.core.analyses import TradeoffChoice

        return TradeoffChoice.from_dict(self.tradeoff)

    def engine_choice(self) -> EngineChoice:
        """The risk engine the project runs on (validated when the file was read)."""
        from privacy_studio.core.engines.engine_choice import EngineChoice

        return EngineChoice.from_dict(self.engine)


# --- parsing and validation ---------------------------------------------------------------------------


#: Encoded pieces written between two checks for cancellation while a project is saved.
_PIECES_PER_CHECK = 20_000


def _write_document(target: Path, document: dict[str, Any], control: TaskControl | None) -> None:
    """Encode and write the document piece by piece (the same text as ``json.dumps(indent=2)``), so a
    cancelled save stops at once and the atomic write leaves the earlier file intact; progress is the share
    of the earlier file's size written (an estimate: a saved project rarely changes size much)."""
    encoder = json.JSONEncoder(indent=2, ensure_ascii=False, allow_nan=False)
    expected = target.stat().st_size if target.is_file() else 0
    written = 0
    with atomic_write(target) as fh:
        for i, piece in enumerate(encoder.iterencode(document)):
            fh.write(piece)
            written += len(piece)
            if control is not None and i % _PIECES_PER_CHECK == 0:
                control.report(min(written / expected, 0.99) if expected else 0.5, "writing")
        fh.write("\n")


def parse_document(raw: bytes, origin: str) -> Any:
    """Decode the bytes of a project file as UTF-8 JSON, with a readable message for each failure."""
    if not raw.strip():
        raise ProjectError(f"{origin}: the file is empty; expected a Privacy Studio project (JSON)")
    if b"\0" in raw[:4096]:
        raise ProjectError(f"{origin}: this is a binary file, not a Privacy Studio project (JSON text)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ProjectError(
            f"{origin}: not UTF-8 text (byte {exc.start}); expected a project in JSON"
        ) from None
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
        "created": d.get("saved", _now()),
        "modified": d.get("saved", _now()),
        "sources": [{"path": path, "sha256": sha, "reader": data, "role": "events"}],
        "settings": settings,
        "results": list(d.get("results", [])),
        "import_report": None,
        "utility": _default_utility(),
        "tradeoff": _default_tradeoff(),
        "analyses": {},
    }


def _migrate_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 adds the risk engine choice; older projects ran on the in-memory numba engine."""
    return {**d, "schema_version": 2, "engine": _default_engine()}


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


def _check_role(role: Any, where: str) -> None:
    if role not in SOURCE_ROLES:
        raise ProjectError(f"{where}: role {role!r} is not one of {', '.join(SOURCE_ROLES)}")


def _validate(d: dict[str, Any], origin: str) -> None:
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
        _check_role(s.get("role"), where)
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
    from privacy_studio.core.report_details import ReportDetails
    from privacy_studio.core.risk.settings import RiskSettings

    try:
        if d["settings"]:  # a grid with nothing ticked yet is saved work, checked again at Run
            RiskSettings.from_dict(d["settings"], empty_grid_ok=True)
    except (ValueError, TypeError) as exc:
        raise ProjectError(f"{origin}: settings: {exc}") from None
    try:
        TradeoffChoice.from_dict(d["tradeoff"])
        d["analyses"] = validate_analyses(d["analyses"])
    except ValueError as exc:
        raise ProjectError(f"{origin}: {exc}") from None
    try:
        ReportDetails.of(d["analyses"])
        if d["analyses"].get(USER_KEYS) is not None:
            check_salt(d["analyses"][USER_KEYS], f"analyses.{USER_KEYS}")
    except (ValueError, TypeError) as exc:
        raise ProjectError(f"{origin}: analyses: {exc}") from None
