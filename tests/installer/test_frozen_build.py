"""Smoke test of the installer: build the one-folder program and run it away from the source tree.

It takes about two minutes, so it runs only when PyInstaller is installed (the test extra has it) and
``PRIVACY_STUDIO_SKIP_FROZEN`` is not set.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("pyinstaller", path=str(Path(sys.executable).parent)) is None
        and shutil.which("pyinstaller") is None,
        reason="PyInstaller is not installed",
    ),
    pytest.mark.skipif(
        bool(os.environ.get("PRIVACY_STUDIO_SKIP_FROZEN")), reason="PRIVACY_STUDIO_SKIP_FROZEN set"
    ),
]


@pytest.fixture(scope="module")
def frozen_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("pyinstaller")
    pyinstaller = shutil.which("pyinstaller", path=str(Path(sys.executable).parent)) or "pyinstaller"
    subprocess.run(
        [
            pyinstaller,
            "--noconfirm",
            "--log-level",
            "ERROR",
            "--distpath",
            str(work / "dist"),
            "--workpath",
            str(work / "build"),
            str(ROOT / "installer" / "privacy_studio.spec"),
        ],
        check=True,
        cwd=work,
        timeout=1200,
    )
    program = work / "dist" / "privacy-studio" / "privacy-studio"
    assert program.is_file()
    return program


def _clean_env(home: Path) -> dict[str, str]:
    """An environment that cannot see the source tree or the development virtual environment."""
    keep = ("PATH", "LANG", "LC_ALL", "DISPLAY", "XAUTHORITY")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), QT_QPA_PLATFORM="offscreen")
    return env


def test_frozen_program_prints_versions(frozen_program: Path, tmp_path: Path) -> None:
    out = subprocess.run(
        [str(frozen_program), "--version"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=_clean_env(tmp_path),
        timeout=300,
    )
    for name in ("privacy-studio", "python", "numpy", "numba", "Qt"):
        assert name in out.stdout
    assert "not installed" not in out.stdout


def test_frozen_program_writes_the_sample_report(frozen_program: Path, tmp_path: Path) -> None:
    sample = tmp_path / "sample_data"
    shutil.copytree(ROOT / "sample_data", sample)
    pdf = tmp_path / "report.pdf"
    subprocess.run(
        [str(frozen_program), "report", str(sample / "sample.psproj"), "--pdf", str(pdf)],
        check=True,
        cwd=tmp_path,
        env=_clean_env(tmp_path),
        timeout=900,
    )
    assert pdf.read_bytes().startswith(b"%PDF")
    # The runtime hook sent numba's cache to the per-user folder and filled it with the kernels the build
    # compiled; the report found every kernel there and compiled none (numba writes only what it compiles).
    user_cache = tmp_path / ".cache" / "privacy-studio" / "numba"
    shipped = _compiled_kernels(frozen_program.parent / "_internal" / "numba-cache")
    assert shipped
    assert _compiled_kernels(user_cache) == shipped


def _compiled_kernels(cache: Path) -> dict[str, bytes]:
    """numba's index and code files under ``cache`` by relative path, with their contents."""
    files = (p for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc"))
    return {p.relative_to(cache).as_posix(): p.read_bytes() for p in files}


def test_frozen_program_runs_the_out_of_core_engine(frozen_program: Path, tmp_path: Path) -> None:
    """DuckDB is bundled: the risk command reads the sample files itself on the out-of-core engine."""
    sample = ROOT / "sample_data"
    out = tmp_path / "risk.json"
    subprocess.run(
        [
            str(frozen_program),
            "risk",
            str(sample / "events.csv"),
            "--tz",
            "Europe/Paris",
            "--antennas",
            str(sample / "antennas.csv"),
            "--hierarchy",
            str(sample / "hierarchy.csv"),
            "--spatial",
            "district",
            "--temporal",
            "1w",
            "--p",
            "1-3",
            "--samples",
            "200",
            "--engine",
            "duckdb",
            "--json",
            str(out),
        ],
        check=True,
        cwd=tmp_path,
        env=_clean_env(tmp_path),
        timeout=600,
    )
    profiles = json.loads(out.read_text())["profiles"]
    assert [len(p["by_p"]) for p in profiles] == [3]
    assert all(0.0 <= e["unicity"] <= 1.0 for e in profiles[0]["by_p"])


def test_frozen_program_writes_a_private_aggregate(frozen_program: Path, tmp_path: Path) -> None:
    """OpenDP's library and metadata are bundled: the aggregate command draws noise and names the version."""
    sample = tmp_path / "sample_data"
    shutil.copytree(ROOT / "sample_data", sample)
    out = tmp_path / "density.csv"
    subprocess.run(
        [
            str(frozen_program),
            "aggregate",
            str(sample / "sample.psproj"),
            "--profile",
            "district:1w",
            "--epsilon",
            "1",
            "--max-points-per-person",
            "20",
            "--out",
            str(out),
        ],
        check=True,
        cwd=tmp_path,
        env=_clean_env(tmp_path),
        timeout=600,
    )
    manifest = json.loads(out.with_name("density.csv.manifest.json").read_text())
    assert manifest["mechanism"]["library"] == "opendp" and manifest["mechanism"][
        "library_version"
    ].startswith("0.16")
    assert manifest["rows"] == len(out.read_text().splitlines()) - 1
