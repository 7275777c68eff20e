"""Writing the dataset at a chosen profile, with optional suppression, and measuring what was written.

``prepare_release`` selects and suppresses (nothing written, so the window can preview it);
``write_release`` writes the file, reads it back with the studio's own reader, measures it and writes the
manifest beside it. docs/release.md describes the file layout and the manifest.
"""

from privacy_studio.core.release.export import PreparedRelease, prepare_release, write_release
from privacy_studio.core.release.manifest import ReleaseManifest
from privacy_studio.core.release.options import ReleaseError, ReleaseOptions, parse_profile

__all__ = [
    "PreparedRelease",
    "ReleaseError",
    "ReleaseManifest",
    "ReleaseOptions",
    "parse_profile",
    "prepare_release",
    "write_release",
]
