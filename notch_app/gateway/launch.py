"""Starting the wrapped server first, before `notch mcp` reads and checks the rest.

An MCP client starts `notch mcp` and sends `initialize` at once; the server's own start
(its interpreter, its SDK) is most of what the client waits for. So the server is
started from the manifest's `runtime` read as plain JSON, before anything heavy is
imported, and the gateway relays the client's first messages while the manifest is
checked the way `notch run` checks it (`fronts.folder_front`, in the background): a
folder that fails that check stops the server again and `notch mcp` exits with the
problems.

The server's environment holds the person's preference values and secrets, and reading
them (the settings file, the OS keyring) takes longer than a start may wait. When the
manifest makes them guessable (no required auth field; preference defaults that are
text), the server starts at once with the guess (the manifest's `runtime.env` and the
preferences' defaults, no secret) while the real environment is worked out beside it
(`runtime.secrets.integration_environment`, the one place that knows it): the same, and
the server started is the one; different (a value the person set, a secret in the
keyring), and it is stopped and started again with the real one; failing (a missing
secret), and it is stopped and the failure is what the gateway reports. Nothing reaches
the server before that is settled (`EarlyServer.process`).

Only light modules here (not even asyncio, nor dataclasses: NamedTuples instead; the
settings file's name is imported after the start): nothing that pulls in pydantic, the
keyring or the MCP SDK. Each millisecond before `spawn` is one the client waits.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from notch_app.manifest.limits import MAX_FILE_BYTES

if TYPE_CHECKING:  # imported once the server started (it imports logging)
    from concurrent.futures import Future

DEFAULT_TIMEOUT_S: Final = 590.0
"""How long an acting call waits for the person before its card is withdrawn (as the
coding-agent hooks do); `notch mcp --timeout` sets it."""
PROGRESS_EVERY_S: Final = 10.0
"""How often a held call tells the client it is still waiting (`notifications/progress`,
when the request carried a progress token): well inside the TypeScript SDK's 60 s
default, which a client resets on progress when it asks to; `--progress-every`."""

_MANIFEST_NAMES = ("manifest.json", "voiceos.integration.json")
"""As `manifest.reading.discovery` looks for them (manifest.json first)."""

Process = subprocess.Popen[bytes]

INHERITED: Final = (
    ("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE",
     "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE")
    if sys.platform == "win32"
    else ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
)  # fmt: skip
"""What the MCP SDKs pass on to a server they start (Python `DEFAULT_INHERITED_ENV_VARS`,
TypeScript the same): the wrapped server gets what it would get started directly."""


class ServerGone(Exception):
    """The wrapped server could not be started, or stopped while answering."""


class ServerCommand(NamedTuple):
    """How to start the wrapped server: `command args...` in `cwd`."""

    command: str
    args: tuple[str, ...] = ()
    cwd: Path | None = None

    def __str__(self) -> str:
        return " ".join((self.command, *self.args))


def inherited_environment() -> dict[str, str]:
    """The variables an MCP client passes on to a server it starts."""
    return {
        k: v for k in INHERITED if (v := os.environ.get(k)) is not None and not v.startswith("()")
    }


def spawn(command: ServerCommand, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Start `command` with `env` on top of what an MCP client passes on, its stdin and
    stdout pipes, stderr this process's. Raises ServerGone when it cannot start. Plain
    `subprocess`, so `notch mcp` can start its server before anything else is imported
    (`WrappedServer.adopt`)."""
    try:
        return subprocess.Popen(
            [command.command, *command.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**inherited_environment(), **env},
            cwd=command.cwd,
            start_new_session=True,  # a Ctrl+C meant for the client is not its
        )
    except OSError as exc:
        raise ServerGone(f"could not start `{command}`: {exc.strerror or exc}") from None


def stop_unused(started: Future[subprocess.Popen[bytes]]) -> None:
    """Stop a process started for the gateway that it never used (a done callback: once
    it is settled)."""
    if not started.cancelled() and started.exception() is None:
        with contextlib.suppress(ProcessLookupError):
            started.result().terminate()


class EarlyServer(NamedTuple):
    """A server started before the rest of `notch mcp` was read and checked."""

    command: ServerCommand
    process: Future[Process]
    """The process to adopt once its environment is settled: the one started at once,
    or another started with the real environment; its exception is the environment's
    problem (a missing secret), the process then stopped."""
    environment: Callable[[], dict[str, str]]
    """The server's environment worked out in full, for a start after this one (a restart
    after a crash). May raise what `integration_environment` raises."""
    manifest: dict[str, Any] | None = None
    """The manifest as plain JSON (None for a bare server)."""
    folder: Path | None = None

    def stop(self) -> None:
        """Stop the process, now or once it is settled (it was never adopted)."""
        self.process.add_done_callback(stop_unused)


def interpreter(command: str) -> str:
    """`python` in a runtime means the Python running Notch: it has the `mcp` SDK, while the
    PATH an MCP client passes may find one without it (a venv that is not activated)."""
    return sys.executable if command in ("python", "python3") and sys.executable else command


def early_folder_server(folder: Path, data_dir: Path | None) -> EarlyServer | None:
    """The folder's server, started from its manifest's `runtime` (see the module's
    docstring for its environment); `data_dir` holds the person's settings (None: the
    usual place). None when anything is off (no manifest, not local-mcp, a file the check
    will refuse): the full check then says what, and the server starts later. Never
    raises."""
    try:
        found = _manifest_data(folder.expanduser().resolve())
        if found is None:
            return None
        folder, manifest = found
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
        server = ServerCommand(interpreter(command), tuple(args), where)
        plain = {str(k): str(v) for k, v in fixed.items()}

        def environment() -> dict[str, str]:
            return plain | _person(manifest, data_dir)

        if not manifest.get("auth") and not manifest.get("preferences"):
            process = _started(spawn(server, plain))  # nothing of the person's to read
        else:
            guess = _guess(manifest)
            started = spawn(server, plain | guess) if guess is not None else None
            process = _started(None)
            threading.Thread(
                target=_settle,
                args=(process, server, started, plain | (guess or {}), environment),
                name="notch-mcp-environment",
                daemon=True,
            ).start()
        return EarlyServer(server, process, environment, manifest, folder)
    except Exception:  # anything at all: the full check reports it properly
        return None


def early_bare_server(argv: list[str], env: dict[str, str]) -> EarlyServer | None:
    """A bare server started at once with `env`; None when it cannot start (the gateway
    says why at the first call). Never raises."""
    try:
        if not argv:
            return None
        command = ServerCommand(argv[0], tuple(argv[1:]), Path.cwd())
        return EarlyServer(command, _started(spawn(command, env)), lambda: dict(env))
    except Exception:
        return None


def _started(process: Process | None) -> Future[Process]:
    """A Future holding `process` (None: one left to settle)."""
    from concurrent.futures import Future

    out: Future[Process] = Future()
    if process is not None:
        out.set_result(process)
    return out


def _settle(
    process: Future[Process],
    command: ServerCommand,
    started: Process | None,
    guessed: dict[str, str],
    environment: Callable[[], dict[str, str]],
) -> None:
    """Work out the real environment (in its own thread: it reads files and the keyring)
    and settle `process`: `started` when it was started with exactly that, else a process
    started with it; the exception that kept it from being worked out, `started` then
    stopped."""
    try:
        real = environment()
        if started is not None and real == guessed:
            process.set_result(started)
            return
        if started is not None:
            started.terminate()
        process.set_result(spawn(command, real))
    except BaseException as exc:
        if started is not None:
            with contextlib.suppress(ProcessLookupError):
                started.terminate()
        process.set_exception(exc)


def _guess(manifest: Mapping[str, Any]) -> dict[str, str] | None:
    """The person's part of the environment as it is for someone who set nothing: each
    preference's default; None when that cannot be told from the JSON alone (a required
    auth field, a default that is not text, a required preference without one)."""
    auth = manifest.get("auth")
    fields = auth.get("fields") if isinstance(auth, dict) else None
    if auth is not None and not isinstance(fields, list | None):
        return None
    for field in fields or ():
        if not isinstance(field, dict) or field.get("required"):
            return None
    preferences = manifest.get("preferences") or []
    if not isinstance(preferences, list):
        return None
    guess: dict[str, str] = {}
    for pref in preferences:
        if not isinstance(pref, dict):
            return None
        name, default = pref.get("name") or pref.get("key"), pref.get("default")
        if not isinstance(name, str) or not name:
            continue
        if default is None:
            if pref.get("required"):
                return None
            continue
        if not isinstance(default, str):
            return None
        guess[name] = default
    return guess


def _manifest_data(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    for name in _MANIFEST_NAMES:
        path = folder / name
        if path.is_file():
            if path.stat().st_size > MAX_FILE_BYTES:
                return None  # the check refuses it
            data = json.loads(path.read_text("utf-8"))
            return (folder, data) if isinstance(data, dict) else None
    return None


def _person(manifest: Mapping[str, Any], data_dir: Path | None) -> dict[str, str]:
    """The person's preference values and secrets (`integration_environment`). Raises
    what it raises (MissingSecret, BadPreference, …)."""
    from notch_app.runtime.secrets import integration_environment

    return integration_environment(
        str(manifest.get("id")),
        manifest.get("auth"),
        manifest.get("preferences"),
        settings_path=settings_in(data_dir),
    )


def settings_in(data_dir: Path | None) -> Path | None:
    """The settings file in `data_dir` (None: the usual place, found where it is read)."""
    from notch_app.runtime.folders import SETTINGS_FILE_NAME  # after the start: platformdirs

    return None if data_dir is None else data_dir.expanduser() / SETTINGS_FILE_NAME
