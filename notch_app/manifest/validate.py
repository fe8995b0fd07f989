"""`notch validate` without the command line: check paths, return placed Problems.

`validate_path()` accepts a manifest file, an integration folder (manifest and preview
fixtures checked together) or a folder of either, and returns every problem sorted by
file, line and column. Nothing here imports Qt.
"""

from __future__ import annotations

import dataclasses
import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from notch_app.manifest.fixture_rules import fixture_problems
from notch_app.manifest.model import Manifest, PreviewFixtures
from notch_app.manifest.reading import (
    MANIFEST_FILES,
    Problem,
    SourceDocument,
    SourceError,
    discover_integrations,
    fixture_notes,
    is_fixture_name,
    is_voiceos_file,
    load_json,
    manifest_path_for,
    preview_path_for,
)
from notch_app.manifest.rules import ManifestCheck, check_fixtures, check_manifest

UNREADABLE = "file-unreadable"
FOLDER_SKIPPED = "folder-skipped"
INTERNAL_ERROR = "internal-error"


def _unreadable(name: str, why: str) -> Problem:
    return Problem(name, 1, 1, "", UNREADABLE, "error", f"{why}; check the path")


def _internal_error(name: str, exc: BaseException) -> Problem:
    return Problem(
        name,
        1,
        1,
        "",
        INTERNAL_ERROR,
        "error",
        f"Notch could not finish checking this file ({type(exc).__name__}: {exc}); this is "
        "a bug in Notch, not in the file: please report it with the file attached",
    )


_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause CPython's automatic cyclic garbage collection while one document is checked.

    Why: parsing and checking a manifest allocates hundreds of thousands of containers
    (the parsed JSON, the pydantic models, pointers, problems) and frees almost none of
    them until the end. Every few hundred allocations the collector runs and traverses
    the young containers — including the growing tools list, which references everything
    built so far — and the older generations are rescanned as the heap grows, so the
    collector's share rises faster than the document (a 1,000-tool manifest paid ~28 ms
    of collections, a 100-tool one ~0.6 ms). Nothing built here relies on the cyclic
    collector: the objects are freed by reference counting when the caller drops them,
    and a file is bounded by `limits.MAX_FILE_BYTES`, so at most one document's worth of
    cyclic garbage (if any) waits until collection resumes. This is what json parsers
    and serializers commonly do for bulk builds.

    Safe to nest and to use from several threads: collection resumes when the last pause
    ends, and only if it was enabled when the first began (a caller that disabled it
    keeps it disabled).
    """
    global _gc_pauses, _gc_was_enabled
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pauses += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0 and _gc_was_enabled:
                gc.enable()


Loaded = tuple[SourceDocument | None, list[Problem]]


def check_integration(
    manifest_path: Path, *, loaded: Loaded | None = None
) -> tuple[Manifest | None, PreviewFixtures | None, list[Problem]]:
    """Check one manifest file and the preview fixtures beside it.

    Returns the typed manifest (None when its structure is invalid), the fixtures (None
    when absent or invalid) and every problem, sorted. Never raises for content.
    Automatic garbage collection is paused while it runs (see `gc_paused`).
    """
    with gc_paused():
        try:
            return _check_integration(manifest_path, loaded)
        except Exception as exc:  # RecursionError and MemoryError included
            # The last line of `notch validate never raises`: a check that breaks on some
            # input is a bug in Notch, said as one problem line, not a traceback. The
            # manifest fuzz test asserts this line never appears.
            return None, None, [_internal_error(str(manifest_path), exc)]


def _check_integration(
    manifest_path: Path, loaded: Loaded | None
) -> tuple[Manifest | None, PreviewFixtures | None, list[Problem]]:
    name = str(manifest_path)
    if loaded is None:
        try:
            loaded = load_json(manifest_path, name)
        except SourceError as exc:
            return None, None, [_unreadable(name, str(exc))]
    doc, problems = loaded
    if doc is None:
        return None, None, problems
    checked: ManifestCheck = check_manifest(doc)
    problems = [*problems, *checked.problems]
    fixtures: PreviewFixtures | None = None
    preview = preview_path_for(manifest_path)
    if preview is not None:
        try:
            fdoc, fproblems = load_json(preview, str(preview))
        except SourceError as exc:
            fdoc, fproblems = None, [_unreadable(str(preview), str(exc))]
        problems.extend(fproblems)
        if fdoc is not None:
            fixtures, more = _check_fixtures(fdoc, checked)
            problems.extend(more)
    return checked.manifest, fixtures, sorted(problems, key=Problem.sort_key)


_LIBERAL_FIXTURE_WARNINGS = frozenset({"fixture-args-invalid"})
"""Sample arguments are development data: in a fixture written for VoiceOS a mismatch is
a warning (`notch render --fixture` still says which argument is off)."""


def _check_fixtures(
    fdoc: SourceDocument, checked: ManifestCheck
) -> tuple[PreviewFixtures | None, list[Problem]]:
    if not is_voiceos_file(fdoc):
        return check_fixtures(fdoc, checked)
    data, notes = fixture_notes(fdoc, fdoc.data)
    fixtures, found = check_fixtures(dataclasses.replace(fdoc, data=data), checked)
    found = [
        dataclasses.replace(p, severity="warning") if p.rule in _LIBERAL_FIXTURE_WARNINGS else p
        for p in found
    ]
    return fixtures, [*notes, *found]


def validate_path(path: Path) -> list[Problem]:
    """Every problem in the manifests (and fixtures) under `path`, sorted.

    A missing or unreadable path is one `file-unreadable` problem.
    """
    try:
        found = discover_integrations(path)
    except OSError as exc:
        why = "no such file or folder" if isinstance(exc, FileNotFoundError) else str(exc)
        return [_unreadable(str(path), why)]
    problems: list[Problem] = [
        Problem(str(s.folder), 1, 1, "", FOLDER_SKIPPED, "warning", s.reason)
        for s in found.skipped
        if s.folder != path
    ]
    if not found.manifests:
        problems.append(_unreadable(str(path), "no manifest files (*.json, */manifest.json) here"))
        return sorted(problems, key=Problem.sort_key)
    for manifest_path in found.manifests:
        # Paused here too (check_integration pauses on its own): the typed manifest is
        # dropped inside the pause, so collection does not resume with the whole model
        # alive and walk it once more for nothing.
        with gc_paused():
            problems.extend(check_file(manifest_path))
    return sorted(problems, key=Problem.sort_key)


def check_file(path: Path) -> list[Problem]:
    """Every problem in one file, told a manifest or a preview fixture by its name
    (`manifest.json`, `voiceos.integration.json` / `preview.json`, `NAME.preview.json`)
    and otherwise by its shape (a fixture's `tools` is an object, a manifest's a list).

    A fixture is checked with the manifest it belongs to (both files' problems); one
    with no manifest beside it is checked on its own shape. Never raises for content.
    """
    name = str(path)
    if path.name in MANIFEST_FILES:
        return check_integration(path)[2]
    if is_fixture_name(path.name):
        return _check_fixture_file(path, None)
    try:
        loaded = load_json(path, name)
    except SourceError as exc:
        return [_unreadable(name, str(exc))]
    doc = loaded[0]
    if doc is not None and isinstance(doc.data, dict) and isinstance(doc.data.get("tools"), dict):
        return _check_fixture_file(path, loaded)
    return check_integration(path, loaded=loaded)[2]


FIXTURE_ALONE = "fixture-without-manifest"


def _check_fixture_file(path: Path, loaded: Loaded | None) -> list[Problem]:
    manifest = manifest_path_for(path)
    if manifest is not None:
        return check_integration(manifest)[2]
    name = str(path)
    try:
        doc, problems = loaded if loaded is not None else load_json(path, name)
    except SourceError as exc:
        return [_unreadable(name, str(exc))]
    if doc is None:
        return problems
    data = doc.data
    names = (
        list(data["tools"])
        if isinstance(data, dict) and isinstance(data.get("tools"), dict)
        else []
    )
    fixtures_found = fixture_problems(doc, names, {})[1]
    problems = [*problems, *fixtures_found]
    problems.append(
        doc.problem(
            "",
            FIXTURE_ALONE,
            "this is a preview fixture file (its tools are an object) with no manifest "
            "beside it, so its sample arguments are checked against no tool; put it beside "
            "its manifest (preview.json by manifest.json, NAME.preview.json by NAME.json)",
            severity="warning",
        )
    )
    return sorted(problems, key=Problem.sort_key)
