"""The manifest written beside an aggregate (``FILE.csv.manifest.json``), also kept in the project.

It names the mechanism and its library, the privacy loss of the whole file, the contribution bound and
the expected error per cell, where the cells came from, and the SHA-256 of the file and of the inputs. Its
``not_private`` part (people cut, observed error, utility) is computed on the true data: it is for the
officer, not for publication.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from privacy_studio import __version__
from privacy_studio.core.aggregate.budget import PrivacyLoss, spent
from privacy_studio.core.aggregate.figures import AggregateFigures
from privacy_studio.core.aggregate.noise import Mechanism
from privacy_studio.core.aggregate.options import AggregateError, AggregateOptions
from privacy_studio.core.analyses import ReleaseHistory
from privacy_studio.core.atomic import write_text
from privacy_studio.core.release.manifest import InputFile, rows_releases

MANIFEST_FORMAT = "privacy-studio-aggregate-manifest"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class CellsInfo:
    """The grid every row of the file belongs to, and where its places and period came from."""

    n_units: int
    n_bins: int
    n_cells: int
    places_from: str  # in words: the hierarchy file, the input's places, the km cells holding data
    period: str  # "first bin start to last bin start", local time


@dataclass
class AggregateManifest:
    """Everything needed to know what an aggregate file holds, its guarantee and its accuracy."""

    file: str
    sha256: str
    rows: int
    columns: list[str]
    options: AggregateOptions
    tz: str
    cells: CellsInfo
    mechanism: Mechanism
    not_private: AggregateFigures
    project_file: str | None = None
    project_sha256: str | None = None
    inputs: list[InputFile] = field(default_factory=list)
    # what earlier releases of the same people had spent when this file was written (older manifests: None)
    before: PrivacyLoss | None = None
    budget: float | None = None  # the ε budget all aggregates of these people were held to, if one was set
    studio_version: str = __version__
    created: str = field(default_factory=lambda: datetime.now(UTC).replace(microsecond=0).isoformat())
    version: int = MANIFEST_VERSION

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["format"] = MANIFEST_FORMAT
        return d

    @classmethod
    def from_dict(cls, d: Any) -> AggregateManifest:
        """Inverse of :meth:`to_dict`; a newer or damaged record is refused with one sentence."""
        if not isinstance(d, dict) or d.get("format") != MANIFEST_FORMAT:
            raise AggregateError("not a Privacy Studio aggregate manifest")
        if d.get("version") != MANIFEST_VERSION:
            raise AggregateError(
                f"aggregate manifest version {d.get('version')!r}; this studio reads version 1"
            )
        try:
            rest = {k: v for k, v in d.items() if k in {f.name for f in fields(cls)}}
            return cls(
                **{
                    **rest,
                    "options": AggregateOptions(**d["options"]),
                    "cells": CellsInfo(**d["cells"]),
                    "mechanism": Mechanism(**d["mechanism"]),
                    "not_private": AggregateFigures(**d["not_private"]),
                    "inputs": [InputFile(**i) for i in d.get("inputs", [])],
                    "before": None if d.get("before") is None else PrivacyLoss.from_dict(d["before"]),
                }
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise AggregateError(f"the aggregate manifest is damaged ({exc})") from None

    def write(self, path: str | Path) -> None:
        write_text(path, json.dumps(self.to_dict(), indent=1, ensure_ascii=False, allow_nan=False) + "\n")


def aggregate_releases(analyses: dict[str, Any]) -> list[AggregateManifest]:
    """The project's differentially private aggregates, oldest first (``AnalysisError`` if one is damaged)."""
    return ReleaseHistory.of(analyses).of_kind("aggregate", AggregateManifest)


def privacy_spent(analyses: dict[str, Any]) -> PrivacyLoss:
    """What the project's releases have spent so far: its aggregates' loss and its microdata files."""
    return spent(aggregate_releases(analyses), [m.release_file for m in rows_releases(analyses)])
