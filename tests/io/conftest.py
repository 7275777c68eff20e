"""Reader tests write small files into a temporary folder and use a private columnar cache."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

# shared/ sits beside the repository (in CI too); /work/shared is where development machines keep it.
_CANDIDATES = (Path(__file__).resolve().parents[3] / "shared" / "real_data", Path("/work/shared/real_data"))
REAL_DATA = next((p for p in _CANDIDATES if p.exists()), _CANDIDATES[0])


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("PRIVACY_STUDIO_CACHE", str(folder))
    return folder


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], str]:
    """Write text (or bytes) to a file under tmp_path and return its path."""

    def _write(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return str(path)

    return _write
