"""Which action `notch policy` names: integrations loaded, then found by id, name, folder
or the `notch mcp` command line that runs them, with "did you mean" when none matches."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from notch_app.manifest.model import Manifest, Tool
    from notch_app.runtime.catalog import Catalog
    from notch_app.runtime.policy_book import PolicyBook


class Refusal(Exception):
    """A request `notch policy` refuses (exit 2); the message says what to do instead."""


def load_catalog(extra: list[Path]) -> Catalog:
    from notch_app.runtime.catalog import load_integrations

    for folder in extra:
        if not folder.exists():
            raise Refusal(f"--manifests {folder}: no such folder; check the path")
    catalog, problems = load_integrations(extra)
    for line in problems:
        print(f"notch policy: skipped: {line}", file=sys.stderr)
    return catalog


def gateway_id(catalog: Catalog, wanted: str) -> str | None:
    """The integration id of a `notch mcp` integration `wanted` names that is not loaded
    here, else None (then it is looked up as usual). `wanted` is `mcp.local.NAME`, a bare
    server's --name, a `notch mcp ...` command line, or an integration folder (loaded
    into `catalog` when it holds one, so the usual checks apply)."""
    import shlex

    from notch_app.runtime.attached import BARE_PREFIX, AttachRefused, bare_integration_id

    if catalog.integration(wanted) is not None:
        return None
    if wanted.startswith(BARE_PREFIX):
        return wanted
    words = shlex.split(wanted) if " " in wanted.strip() else []
    if "mcp" in words:  # the command line an MCP client runs: notch mcp --name files -- ...
        after = words[words.index("mcp") + 1 :]
        mine = after[: after.index("--")] if "--" in after else after
        if "--name" in mine and mine.index("--name") + 1 < len(mine):
            return bare_integration_id(mine[mine.index("--name") + 1])
        folders = [w for w in mine if not w.startswith("-")]
        wanted = folders[0] if folders else wanted
    folder = Path(wanted).expanduser()
    if "/" in wanted and folder.is_dir():
        loaded, problems = _folder_catalog(folder)
        for line in problems:
            print(f"notch policy: {line}", file=sys.stderr)
        ids = loaded.ids()
        if len(ids) != 1:
            raise Refusal(f"{folder}: holds {len(ids)} loadable integrations; name one folder")
        entry = loaded.entry(ids[0])
        assert entry is not None
        if catalog.integration(ids[0]) is None:
            catalog.add(entry)
        return None
    from notch_app.runtime.policy_book.schema_paths import nearest

    ids = catalog.ids()
    names = [*ids, *(i.rsplit(".", 1)[-1] for i in ids)]
    names += [m.name for i in ids if (m := catalog.integration(i)) is not None]
    if any(n.lower() == wanted.lower() for n in names) or " " in wanted.strip():
        return None
    if nearest(wanted, names):
        return None  # a typo of a loaded one: refused with "did you mean" as before
    try:
        return bare_integration_id(wanted)
    except AttachRefused:
        return None


def _folder_catalog(folder: Path) -> tuple[Catalog, list[str]]:
    from notch_app.runtime.catalog import Catalog

    return Catalog.load([folder])


def resolve_integration(catalog: Catalog, wanted: str) -> Manifest:
    from notch_app.runtime.policy_book.schema_paths import nearest

    manifest = catalog.integration(wanted)
    if manifest is not None:
        return manifest
    ids = catalog.ids()
    # A person may type the name ("Mail") or the last part of the id ("mail").
    by_name = [
        i
        for i in ids
        if i.rsplit(".", 1)[-1].lower() == wanted.lower()
        or ((m := catalog.integration(i)) is not None and m.name.lower() == wanted.lower())
    ]
    hint = by_name[0] if len(by_name) == 1 else nearest(wanted, ids)
    message = f"no integration {wanted!r} is loaded"
    if hint:
        message += f"; did you mean {hint!r}?"
    message += (
        f" Loaded: {', '.join(ids) if ids else 'none'}. Add a folder with --manifests DIR; for "
        "a notch mcp server, give its id (mcp.local.NAME for --name NAME) or its notch mcp "
        "command line."
    )
    raise Refusal(message)


def find_action(
    catalog: Catalog, book: PolicyBook, integration: str, tool_name: str
) -> tuple[Manifest, Tool]:
    from notch_app.manifest.facts import tool_facts
    from notch_app.runtime.policy_book import has_policy
    from notch_app.runtime.policy_book.schema_paths import nearest

    manifest = resolve_integration(catalog, integration)
    tool = manifest.tool(tool_name)
    if tool is None:
        actions = [t.name for t in manifest.tools if has_policy(t)]
        hint = nearest(tool_name, [t.name for t in manifest.tools])
        raise Refusal(
            f"{manifest.id} has no tool {tool_name!r}"
            + (f"; did you mean {hint!r}?" if hint else ".")
            + f" Its actions: {', '.join(actions) or 'none'}."
        )
    if not has_policy(tool):
        if not tool_facts(tool).own_acting.asks:
            raise Refusal(
                f"{tool.name} in {manifest.id} is read-only: it never asks, so it has no "
                "Asks first setting"
            )
        raise Refusal(f"{tool.name} in {manifest.id} has no confirmation card, so it always asks")
    return manifest, tool
