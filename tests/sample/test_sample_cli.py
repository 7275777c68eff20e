"""``privacy-studio generate`` from the command line."""

from __future__ import annotations

import json

from privacy_studio.cli import main


def test_generate_command_writes_the_city(tmp_path, capsys):
    out = tmp_path / "city"
    code = main(["generate", "--users", "25", "--days", "3", "--seed", "9", "--out", str(out), "--tz", "UTC"])
    assert code == 0
    captured = capsys.readouterr()
    assert "100.0%" in captured.err and f"to {out}" in captured.out
    meta = json.loads((out / "meta.json").read_text())
    expected = {
        "n_users": 25,
        "days": 3,
        "seed": 9,
        "start": "2024-03-04",
        "tz": "UTC",
        "chunk_users": 20_000,
    }
    assert meta["parameters"] == expected | {"cdr_layout": "per-user", "periods": 2}
    assert (out / "cdr").is_dir()
    assert (out / "events.csv").read_text().splitlines()[1].split(",")[1].endswith("+00:00")


def test_generate_command_reports_bad_input_in_one_line(tmp_path, capsys):
    code = main(
        ["generate", "--users", "5", "--start", "2024-02-30", "--out", str(tmp_path / "x"), "--quiet"]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert (
        err.startswith("privacy-studio generate: start date") and "\n" not in err and "Traceback" not in err
    )
