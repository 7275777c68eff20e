"""The import preview, the report's round trip and the ``inspect`` command with the shared reader flags."""

from __future__ import annotations

import argparse
import json

import pytest

from privacy_studio.cli import main
from privacy_studio.cli._reader_options import add_reader_arguments, reader_options_from_args
from privacy_studio.core.io import ImportReport, ReaderOptions, load_dataset, preview

TEXT = "user,time,location\nu1,2024-03-04T10:00:00+01:00,a\nu2,never,b\nu3,2024-03-04 09:00,c\n"


def test_preview_shows_raw_parsed_and_problems(write) -> None:
    p = preview(write("e.csv", TEXT), ReaderOptions(), n_rows=20)
    assert p.columns == ["user", "time", "location"]
    assert p.raw_rows[1] == ["u2", "never", "b"]
    assert p.detected_format == "events"
    assert p.mapping == {"user": "user", "time": "time", "location": "location"}
    assert [r["time_utc"] for r in p.parsed_rows] == ["2024-03-04T09:00:00Z", "2024-03-04T09:00:00Z"]
    assert [r["user"] for r in p.parsed_rows] == ["u1", "u3"]
    assert "line 3: unparsable time" in p.problems
    json.dumps(p.to_dict())


def test_preview_never_raises(write) -> None:
    assert "binary data" in preview(write("b.bin", b"\x00\x01\x02" * 10)).problems[0]
    assert "no time column" in preview(write("n.csv", "user,location\nu,a\n")).problems[0]
    headerless = preview(
        write("h.tsv", "1\t2024-01-01\ta\n"),
        ReaderOptions(header=False, columns=["user", "time", "location"]),
    )
    assert not [p for p in headerless.problems if p.startswith("line")]
    assert headerless.parsed_rows[0]["location"] == "a"


def test_report_round_trip_and_text(write) -> None:
    report = load_dataset(write("e.csv", TEXT)).report
    again = ImportReport.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again == report
    text = again.summary_text()
    assert "3 rows read, 2 kept, 1 rejected" in text and "unparsable time (lines 3)" in text


def test_options_round_trip() -> None:
    options = ReaderOptions(
        format="cdr", delimiter="\t", mapping={"user": "msisdn"}, dayfirst=True, antennas="a.csv"
    )
    assert ReaderOptions.from_dict(json.loads(json.dumps(options.to_dict()))) == options
    with pytest.raises(ValueError, match="unknown reader option"):
        ReaderOptions.from_dict({"colour": 1})


def test_reader_flags() -> None:
    parser = argparse.ArgumentParser()
    add_reader_arguments(parser)
    args = parser.parse_args(
        [
            "--no-header",
            "--columns",
            "user,time,_",
            "--map",
            "location=cell",
            "--delimiter",
            "\\t",
            "--tz",
            "Europe/Paris",
            "--monthfirst",
            "--no-cache",
        ]
    )
    options = reader_options_from_args(args)
    assert options == ReaderOptions(
        delimiter="\t",
        header=False,
        columns=["user", "time", "_"],
        mapping={"location": "cell"},
        tz="Europe/Paris",
        monthfirst=True,
        use_cache=False,
    )
    with pytest.raises(ValueError, match="ROLE=COLUMN"):
        reader_options_from_args(parser.parse_args(["--map", "user"]))
    with pytest.raises(ValueError, match="add --no-header"):
        reader_options_from_args(parser.parse_args(["--columns", "user,time"]))


def test_inspect_command(write, tmp_path, capsys) -> None:
    out = tmp_path / "r.json"
    assert main(["inspect", write("e.csv", TEXT), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "users" in printed and "1 rejected" in printed
    payload = json.loads(out.read_text())
    assert payload["summary"]["users"] == 2 and payload["report"]["rows_kept"] == 2
    assert main(["inspect", write("bad.csv", "")]) == 2
    assert "the file is empty" in capsys.readouterr().err


def test_preview_of_a_folder_and_of_parquet(write, tmp_path) -> None:
    import pandas as pd

    write(
        "cdr/ego.csv",
        "interaction,direction,correspondent_id,datetime,call_duration,antenna_id\n"
        "call,in,A,2014-03-02 07:13:30,5,1\n",
    )
    p = preview(str(tmp_path / "cdr"))
    assert p.detected_format == "cdr" and p.parsed_rows[0]["user"] == "ego"
    pd.DataFrame(
        {"uid": ["7"], "timestamp": ["2024-01-01T00:00:00Z"], "lat": [1.0], "lng": [2.0]}
    ).to_parquet(tmp_path / "e.parquet")
    q = preview(str(tmp_path / "e.parquet"))
    assert q.columns == ["uid", "timestamp", "lat", "lng"] and q.raw_rows == [
        ["7", "2024-01-01T00:00:00Z", "1.0", "2.0"]
    ]
    assert q.parsed_rows == [
        {"user": "7", "time_utc": "2024-01-01T00:00:00Z", "location": None, "lat": 1.0, "lon": 2.0}
    ]
