"""The files a command reads and writes, checked before any work, and writing a command's output file.

Every command goes through :func:`check_files` (called by ``cli.main``): its inputs are named by the
arguments in :data:`DATA_ARGUMENTS` and :data:`SIDE_ARGUMENTS` (plus the files of a project it is given and
an ``explicit:FILE`` knowledge), its outputs by :data:`OUTPUT_ARGUMENTS` (plus ``derived_outputs`` a command
sets as a parser default). A new command that uses these argument names is checked without further code."""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass

from privacy_studio.core.atomic import remove_stale_temp_files, write_text

#: Arguments that name a file (or folder of per-user files) a command reads as data: no size limit.
DATA_ARGUMENTS = ("input", "data", "identified", "anonymous", "original", "masked")
#: Arguments that name a side file (a table beside the data): bounded in size, never a folder.
SIDE_ARGUMENTS = (
    *("attributes", "scores", "links", "antennas", "hierarchy", "locations"),
    *(
        f"{side}_{kind}"
        for side in ("identified", "anonymous")
        for kind in ("antennas", "locations", "hierarchy")
    ),
)
#: Arguments that name a file a command writes.
OUTPUT_ARGUMENTS = ("json", "pdf", "text", "out", "mapping_out")


@dataclass(frozen=True)
class NamedFile:
    """A path given to a command: the flag that gave it, what it is (a phrase for messages) and its kind
    ("data", "side", "project" or "output")."""

    flag: str
    path: str
    what: str
    kind: str


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def command_inputs(args: argparse.Namespace) -> list[NamedFile]:
    """Every file the parsed command will read: data, side files, the project and the project's files."""
    found: list[NamedFile] = []
    project = getattr(args, "project", None)
    for name in DATA_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value and value.endswith(".psproj") and not isinstance(project, str):
            project = value
        elif isinstance(value, str) and value:
            found.append(NamedFile(_flag(name), value, "the data file this command reads", "data"))
    for name in SIDE_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value:
            found.append(NamedFile(_flag(name), value, f"the {_flag(name)} file this command reads", "side"))
    knowledge = getattr(args, "knowledge", None)
    if isinstance(knowledge, str) and knowledge.lower().startswith("explicit:"):
        path = knowledge.split(":", 1)[1].strip()
        found.append(NamedFile("--knowledge", path, "the --knowledge file this command reads", "side"))
    if isinstance(project, str) and project:
        found.append(NamedFile("project", project, "the project file this command reads", "project"))
        if project.endswith(".psproj"):  # ``gui FILE`` may name a data file: it is not parsed here
            found += _project_files(project)
    return found


def _project_files(path: str) -> list[NamedFile]:
    """The data and side files a project names (none when it cannot be read: the command says why)."""
    from privacy_studio.core.project import Project, ProjectError

    try:
        project = Project.load(path)
    except (ProjectError, OSError):
        return []
    found = []
    for source in project.sources:
        kind = "data" if source.role == "events" else "side"
        found.append(NamedFile("project", source.path, f"the project's {source.role} file", kind))
        found += [
            NamedFile("project", aux, f"the project's {key} file", "side")
            for key, aux in source.aux_paths().items()
        ]
    return found


def command_outputs(args: argparse.Namespace) -> list[NamedFile]:
    """Every file the parsed command will write ("-" is standard output and is left out)."""
    found = []
    for name in OUTPUT_ARGUMENTS:
        value = getattr(args, name, None)
        if isinstance(value, str) and value not in ("", "-"):
            found.append(NamedFile(_flag(name), value, "an output", "output"))
    derived: Callable[[argparse.Namespace], list[tuple[str, str]]] | None = getattr(
        args, "derived_outputs", None
    )
    if derived is not None and found:
        found += [NamedFile(flag, path, "an output", "output") for flag, path in derived(args)]
    return found


def check_files(args: argparse.Namespace, refuse: Callable[[str], Exception]) -> None:
    """Raise ``refuse(sentence)`` for an input that is a special file, too large or unreadable; an output
    whose folder is missing; an output that is one of the inputs (or would be read as one); or two
    outputs on one path. Stale temporary files of killed runs are removed from the output folders."""
    from privacy_studio.core.io.errors import ReaderError
    from privacy_studio.core.io.sniff import check_input

    folders = set(getattr(args, "folder_outputs", ()))
    outputs = [o for o in command_outputs(args) if _is_plain(o.path)]
    for out in outputs:
        if out.flag.lstrip("-").replace("-", "_") not in folders:
            _check_folder(out, refuse)
    inputs = command_inputs(args)
    for item in inputs:
        if not os.path.lexists(item.path):
            continue  # each command says which input is missing (and, for a project, how to relocate it)
        try:
            check_input(item.path, side=item.kind == "side", folder_allowed=item.kind != "side")
        except ReaderError as exc:
            raise refuse(str(exc) if item.kind != "side" else f"{item.flag} {exc}") from None
    for i, out in enumerate(outputs):
        for other in outputs[:i]:
            if _same_file(out.path, other.path):
                raise refuse(
                    f"{other.flag} and {out.flag} both name {out.path}: give each output its own file"
                )
        for item in inputs:
            if _same_file(out.path, item.path):
                raise refuse(
                    f"{out.flag} {out.path} is {item.what}: writing it would destroy that input, "
                    "so choose another file name"
                )
            if item.kind == "data" and os.path.isdir(item.path) and _inside(out.path, item.path):
                raise refuse(
                    f"{out.flag} {out.path} is inside the data folder {item.path}, where it would be read "
                    "as one more person's file: write it elsewhere"
                )


def _check_folder(out: NamedFile, refuse: Callable[[str], Exception]) -> None:
    folder = os.path.dirname(os.path.abspath(out.path))
    if not os.path.isdir(folder):
        raise refuse(f"cannot write {out.path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise refuse(f"cannot write {out.path}: no permission to write in {folder}")
    remove_stale_temp_files(folder)


def _is_plain(path: str) -> bool:
    """False for a device or pipe output (/dev/null, /dev/stdout): it is written through, never replaced."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)


def _same_file(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` are one file: the same resolved path, or hard links to one inode."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: str, folder: str) -> bool:
    from privacy_studio.core.io.load import DATA_SUFFIXES

    real, root = os.path.realpath(path), os.path.realpath(folder)
    return path.lower().endswith(DATA_SUFFIXES) and os.path.commonpath([real, root]) == root


def write_output(path: str, text: str) -> None:
    """Write ``text`` and a newline to ``path``; a failure raises ``WriteError`` and keeps the old file."""
    if path == "-":
        sys.stdout.write(text + "\n")
        return
    write_text(path, text + "\n")
