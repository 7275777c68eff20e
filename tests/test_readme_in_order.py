"""The README followed in order, as a new user would on a fresh clone: its walk through the sample runs as
written (a bash script, on a copy of the sample), then every runnable example of ``docs/*.md`` in order; the
tracked ``sample_data/`` is never modified. Examples that cannot run here (placeholders, files the sample
does not hold, a cluster) are listed below with the reason, so a new example must either run or be listed."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The README section whose bash block is the walk through the sample.
WALK_HEADING = "## After set-up: running the command"
#: Examples of the README and docs that cannot run on a clone of the sample, by their first words.
NOT_RUNNABLE = {
    "privacy-studio risk events.parquet": "names a Parquet file and a /scratch folder of the reader's own",
    "privacy-studio risk …": "a fragment of the example before it",
    "privacy-studio attack matching --identified A": "a template (A, B, OUT)",
    "privacy-studio attack profiling --identified A": "a template (A, B, OUT)",
    "privacy-studio attack linkage --original O.csv": "a template (O.csv, M.csv)",
    "privacy-studio mask --method noise|": "a template (the method choices)",
    "privacy-studio attack transparency --original O.csv": "a template (O.csv, M.csv)",
    "privacy-studio attack features --data D": "a template (D)",
    "privacy-studio inspect gowalla_events_nyc.tsv.gz": "the Gowalla file is not part of the sample",
    "privacy-studio risk checkins.tsv": "the check-ins file is not part of the sample",
    "privacy-studio risk events.csv --spatial raw --temporal all --knowledge explicit:known.csv": (
        "a template (the reader's own knowledge file)"
    ),
    "privacy-studio report sample_data/sample.psproj --pdf report.pdf [": "a template (optional flags)",
    "privacy-studio release PROJECT.psproj": "a template (PROJECT)",
    "privacy-studio aggregate PROJECT.psproj": "a template (PROJECT)",
    "privacy-studio generate --users N": "a template (N, D, S, DIR)",
    "privacy-studio project new DATA": "a template (DATA, LEVELS, WIDTHS)",
    "privacy-studio project run P.psproj": "a template (P)",
    "privacy-studio tradeoff RESULTS.json|PROJECT.psproj": "a template (RESULTS, PROJECT)",
}
#: Seconds one example may take on the shared 2-core machine.
EXAMPLE_SECONDS = 900


def fenced_blocks(path: Path) -> list[tuple[str, str]]:
    """(section heading, text) of every fenced code block of a Markdown file, in order, with the
    backslash-continued lines of a command joined."""
    blocks, heading = [], ""
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r"^(#{1,6} [^\n]*)$|^```[\w-]*\n(.*?)^```", text, re.M | re.S):
        if match.group(1):
            heading = match.group(1).strip()
        else:
            blocks.append((heading, match.group(2).replace("\\\n", " ")))
    return blocks


#: Shell lines a docs example may hold besides the command itself (run with it, in order).
SHELL_STEPS = ("cp ", "cd ", "mkdir ")


def commands(block: str, steps: tuple[str, ...] = ()) -> list[str]:
    """The ``privacy-studio`` command lines of a block (and lines starting with ``steps``), comments and
    repeated spaces removed."""
    lines = (re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines())
    return [" ".join(line.split()) for line in lines if line.startswith(("privacy-studio", *steps))]


def runnable(command: str) -> bool:
    return not any(command.startswith(prefix) for prefix in NOT_RUNNABLE)


def walk_script() -> str:
    """The README's walk: the one bash block of its "After set-up" section."""
    blocks = [text for heading, text in fenced_blocks(ROOT / "README.md") if heading == WALK_HEADING]
    assert len(blocks) == 1, f"the README needs exactly one bash block under {WALK_HEADING!r}"
    return blocks[0]


def docs_examples() -> list[tuple[str, str]]:
    """(doc file, command or shell step) of every docs example and the README's other examples, in reading
    order."""
    found = [
        ("README.md", c)
        for heading, text in fenced_blocks(ROOT / "README.md")
        if heading != WALK_HEADING
        for c in commands(text)
    ]
    for doc in sorted((ROOT / "docs").glob("*.md")):
        found += [
            (doc.name, c)
            for _, text in fenced_blocks(doc)
            if commands(text)
            for c in commands(text, SHELL_STEPS)
        ]
    return found


def digest_tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def fresh_clone(root: Path) -> Path:
    """What a fresh clone holds for the examples: the sample (a copy of the tracked files only) and the
    set-up's ``.venv``; a private cache, so nothing read earlier is reused."""
    root.mkdir()
    tracked = subprocess.run(
        ["git", "ls-files", "sample_data"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for name in tracked:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, root / name)
    (root / ".venv").symlink_to(Path(sys.executable).parents[1])
    return root


def _environment(clone: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIVACY_STUDIO")}
    env["PRIVACY_STUDIO_CACHE"] = str(clone / ".cache")
    env["PATH"] = f"{clone / '.venv' / 'bin'}:{env.get('PATH', '')}"
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def _run(script: str, clone: Path, what: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=clone,
        env=_environment(clone),
        capture_output=True,
        text=True,
        timeout=EXAMPLE_SECONDS * 3,
    )
    assert done.returncode == 0, f"{what} failed ({done.returncode}):\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return time.perf_counter() - started


def test_the_walk_and_every_docs_example_run_in_order_on_a_copy(tmp_path: Path) -> None:
    before = digest_tree(ROOT / "sample_data")
    walk_clone, clone = fresh_clone(tmp_path / "walk"), fresh_clone(tmp_path / "docs")
    # The walk's first line puts .venv/bin first on PATH, as _environment does: the test does not source
    # the script itself, because a virtualenv copied between checkouts keeps the path it was made at.
    walk = walk_script().replace("source .venv/bin/activate", ": .venv/bin is first on PATH")
    timings = {"README walk": _run(walk, walk_clone, "the README's walk")}
    walked = walk_clone / "my_city"
    for name in ("risk.json", "city.psproj", "tradeoff.json", "report.pdf", "report.txt", "release.csv"):
        assert (walked / name).is_file(), f"the walk did not write {name}"
    assert "mask" in walk_script() and (walked / "masked.csv").is_file()
    skipped, scripts = [], {}
    for doc, command in docs_examples():
        if runnable(command):
            scripts.setdefault(doc, []).append(
                command
            )  # one script per file: a ``cd`` holds for what follows
        else:
            skipped.append((doc, command))
    for doc, lines in scripts.items():
        timings[doc] = _run("\n".join(lines), clone, f"the examples of {doc}:\n" + "\n".join(lines))
        for copy in (walk_clone, clone):
            assert digest_tree(copy / "sample_data") == before, f"an example of {doc} modified sample_data/"
    for label, seconds in timings.items():
        print(f"{seconds:7.1f} s  {label}")
    print(f"{len(skipped)} examples not runnable here (see NOT_RUNNABLE)")
    assert digest_tree(ROOT / "sample_data") == before, "an example modified the tracked sample_data/"


def test_every_example_is_runnable_or_listed_with_a_reason() -> None:
    """A listed prefix that no example starts with any more is stale and must go."""
    examples = [c for _, c in docs_examples()]
    stale = [p for p in NOT_RUNNABLE if not any(c.startswith(p) for c in examples)]
    assert stale == []
    assert any(runnable(c) for c in examples)
    assert commands(walk_script())[0].startswith("privacy-studio inspect")
