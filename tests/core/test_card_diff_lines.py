"""Diff lines: what each line of a diff is, and its number in the old or new file.

The code panel paints from this: added green, removed red, a numbered gutter. Hostile
case: a command made to look like a diff never has lines folded away (folding is only
for an argument that is a diff, see tests/ui/test_card_compact.py).
"""

from __future__ import annotations

from notch_app.card.diff_lines import FOLD_KEEP, folded, looks_like_diff, read_diff

EDIT = (
    "--- a/src/cart.ts\n+++ b/src/cart.ts\n@@ -12,3 +12,3 @@\n export function total() {\n"
    "-  return 1;\n+  return 2;\n }"
)


def test_a_unified_diff_is_read_line_by_line_with_its_numbers() -> None:
    rows = read_diff(EDIT)
    assert rows is not None
    assert [r.kind for r in rows] == ["file", "file", "hunk", "same", "remove", "add", "same"]
    assert [r.number for r in rows] == [None, None, None, 12, 13, 13, 14]


def test_a_codex_patch_is_a_diff_without_numbers() -> None:
    patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n-  x\n+  y\n*** End Patch"
    rows = read_diff(patch)
    assert rows is not None
    assert [r.kind for r in rows] == ["file", "file", "hunk", "remove", "add", "file"]
    assert all(r.number is None for r in rows)


def test_plain_code_is_not_a_diff() -> None:
    assert read_diff("npm test -- --watch=false") is None
    assert not looks_like_diff("echo '- not a diff'\nls -la")


def test_long_unchanged_runs_fold_to_their_ends() -> None:
    same = "\n".join(f" line {i}" for i in range(1, 21))
    text = f"@@ -1,21 +1,21 @@\n{same}\n-old\n+new"
    rows = read_diff(text)
    assert rows is not None
    shown, kept = folded(text, rows)
    assert "⋯ 14 unchanged lines" in shown
    assert shown.count("\n") + 1 == len(kept)
    assert "-old" in shown and "+new" in shown  # changes are never folded
    assert [r.number for r in kept[1 : 1 + FOLD_KEEP]] == [1, 2, 3]
