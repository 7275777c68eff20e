"""``load_dataset``: any supported input (file or folder of per-user files) to a Dataset, via the cache."""

from __future__ import annotations

import os
from dataclasses import replace

from privacy_studio.core.heap import return_freed_memory
from privacy_studio.core.io import cache
from privacy_studio.core.io.assemble import assemble
from privacy_studio.core.io.dataset import Dataset
from privacy_studio.core.io.errors import ReaderError
from privacy_studio.core.io.options import ReaderOptions
from privacy_studio.core.io.places import Places, read_places
from privacy_studio.core.io.report import ImportReport, SourceFile
from privacy_studio.core.io.sniff import check_readable
from privacy_studio.core.io.source import Columns, FileLayout, inspect_file, merge_columns, read_file
from privacy_studio.core.io.timeparse import check_tz
from privacy_studio.core.progress import TaskControl, as_control

DATA_SUFFIXES = (".csv", ".tsv", ".txt", ".gz", ".zip", ".parquet")
SIDE_FILE_STEMS = ("antennas", "hierarchy", "locations")


def folder_files(path: str, options: ReaderOptions) -> tuple[list[str], ReaderOptions]:
    """Data files of a one-file-per-user folder, and options with an ``antennas.csv`` found there."""
    side = {os.path.realpath(p) for p in (options.antennas, options.hierarchy, options.locations) if p}
    files, found_antennas = [], None
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        if not os.path.isfile(full) or name.startswith(".") or not name.lower().endswith(DATA_SUFFIXES):
            continue
        stem = name.split(".")[0].lower()
        if stem in SIDE_FILE_STEMS:
            if stem == "antennas" and options.antennas is None:
                found_antennas = full
            continue
        if os.path.realpath(full) not in side:
            files.append(full)
    if not files:
        raise ReaderError("the folder holds no data files (.csv, .tsv, .gz, .zip, .parquet)", path)
    if found_antennas is not None:
        options = replace(options, antennas=found_antennas)
    return files, options


def load_dataset(
    path: str, options: ReaderOptions | None = None, control: TaskControl | None = None, compact: bool = False
) -> Dataset:
    """Read ``path`` (file or folder) with ``options``; raise :class:`ReaderError` with one clear message.

    ``compact`` (the in-memory engine's runs): no per-event coordinates where they are the places' own
    (``EventTable.coordinates_at_places``); such a table bypasses the columnar cache both ways, so the
    window never opens one."""
    options = options if options is not None else ReaderOptions()
    control = as_control(control)
    path = os.fspath(path)
    check_tz(options.tz)
    check_readable(path)
    folder = os.path.isdir(path)
    files, options = folder_files(path, options) if folder else ([path], options)
    for side in (options.antennas, options.hierarchy, options.locations):
        if side:
            check_readable(side, folder_allowed=False)
    key = cache.cache_key(path, options) if options.use_cache and not compact else None
    damage = None
    if key is not None:
        try:
            hit = cache.load(key, options)
        except cache.DamagedEntry as exc:
            hit, damage = None, f"the columnar cache entry was damaged ({exc}), so the file was read again"
        if hit is not None:
            control.report(1.0, "re-opened from the cache")
            return hit
    report = ImportReport(source=path)
    if damage is not None:
        report.note(damage)
    if (
        folder
        and options.antennas
        and os.path.dirname(os.path.abspath(options.antennas)) == os.path.abspath(path)
    ):
        report.note(f"antennas read from {os.path.basename(options.antennas)} in the folder")
    places = read_places(options.antennas, options.locations, options.hierarchy, report)
    columns = _read_files(files, folder, options, places, report, control.sub(0.0, 0.85), compact)
    if report.rows_kept == 0:
        raise ReaderError(f"no usable rows.\n{report.summary_text()}", path)
    return_freed_memory()  # the batches' temporaries, before sorting needs its own
    control.report(0.85, "sorting and indexing events")
    events = assemble(columns, places, options.tz, report, options.place_tolerance_m, compact)
    return_freed_memory()
    hierarchy = places.hierarchy() if places is not None else None
    sources = [SourceFile.of(f) for f in files] + [
        SourceFile.of(p) for p in (options.antennas, options.hierarchy, options.locations) if p
    ]
    dataset = Dataset(events, hierarchy, report, sources, options)
    if key is not None:
        control.report(0.95, "writing the columnar cache")
        cache.store(key, dataset)
    control.report(1.0, "done")
    return dataset


def _read_files(
    files: list[str],
    folder: bool,
    options: ReaderOptions,
    places: Places | None,
    report: ImportReport,
    reading: TaskControl,
    compact: bool = False,
) -> Columns:
    """The kept rows of every file in one set of columns (the first file's layout described in ``report``;
    a folder's rule for whose events a file holds noted too); ``compact``: times as int32 offsets."""
    columns = Columns(offset_times=compact)
    named_by_file = 0
    for i, file in enumerate(files):
        stem = os.path.basename(file).split(".")[0] if folder else None
        layout = inspect_file(file, options, user_from_name=stem)
        named_by_file += layout.user_from_name is not None
        if i == 0:
            describe_layout(layout, report, folder, len(files))
        step = reading.sub(i / len(files), (i + 1) / len(files))
        label = os.path.basename(file) if folder else None
        part = read_file(layout, options, places, report, step, label, offset_times=compact)
        if len(files) == 1:
            columns = part
        else:
            merge_columns(columns, part)
    if folder:
        report.note(user_rule(len(files), named_by_file))
    return columns


def user_rule(n_files: int, named_by_file: int) -> str:
    """Which rule gave the users of a folder's files: their own user column, or the file name."""
    own = n_files - named_by_file
    if own == 0:
        return f"user id = file name: each of the {n_files} files holds one person's events (no user column)"
    if named_by_file == 0:
        return f"user id = the files' own user column ({n_files} files; file names are not used)"
    return (
        f"user id = the file's own user column in {own} files, the file name in {named_by_file} files "
        "without one"
    )


def describe_layout(layout: FileLayout, report: ImportReport, folder: bool, n_files: int) -> None:
    """Notes on how the input was understood: format, mapping, unused columns."""
    mapping = ", ".join(f"{role}={col}" for role, col in layout.roles.items())
    what = f"a folder of {n_files} files" if folder else layout.sniffed.kind
    report.note(f"read as {layout.fmt} ({what}); columns: {mapping}")
    if layout.user_from_name is not None and not folder:
        report.note(f"no user column: every row belongs to user {layout.user_from_name!r} (the file name)")
    unused = layout.unused_columns()
    if unused:
        report.note(f"columns not used: {', '.join(unused)}")
