"""PyInstaller runtime hook: before any kernel is imported, give numba a writable per-user cache filled
with the kernels the installer build compiled (privacy_studio/numba_cache.py)."""

from privacy_studio.numba_cache import configure_frozen_cache

configure_frozen_cache()
