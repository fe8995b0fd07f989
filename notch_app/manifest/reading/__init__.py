"""Reading integration files as they are written: bounded, placed, and found on disk.

- `source.py`: an untrusted JSON file, bounded before parsing, and every value placed back
  at its FILE:LINE:COLUMN (`SourceDocument`);
- `problems.py`: a problem found in a file, at its place, with its rule and fix (`Problem`);
- `discovery.py`: which manifest files a path names, and which folders it skips;
- `voiceos.py`: VoiceOS integration folders read as they are written, translated into
  Notch's manifest (a tool that must ask without a card gets a generated one).
"""

from notch_app.manifest.reading.discovery import (
    MANIFEST_FILE,
    MANIFEST_FILES,
    MAX_SEARCH_DEPTH,
    VOICEOS_MANIFEST_FILE,
    VOICEOS_PREVIEW_FILE,
    discover_integrations,
    find_integrations,
    integration_manifest,
    is_fixture_name,
    manifest_path_for,
    preview_path_for,
)
from notch_app.manifest.reading.problems import Problem, quote
from notch_app.manifest.reading.source import (
    SourceDocument,
    SourceError,
    check_depth,
    load_json,
    parse_text,
)
from notch_app.manifest.reading.voiceos import (
    Read,
    fixture_notes,
    generate_confirmations,
    generated_notice,
    is_voiceos_file,
    read_manifest,
)

__all__ = [
    "MANIFEST_FILE",
    "MANIFEST_FILES",
    "MAX_SEARCH_DEPTH",
    "VOICEOS_MANIFEST_FILE",
    "VOICEOS_PREVIEW_FILE",
    "Problem",
    "Read",
    "SourceDocument",
    "SourceError",
    "check_depth",
    "discover_integrations",
    "find_integrations",
    "fixture_notes",
    "generate_confirmations",
    "generated_notice",
    "integration_manifest",
    "is_fixture_name",
    "is_voiceos_file",
    "load_json",
    "manifest_path_for",
    "parse_text",
    "preview_path_for",
    "quote",
    "read_manifest",
]
