"""The error of the release and aggregate packages, apart from them so the saved analyses, which those
packages build on, can read release records without importing them."""

from __future__ import annotations


class ReleaseError(Exception):
    """A release that cannot be made as asked: one sentence saying why and what to do; nothing was written."""
