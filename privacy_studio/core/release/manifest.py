"""The manifest written beside a release (``FILE.manifest.json``), also kept in the project as its record.

It says what was released (profile, options, columns), what suppression removed, who is covered, the
figures measured on the file as written, and the SHA-256 of the release, the project and the inputs.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from privacy_studio import __version__
from privacy_studio.core.analyses import ReleaseHistory, ReleaseRecord, read_analysis
from privacy_studio.core.atomic import write_text
from privacy_studio.core.release.linkage import Linkage
from privacy_studio.core.release.measure import ReleaseFigures
from privacy_studio.core.release.options import ReleaseError, ReleaseOptions
from privacy_studio.core.release.suppression import Removal
from privacy_studio.core.tradeoff.criteria import CriterionCheck

MANIFEST_FORMAT = "privacy-studio-release-manifest"
MANIFEST_VERSION = 2
#: What the guarantee block's figures were measured on.
MEASURED_ON = "rows as written"


def manifest_path(release: str | Path) -> Path:
    """``FILE.csv`` -> ``FILE.csv.manifest.json`` beside it."""
    release = Path(release)
    return release.with_name(release.name + ".manifest.json")


@dataclass(frozen=True)
class Counts:
    """People, events and distinct (person, spatial unit, time bin) points."""

    people: int
    events: int
    points: int


@dataclass(frozen=True)
class InputFile:
    """An input the project reads, by file name (never its folder), and its SHA-256."""

    path: str
    sha256: str


def _migrate_v1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 named the mapping file's path and called the file's rows ``events``."""
    d = dict(d)
    d["mapping_written"] = bool(d.pop("mapping_file", None))
    d["inputs"] = [{**i, "path": Path(str(i.get("path", ""))).name} for i in d.get("inputs", [])]
    if d.get("project_file"):
        d["project_file"] = Path(str(d["project_file"])).name
    return d


@dataclass
class ReleaseManifest:
    """Everything needed to know what a release holds and to check it is the file that was measured; kept in
    the project under ``analyses["release"]`` (read back by :func:`last_release`)."""

    KEY: ClassVar[str] = "release"
    release_file: str
    release_sha256: str
    release_rows: int
    columns: list[str]
    options: ReleaseOptions
    tz: str
    before: Counts
    removed: list[Removal]
    released: Counts
    measured_on_release: ReleaseFigures
    measured_before_suppression: ReleaseFigures
    criteria: list[CriterionCheck] = field(default_factory=list)  # the project's criteria on the file
    accepted_risk: str | None = None  # why a release failing the criteria was written anyway
    linkage_to_earlier: list[Linkage] = field(default_factory=list)  # matching attack to earlier releases
    project_kanon: dict[str, Any] | None = None  # k and shares the project's own run found at this profile
    project_file: str | None = None  # the project's file name (never its folder)
    project_sha256: str | None = None
    inputs: list[InputFile] = field(default_factory=list)
    mapping_written: bool = False  # a pseudonym mapping was written apart (its place is not recorded)
    studio_version: str = __version__
    created: str = field(default_factory=lambda: datetime.now(UTC).replace(microsecond=0).isoformat())
    version: int = MANIFEST_VERSION

    @property
    def profile_label(self) -> str:
        return self.options.profile.label

    @property
    def passes(self) -> bool:
        """Whether the file met every release criterion of the project and was not written on an accepted
        risk (a linkage to an earlier release beyond the ceiling is one)."""
        return bool(self.criteria) and all(c.passed for c in self.criteria) and not self.accepted_risk

    def guarantee(self) -> dict[str, Any]:
        """The figures a reader of the file can rely on, measured on its rows with every published column."""
        f = self.measured_on_release
        return {
            "k_anonymity": f.k,
            "unique_whole_traces": f.share_unique,
            "unicity_at_p": {"p": f.p, "estimate": f.unicity, "ci95": f.to_dict()["unicity_ci"]},
            "people": f.people,
            "rows": f.rows,
            "columns": list(self.columns),
            "measured_on": MEASURED_ON,
        }

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["format"] = MANIFEST_FORMAT
        d["options"] = self.options.to_dict()
        d["measured_on_release"] = self.measured_on_release.to_dict()
        d["measured_before_suppression"] = self.measured_before_suppression.to_dict()
        d["criteria"] = [c.to_dict() for c in self.criteria]
        d["guarantee"] = self.guarantee()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReleaseManifest:
        """Inverse of :meth:`to_dict`; a newer or damaged record is refused with one sentence."""
        if not isinstance(d, dict) or d.get("format") != MANIFEST_FORMAT:
            raise ReleaseError("not a Privacy Studio release manifest")
        if d.get("version") not in (1, MANIFEST_VERSION):
            raise ReleaseError(
                f"release manifest version {d.get('version')!r}; this studio reads versions 1 and 2"
            )
        if d["version"] == 1:
            d = _migrate_v1(d)
        try:
            rest = {k: v for k, v in d.items() if k not in ("format", "guarantee")}
            return cls(
                **{
                    **rest,
                    "options": ReleaseOptions.from_dict(d["options"]),
                    "before": Counts(**d["before"]),
                    "removed": [Removal(**r) for r in d["removed"]],
                    "released": Counts(**d["released"]),
                    "measured_on_release": ReleaseFigures.from_dict(d["measured_on_release"]),
                    "measured_before_suppression": ReleaseFigures.from_dict(d["measured_before_suppression"]),
                    "inputs": [InputFile(**i) for i in d.get("inputs", [])],
                    "criteria": [CriterionCheck(**c) for c in d.get("criteria", [])],
                    "linkage_to_earlier": [Linkage(**x) for x in d.get("linkage_to_earlier", [])],
                    "version": MANIFEST_VERSION,
                }
            )
        except (KeyError, TypeError) as exc:
            raise ReleaseError(f"the release manifest is damaged ({exc})") from None

    def write(self, path: str | Path) -> None:
        write_text(path, json.dumps(self.to_dict(), indent=1, ensure_ascii=False, allow_nan=False) + "\n")


def rows_releases(analyses: dict[str, Any]) -> list[ReleaseManifest]:
    """The project's releases of the data at a profile, oldest first (``AnalysisError`` if one is damaged)."""
    return ReleaseHistory.of(analyses).of_kind("rows", ReleaseManifest)


def last_release(analyses: dict[str, Any]) -> ReleaseManifest | None:
    """The project's last release of the data at a profile, the one the report describes, or None."""
    record = read_analysis(analyses, ReleaseRecord)
    return None if record is None else record.read(ReleaseManifest)
