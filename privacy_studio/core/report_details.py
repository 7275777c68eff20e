"""What the officer writes into the report as a decision record: purpose, recipient, release format, the
reasons for p and the ceiling, and the sign-off. Saved in the project (``analyses["report_details"]``)."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from privacy_studio.core.json_parts import dumps_parts
from privacy_studio.core.sources import ANONYMIZABILITY, COURSE, THESIS

#: Where the details live in a project's ``analyses`` section.
KEY = "report_details"
VERSION = 1

#: Fields whose change is a (new) signature: it then records which results it is for.
SIGNATURE_FIELDS = ("signer_name", "signer_role", "sign_date", "decision")

#: The decisions a signer can record; an empty decision means "not signed yet".
DECISIONS = ("", "release approved", "release approved with conditions", "release refused")

DEFAULT_P_RATIONALE = (
    "An outsider who knows a few places and times of a person (a colleague, a neighbour, a geotagged "
    "photo, a receipt) is the threat these figures model. p = 4 follows the literature the studio is built "
    f"on: the study of phone records reviewed in {THESIS.cite()}, chapters 1 and 5, found that four such "
    "points single out the large majority of people, and the thesis judges its profiles at p = 4. Higher p "
    "is shown beside it because a determined outsider may know more."
)
DEFAULT_CEILING_RATIONALE = (
    "The ceiling is the share of people the organisation accepts could be singled out by p points in the "
    "released file; it is a policy choice, not a scientific constant. None of the sources (the thesis "
    f"above; {ANONYMIZABILITY.cite()}; {COURSE.cite()}) fixes an acceptable level: they show that "
    "behavioural traces stay identifiable under coarse generalization, which argues for a low ceiling and "
    "for judging it on the upper end of the interval."
)


@dataclass
class ReportDetails:
    """The officer's own texts for the decision record; empty rationales mean "use the studio's default"."""

    description: str = ""
    purpose: str = ""
    recipient: str = ""
    release_format: str = ""
    data_description: str = ""
    p_rationale: str = ""
    ceiling_rationale: str = ""
    protections: str = ""
    signer_name: str = ""
    signer_role: str = ""
    sign_date: str = ""
    decision: str = ""
    signed_for: str = ""  # digest of the settings, results and release the decision was signed over
    version: int = VERSION

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "version" and not isinstance(value, str):
                raise ValueError(f"report detail {f.name!r} must be a text, got {type(value).__name__}")
        if self.decision not in DECISIONS:
            allowed = ", ".join(repr(d) for d in DECISIONS[1:])
            raise ValueError(f"decision {self.decision!r} is not one of {allowed} (or empty: not signed)")

    @property
    def p_reason(self) -> str:
        return self.p_rationale or DEFAULT_P_RATIONALE

    @property
    def ceiling_reason(self) -> str:
        return self.ceiling_rationale or DEFAULT_CEILING_RATIONALE

    def signed(self, previous: ReportDetails, digest: str) -> ReportDetails:
        """These details as saved: a changed decision, signer or date signs ``digest`` (the current
        figures); other edits keep what the earlier signature was for."""
        if not self.decision:
            return replace(self, signed_for="")
        changed = any(getattr(self, f) != getattr(previous, f) for f in SIGNATURE_FIELDS)
        return replace(self, signed_for=digest if changed else previous.signed_for)

    def signed_for_earlier(self, digest: str) -> bool:
        """Whether a decision is recorded but was signed over other figures than ``digest``."""
        return bool(self.decision) and self.signed_for != digest

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Any) -> ReportDetails:
        """Read the saved form; a wrong type, an unknown key or a newer version is a ``ValueError``."""
        if not isinstance(d, dict):
            raise ValueError("report details must be an object")
        version = d.get("version", VERSION)
        if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
            raise ValueError(f"report details version {version!r} is not supported (this studio reads 1)")
        unknown = sorted(set(d) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"unknown report detail(s): {', '.join(unknown)}")
        return cls(**d)

    @classmethod
    def of(cls, analyses: dict[str, Any]) -> ReportDetails:
        """The details saved in a project's analyses, or empty ones."""
        saved = analyses.get(KEY)
        return cls() if saved is None else cls.from_dict(saved)

    def store(self, analyses: dict[str, Any]) -> None:
        """Save into a project's analyses."""
        analyses[KEY] = self.to_dict()


def figures_digest(
    settings: Any, tradeoff: Any, engine: Any, results: Any, inputs: list[str | None], release: str | None
) -> str:
    """SHA-256 of what a signature covers: settings, choices, engine, results, input hashes, last release."""
    chosen = {
        "settings": settings,
        "tradeoff": tradeoff,
        "engine": engine,
        "results": results,
        "inputs": inputs,
        "release": release,
    }
    digest = hashlib.sha256()
    # the text of json.dumps, encoded in pieces: one call for the 100k city's results held the GIL 0.3 s
    options = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False, "default": str}
    for piece in dumps_parts(chosen, **options):
        digest.update(piece.encode("utf-8"))
    return digest.hexdigest()
