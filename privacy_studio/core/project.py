"""The ``.psproj`` project file: a versioned JSON document, validated on load, migrated, saved atomically.

A project keeps what is needed to reproduce an analysis — input files (relative paths + content hashes),
reader mapping, grid and parameters — plus the results computed so far. Never pickle: only JSON.
The file layout is described in ``docs/project-format.md``.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from privacy_studio import __version__
from privacy_studio.core import json_parts
from privacy_studio.core.atomic import WriteError, atomic_write
from privacy_studio.core.project_schema import (
    FORMAT_TAG,
    SCHEMA_VERSION,
    ProjectError,
    check_role,
    default_engine,
    default_tradeoff,
    default_utility,
    migrate,
    now,
    parse_document,
    parse_results,
    validate,
)
from privacy_studio.core.risk.results import ProfileResult
from privacy_studio.core.risk.settings import RiskSettings
from privacy_studio.core.user_keys import KEY as USER_KEYS
from privacy_studio.core.user_keys import keyed_project_parts

if TYPE_CHECKING:
    from privacy_studio.core.analyses import TradeoffChoice
    from privacy_studio.core.engines import EventFiles
    from privacy_studio.core.engines.engine_choice import EngineChoice
    from privacy_studio.core.io import Dataset
    from privacy_studio.core.progress import TaskControl

A = TypeVar("A")
SUFFIX = ".psproj"
#: Keys of a reader-options dict that hold file paths (stored relative to the project like the sources).
READER_PATH_KEYS = ("antennas", "hierarchy", "locations")


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


@dataclass
class Project:
    """Everything the studio saves: inputs, settings, results, utility scores and trade-off choices."""

    name: str = "Untitled"
    sources: list[DataSource] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    results: list[ProfileResult] = field(default_factory=list)
    import_report: dict[str, Any] | None = None
    utility: dict[str, Any] = field(default_factory=default_utility)
    tradeoff: dict[str, Any] = field(default_factory=default_tradeoff)
    analyses: dict[str, Any] = field(default_factory=dict)
    engine: dict[str, Any] = field(default_factory=default_engine)
    app_version: str = __version__
    created: str = field(default_factory=now)
    modified: str = field(default_factory=now)
    path: Path | None = field(default=None, compare=False)

    # --- serialization -------------------------------------------------------------------------------

    def to_dict(self, folder: Path | None = None) -> dict[str, Any]:
        """The JSON document (current schema); with ``folder``, source paths are relative to it. Per-user
        results are keyed by a salted hash, never by the original ids (``core.user_keys``)."""
        analyses = dict(self.analyses)
        results = keyed_project_parts([r.to_dict() for r in self.results], analyses)
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
        validate(d, origin)
        keyed = keyed_project_parts(d["results"], d["analyses"])  # older files named users by id
        return cls(
            name=d["name"],
            sources=[DataSource.from_dict(s, folder) for s in d["sources"]],
            settings=d["settings"],
            results=parse_results(keyed, origin),
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
        self.modified = now()
        self.app_version = __version__
        document = self.to_dict(folder)
        validate(document, str(target))  # never write a project that opening would refuse
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
        check_role(role, "new source")
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

    def risk_settings(self) -> RiskSettings:
        """The project's risk settings, typed (checked when the project was read); an empty grid when none
        were set yet. Read these, not the stored dict: defaults then come from one place."""
        return RiskSettings.from_dict(self.settings or {"spatial": [], "temporal": []}, empty_grid_ok=True)

    def with_attributes(self, settings: RiskSettings) -> RiskSettings:
        """``settings`` reading the project's user-attributes file when sensitive attributes are chosen (the
        project names the file as a source, so its settings do not repeat the path); ValueError without it."""
        source = self.attributes_source()
        if settings.sensitive and settings.attributes is None:
            if source is None:
                raise ValueError(
                    "sensitive attributes are chosen but the project has no user-attributes file; add one "
                    "(project new --attributes FILE, or the Grid tab's 'User attributes…')"
                )
            return replace(settings, attributes=source.path)
        return settings

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

    def clear_results(self) -> None:
        """Forget the results and every analysis derived from them (``analyses.DERIVED_FROM_RESULTS``), so
        a new run never shows figures of the previous one beside its own."""
        from privacy_studio.core.analyses import DERIVED_FROM_RESULTS

        self.results = []
        for cls in DERIVED_FROM_RESULTS:
            self.analyses.pop(cls.KEY, None)

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


#: Characters written between two checks for cancellation (and progress reports) while a project is saved.
_CHARS_PER_CHECK = 1 << 20


def _write_document(target: Path, document: dict[str, Any], control: TaskControl | None) -> None:
    """Encode and write the document piece by piece (the same text as ``json.dumps(indent=2)``, made mostly
    by the C encoder: ``json_parts.indented_parts``), so a cancelled save stops at once and the atomic write
    leaves the earlier file intact; progress is the share of the earlier file's size written (an estimate: a
    saved project rarely changes size much)."""
    expected = target.stat().st_size if target.is_file() else 0
    written, checked = 0, -_CHARS_PER_CHECK  # the first piece checks: a save cancelled at once stops
    with atomic_write(target) as fh:
        for piece in json_parts.indented_parts(document):
            fh.write(piece)
            written += len(piece)
            if control is not None and written - checked >= _CHARS_PER_CHECK:
                checked = written
                control.report(min(written / expected, 0.99) if expected else 0.5, "writing")
        fh.write("\n")
