"""The ``privacy-studio`` entry point: subcommands, and the window by default or on a file."""

from __future__ import annotations

import pytest

import privacy_studio.cli as cli
import privacy_studio.cli.gui as cli_gui


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []
    monkeypatch.setattr(cli_gui, "open_studio", lambda argv: calls.append(list(argv)) or 0)
    return calls


def test_no_command_opens_the_window(opened: list[list[str]]) -> None:
    assert cli.main([]) == 0
    assert opened == [[]]


def test_a_project_file_alone_opens_the_window_on_it(opened: list[list[str]]) -> None:
    assert cli.main(["sample_data/sample.psproj"]) == 0
    assert opened == [["sample_data/sample.psproj"]]


def test_gui_command_opens_the_window_on_the_file(opened: list[list[str]]) -> None:
    assert cli.main(["gui", "sample_data/sample.psproj"]) == 0
    assert opened == [["sample_data/sample.psproj"]]


@pytest.mark.parametrize("argv", [["measure", "x.csv"], ["gui", "missing.psproj"], ["/dev/null"]])
def test_a_mistyped_command_or_missing_file_is_one_line_listing_the_commands(
    argv: list[str], opened: list[list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert opened == []
    word = argv[1] if argv[0] == "gui" else argv[0]
    assert len(err.splitlines()) == 1 and word in err
    assert "commands: " in err or "not a data file" in err


def test_version_lists_the_libraries(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--version"]) == 0
    out = capsys.readouterr().out
    for name in ("privacy-studio", "python", "numpy", "numba", "Qt"):
        assert name in out


def test_every_subcommand_is_registered() -> None:
    names = cli._command_names(cli.build_parser())
    assert {"gui", "inspect", "risk", "theory", "report", "tradeoff", "generate", "anonymizability"} <= names
    assert {"attack", "mask", "release"} <= names


def test_a_user_error_is_one_line_and_exit_code_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["theory", "--n", "10", "--q", "2", "--d", "5", "--json", "-"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("privacy-studio theory:") and "Traceback" not in err


def test_an_output_in_a_missing_folder_is_refused_before_any_work(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "out.json"
    assert (
        cli.main(
            [
                "risk",
                str(tmp_path / "not-read.csv"),
                "--spatial",
                "raw",
                "--temporal",
                "1h",
                "--json",
                str(missing),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "does not exist" in err and "not-read.csv" not in err  # refused before the input is even opened


HEAVY_MODULES = ("pandas", "scipy", "numba", "pyarrow", "PySide6", "duckdb", "pyspark")


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["risk", "--help"], ["risk", "data.csv"]])
def test_help_version_and_argument_errors_import_no_heavy_library(argv: list[str]) -> None:
    """A fresh interpreter answers these without pandas, scipy, numba, pyarrow or Qt (a fast start)."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from privacy_studio.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
