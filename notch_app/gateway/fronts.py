"""What a `notch mcp` fronts: an integration folder (its manifest says how to start its
server and what each tool does) or a bare server (a command line and a name)."""

from __future__ import annotations

import os
from pathlib import Path

from notch_app.gateway.gateway import Front
from notch_app.gateway.launch import interpreter
from notch_app.gateway.tools import from_manifest
from notch_app.gateway.wrapped import ServerCommand
from notch_app.manifest.model import LocalMcpRuntime, Manifest
from notch_app.runtime.attached import AttachRefused, bare_integration_id, folder_entry


class FrontError(ValueError):
    """The folder or command cannot be fronted; the message names the place and the fix."""


def folder_front(folder: Path, settings_path: Path | None = None) -> Front:
    """The integration in `folder`, checked as `notch run` checks it. Raises FrontError
    for a folder that is not one valid integration, or whose server is not local."""
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
