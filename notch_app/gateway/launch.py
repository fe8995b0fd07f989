"""Starting the wrapped server first, before `notch mcp` reads and checks the rest.

An MCP client starts `notch mcp` and sends `initialize` at once; the server's own start
(its interpreter, its SDK) is most of what the client waits for. So the server is
started from the manifest's `runtime` as plain JSON, before the manifest is loaded and
checked the way `notch run` checks it (`fronts.folder_front`, in the meantime): a folder
that fails that check stops the server again and `notch mcp` exits with the problems.
Only light modules here: nothing that pulls in pydantic or the MCP SDK.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

from notch_app.gateway.wrapped import ServerCommand, spawn

DEFAULT_TIMEOUT_S: Final = 590.0
"""How long an acting call waits for the person before its card is withdrawn (as the
coding-agent hooks do); `notch mcp --timeout` sets it."""
PROGRESS_EVERY_S: Final = 10.0
"""How often a held call tells the client it is still waiting (`notifications/progress`,
when the request carried a progress token): well inside the TypeScript SDK's 60 s
default, which a client resets on progress when it asks to; `--progress-every`."""

_MANIFEST_NAMES = ("manifest.json", "voiceos.integration.json")
"""As `manifest.discovery` looks for them (manifest.json first)."""


def interpreter(command: str) -> str:
    """`python` in a runtime means the Python running Notch: it has the `mcp` SDK, while the
    PATH an MCP client passes may find one without it (a venv that is not activated)."""
    return sys.executable if command in ("python", "python3") and sys.executable else command


def early_folder_server(folder: Path, settings_path: Path | None) -> subprocess.Popen[bytes] | None:
    """The folder's server, started from its manifest's `runtime` with the person's
    preferences and secrets; None when anything is off (no manifest, not local-mcp, a
    missing secret): the full check then says what, and the server starts later. Never
    raises."""
    try:
        data = _manifest_data(folder.expanduser().resolve())
        if data is None:
            return None
        folder, manifest = data
        runtime = manifest.get("runtime")
        if not isinstance(runtime, dict) or runtime.get("kind") != "local-mcp":
            return None
        command, args, cwd, fixed = (
            runtime.get("command"),
            runtime.get("args", []),
            runtime.get("cwd"),
            runtime.get("env", {}),
        )
        if not isinstance(command, str) or not isinstance(args, list):
            return None
        if not all(isinstance(a, str) for a in args) or not isinstance(fixed, dict):
            return None
        where = folder / cwd if isinstance(cwd, str) and cwd else folder
        env = {str(k): str(v) for k, v in fixed.items()} | _person(manifest, settings_path)
        return spawn(ServerCommand(interpreter(command), tuple(args), where), env)
    except Exception:  # anything at all: the full check reports it properly
        return None


def early_bare_server(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes] | None:
    """A bare server started at once with `env`; None when it cannot start (the gateway
    says why at the first call). Never raises."""
    try:
        return spawn(ServerCommand(argv[0], tuple(argv[1:]), Path.cwd()), env) if argv else None
    except Exception:
        return None


def _manifest_data(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    for name in _MANIFEST_NAMES:
        path = folder / name
        if path.is_file():
            data = json.loads(path.read_text("utf-8"))
            return (folder, data) if isinstance(data, dict) else None
    return None


def _person(manifest: dict[str, Any], settings_path: Path | None) -> dict[str, str]:
    """The person's preference values and secrets, read only when the manifest has any
    (the reading is the slow part of a start). Raises what `integration_environment`
    raises."""
    auth = manifest.get("auth")
    fields = auth.get("fields") if isinstance(auth, dict) else None
    if not fields and not manifest.get("preferences"):
        return {}
    from notch_app.runtime.secrets import integration_environment

    return integration_environment(
        str(manifest.get("id")), auth, manifest.get("preferences"), settings_path=settings_path
    )
