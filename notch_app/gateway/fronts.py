"""What a `notch mcp` fronts: an integration folder (its manifest says how to start its
server and what each tool does) or a bare server (a command line and a name).

Each comes twice. First as read before anything heavy is imported (`early_front`, from
the server `launch` started and the manifest as plain JSON), so the gateway relays the
client's `initialize` and reads while the rest loads; then as checked the way `notch
run` checks it (`folder_front`, `bare_front`), which the gateway waits for before any
call that needs Notch, and which stops it when it fails.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from notch_app.gateway.gateway import Front
from notch_app.gateway.launch import EarlyServer, ServerCommand, interpreter
from notch_app.gateway.tools import from_manifest_json

if TYPE_CHECKING:
    from notch_app.manifest.model import Manifest


class FrontError(ValueError):
    """The folder or command cannot be fronted; the message names the place and the fix."""


def early_front(
    early: EarlyServer, name: str | None = None, argv: list[str] | None = None
) -> Front:
    """What can be told of the front before it is checked: for a folder (`early.manifest`)
    its name, id and the tools a plain reading decides (`tools.from_manifest_json`); for
    a bare server (`name`, `argv`) its name and command. Never raises."""
    manifest = early.manifest
    if manifest is None:  # a bare server
        argv = list(argv or ())
        return Front(
            name=name or "server",
            integration_id="",
            command=early.command,
            environment=early.environment,
            attachment={"name": name, "command": argv, "cwd": str(Path.cwd())},
            tools=None,
        )
    tools, complete = from_manifest_json(manifest)
    told = manifest.get("name")
    folder = early.folder or Path.cwd()
    integration_id = manifest.get("id")
    return Front(
        name=told if isinstance(told, str) and told else folder.name,
        integration_id=integration_id if isinstance(integration_id, str) else "",
        command=early.command,
        environment=early.environment,
        attachment={"folder": str(folder)},
        tools=tools,
        tools_complete=complete,
    )


def folder_front(folder: Path, settings_path: Path | None = None) -> Front:
    """The integration in `folder`, checked as `notch run` checks it. Raises FrontError
    for a folder that is not one valid integration, or whose server is not local."""
    from notch_app.gateway.tools import from_manifest
    from notch_app.manifest.model import LocalMcpRuntime
    from notch_app.runtime.attached import AttachRefused, folder_entry

    folder = folder.expanduser().resolve()
    try:
        entry = folder_entry(folder)
    except AttachRefused as exc:
        raise FrontError(str(exc)) from None
    manifest = entry.manifest
    runtime = manifest.runtime
    if not isinstance(runtime, LocalMcpRuntime):
        kind = "no runtime" if runtime is None else f'runtime kind "{runtime.kind}"'
        raise FrontError(
            f"{folder}: {manifest.id} has {kind}; notch mcp starts a local server, so its "
            'manifest needs "runtime": {"kind": "local-mcp", "command": ..., "args": [...]}'
        )
    cwd = folder / runtime.cwd if runtime.cwd else folder
    command = ServerCommand(interpreter(runtime.command), tuple(runtime.args), cwd)
    fixed = dict(runtime.env)

    def environment() -> dict[str, str]:
        return fixed | _person_environment(manifest, settings_path)

    return Front(
        name=manifest.name,
        integration_id=manifest.id,
        command=command,
        environment=environment,
        attachment={"folder": str(folder)},
        tools=from_manifest(manifest),
    )


def _person_environment(manifest: Manifest, settings_path: Path | None) -> dict[str, str]:
    """The person's preference values and secrets for the server (runtime/secrets.py).
    Raises its MissingSecret, with the sentence the model and the person read."""
    from notch_app.runtime.secrets import integration_environment

    return integration_environment(
        manifest.id, manifest.auth, manifest.preferences, settings_path=settings_path
    )


def bare_front(name: str, argv: list[str]) -> Front:
    """A bare MCP server started with `argv`, in the current folder. Raises FrontError
    for an empty command or a name with no letters."""
    from notch_app.runtime.bare_id import AttachRefused, bare_integration_id

    if not argv:
        raise FrontError(
            "give the server's command after --, e.g. notch mcp --name files -- npx ..."
        )
    try:
        integration_id = bare_integration_id(name)
    except AttachRefused as exc:
        raise FrontError(str(exc)) from None
    return Front(
        name=name,
        integration_id=integration_id,
        command=ServerCommand(argv[0], tuple(argv[1:]), Path.cwd()),
        # What the MCP client gave `notch mcp` (its config's env) is the server's own.
        environment=lambda: dict(os.environ),
        # The tools are added once the server has listed them; the command line is what
        # an "Always allow" binds to (another server under the same name asks).
        attachment={"name": name, "command": list(argv), "cwd": str(Path.cwd())},
        tools=None,
    )
