"""PyInstaller runtime hook: give numba a writable per-user cache before any kernel is imported."""

from privacy_studio.numba_cache import configure_numba_cache

configure_numba_cache()
