"""What the person approved before, per action, and what differs now (issue 20, item 6).

A card for a payee's usual amount and one for ten times that looked the same, as did a
familiar recipient and a new look-alike domain; habituation is how approval prompts
fail. For each action (integration and tool) Notch keeps, in `approved.json` in its
data dir (0600, never a secret value: what the tool's facts mask is skipped), the facts
of what the person approved: recipients and payees, domains, amounts (the last
MAX_AMOUNTS, per currency), each payee's IBAN, folders. A new call is compared with
them; each difference that matters becomes a mark on the card, opened at its field, and
in `confirmationRequired` (`changes`) for the agent's log:

- a recipient or payee never approved for this action;
- a domain never approved (and one that looks like a known one: `exarnple.com`);
- an amount above the usual (above the largest approved, by more than a tenth);
- a different IBAN for a payee approved before;
- a path outside the folders approved before.

Nothing is marked for an action with no approval yet (every value would be "new").
Settings can clear it all. Qt-free; a damaged file is set aside and memory starts empty.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import posixpath
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # the facts and the model load pydantic and jsonschema: loaded on use
    from notch_app.manifest.facts import ToolFacts
    from notch_app.manifest.model import Tool

log = logging.getLogger(__name__)

FILE_NAME: Final = "approved.json"
MAX_PER_KIND: Final = 200
MAX_AMOUNTS: Final = 20
MAX_ACTIONS: Final = 500
AMOUNT_KEYS: Final = frozenset({"amount", "total", "price", "sum", "value", "amount_cents"})
PATH_KEYS: Final = frozenset({"path", "paths", "file_path", "destination", "folder",
                              "directory", "source", "target", "file", "files"})  # fmt: skip
PARTY_KEYS: Final = frozenset({"payee", "beneficiary", "recipient", "creditor", "merchant",
                               "vendor", "to", "cc", "bcc", "recipients", "attendees"})  # fmt: skip
ABOVE_BY: Final = 1.1
"""An amount is "above the usual" past the largest approved times this."""


@dataclass(frozen=True, slots=True)
class Change:
    """One difference from what the person approved before, at an argument path."""

    path: str
    text: str
    kind: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "kind": self.kind, "text": self.text}


@dataclass(slots=True)
class _Facts:
    people: list[tuple[str, str]]
    """(path, email or payee name)"""
    domains: list[tuple[str, str]]
    amounts: list[tuple[str, float, str]]
    """(path, amount, currency)"""
    ibans: list[tuple[str, str, str]]
    """(path, payee, iban)"""
    folders: list[tuple[str, str]]


class ApprovalMemory:
    """The facts of past approvals, per action; `path` None keeps them in memory only."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._actions: dict[str, dict[str, Any]] = {}
        if path is not None:
            self._load(path)

    @classmethod
    def in_data_dir(cls, folder: Path) -> ApprovalMemory:
        return cls(Path(folder) / FILE_NAME)

    # --- reading -------------------------------------------------------------------------

    def changes(self, integration: str, tool: Tool, arguments: Mapping[str, Any]) -> list[Change]:
        """What differs in `arguments` from what the person approved for this action
        before; empty when nothing was approved yet. Never raises."""
        known = self._actions.get(_key(integration, tool.name))
        if not known:
            return []
        try:
            facts = _facts(tool, arguments)
        except RecursionError:  # pragma: no cover - arguments are bounded by the socket
            return []
        out: list[Change] = []
        people = set(known.get("people", ()))
        for path, who in facts.people:
            if who not in people:
                out.append(
                    Change(path, f"{who}: never approved for this action before", "new-party")
                )
        domains = set(known.get("domains", ()))
        for path, domain in facts.domains:
            if domain in domains:
                continue
            like = next((d for d in sorted(domains) if _look_alike(domain, d)), None)
            if like is not None:
                out.append(
                    Change(
                        path, f"{domain} looks like {like}, which you approved before", "look-alike"
                    )
                )
            else:
                out.append(
                    Change(path, f"{domain}: a domain never approved here before", "new-domain")
                )
        amounts: dict[str, list[float]] = known.get("amounts", {})
        for path, amount, currency in facts.amounts:
            seen = amounts.get(currency) or []
            if seen and amount > max(seen) * ABOVE_BY:
                unit = f" {currency}" if currency else ""
                text = f"{_number(amount)}{unit} is above your usual (up to {_number(max(seen))}{unit})"
                out.append(Change(path, text, "amount"))
        ibans: dict[str, str] = known.get("ibans", {})
        for path, payee, iban in facts.ibans:
            before = ibans.get(payee)
            if before is not None and _plain_iban(before) != _plain_iban(iban):
                out.append(Change(path, f"A different IBAN for {payee} than the one you approved "
                                        f"(…{_plain_iban(before)[-4:]})", "iban"))  # fmt: skip
        folders = list(known.get("folders", ()))
        for path, folder in facts.folders:
            if folders and not any(
                folder == f or folder.startswith(f.rstrip("/") + "/") for f in folders
            ):
                out.append(
                    Change(path, f"{folder}: outside the folders you approved before", "folder")
                )
        return _unique(out)

    # --- keeping -------------------------------------------------------------------------

    def remember(self, integration: str, tool: Tool, arguments: Mapping[str, Any]) -> None:
        """Keep the facts of an approved call (never a secret value). Never raises."""
        try:
            facts = _facts(tool, arguments)
        except RecursionError:  # pragma: no cover
            return
        key = _key(integration, tool.name)
        known = self._actions.setdefault(key, {})
        _extend(known, "people", [w for _p, w in facts.people])
        _extend(known, "domains", [d for _p, d in facts.domains])
        _extend(known, "folders", [f for _p, f in facts.folders])
        amounts = known.setdefault("amounts", {})
        for _p, amount, currency in facts.amounts:
            kept = amounts.setdefault(currency, [])
            kept.append(amount)
            del kept[:-MAX_AMOUNTS]
        ibans = known.setdefault("ibans", {})
        for _p, payee, iban in facts.ibans:
            ibans[payee] = iban
        known["approvals"] = int(known.get("approvals", 0)) + 1
        while len(self._actions) > MAX_ACTIONS:
            self._actions.pop(next(iter(self._actions)))
        self._save()

    def clear(self) -> None:
        """Forget every past approval (Settings): no card is marked until new ones."""
        self._actions.clear()
        if self.path is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    def actions(self) -> int:
        """How many actions have approvals kept."""
        return len(self._actions)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning("approval memory %s unreadable (%s); starting empty", path, exc)
            with contextlib.suppress(OSError):
                path.replace(path.with_suffix(".damaged"))
            return
        actions = data.get("actions") if isinstance(data, dict) else None
        if isinstance(actions, dict):
            self._actions = {k: v for k, v in actions.items() if isinstance(v, dict)}

    def _save(self) -> None:
        path = self.path
        if path is None:
            return
        text = json.dumps({"version": 1, "actions": self._actions}, ensure_ascii=False)
        temp = path.with_name(path.name + ".tmp")
        try:
            fd = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600
            )
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(temp, path)
        except OSError as exc:  # a full disk: the approval stands, the memory is older
            log.warning("could not keep approval memory in %s: %s", path, exc)


# --- the facts of a call -----------------------------------------------------------------


def _facts(tool: Tool, arguments: Mapping[str, Any]) -> _Facts:
    from notch_app.manifest.facts import tool_facts

    secrets = tool_facts(tool)
    facts = _Facts([], [], [], [], [])
    for path, key, value, parent in _walk(arguments, secrets):
        last = key.lower()
        if isinstance(value, str):
            text = value.strip()
            email = _email(text)
            if email is not None:
                facts.people.append((path, email))
                facts.domains.append((path, email.split("@", 1)[1]))
            elif text.startswith(("http://", "https://")):
                host = _host(text)
                if host:
                    facts.domains.append((path, host))
            elif last == "name" and _party(path):
                facts.people.append((path, text))
            elif last == "iban":
                payee = parent.get("name") if isinstance(parent, Mapping) else None
                facts.ibans.append((path, str(payee or path.rsplit(".", 1)[0]), text))
            elif (last in PATH_KEYS or path.split(".")[0] in PATH_KEYS) and text.startswith(
                ("/", "~")
            ):
                folder = posixpath.dirname(posixpath.normpath(text)) or "/"
                facts.folders.append((path, folder))
            elif _party(path) and last in PARTY_KEYS and text:
                facts.people.append((path, text))
        elif isinstance(value, int | float) and not isinstance(value, bool) and last in AMOUNT_KEYS:
            currency = parent.get("currency") if isinstance(parent, Mapping) else None
            facts.amounts.append((path, float(value), str(currency or "")))
    return facts


def _walk(value: Any, secrets: ToolFacts, path: str = "", key: str = "",
          parent: Any = None, depth: int = 0) -> Iterator[tuple[str, str, Any, Any]]:  # fmt: skip
    if depth > 20 or (path and secrets.masks(path)):  # a secret value is never kept
        return
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _walk(
                v, secrets, f"{path}.{k}" if path else str(k), str(k), value, depth + 1
            )
    elif isinstance(value, list):
        for i, v in enumerate(value[:MAX_PER_KIND]):
            yield from _walk(v, secrets, f"{path}.{i}", key, parent, depth + 1)
    else:
        yield path, key, value, parent


def _party(path: str) -> bool:
    return any(part.lower() in PARTY_KEYS for part in path.split("."))


def _email(text: str) -> str | None:
    if text.count("@") != 1 or " " in text or len(text) > 320:
        return None
    local, domain = text.rsplit("@", 1)
    if not local or "." not in domain or domain.startswith(".") or domain.endswith("."):
        return None
    return f"{local}@{domain.lower()}"


def _host(url: str) -> str:
    import urllib.parse

    try:
        return (urllib.parse.urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _skeleton(domain: str) -> str:
    """How a domain reads at a glance: look-alike letters as Latin, rn as m, 0 as o…"""
    from notch_app.manifest.trust_rules import _plain_letters as plain_letters

    plain = plain_letters(unicodedata.normalize("NFKC", domain)).lower()
    for seen, read in (("rn", "m"), ("vv", "w"), ("cl", "d"), ("0", "o"), ("1", "l"), ("5", "s")):
        plain = plain.replace(seen, read)
    return plain


def _look_alike(new: str, known: str) -> bool:
    """`new` (not `known` itself) reads like `known`: same skeleton, or one letter off
    in a name of five letters or more."""
    if new == known:
        return False
    if _skeleton(new) == _skeleton(known):
        return True
    a, b = new.split(".")[0], known.split(".")[0]
    return len(b) >= 5 and new.split(".")[1:] == known.split(".")[1:] and _one_off(a, b)


def _one_off(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _plain_iban(iban: str) -> str:
    return "".join(iban.split()).upper()


def _number(value: float) -> str:
    return f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{int(value):,}"


def _extend(known: dict[str, Any], kind: str, values: list[str]) -> None:
    kept = list(known.get(kind, ()))
    for value in values:
        if value not in kept:
            kept.append(value)
    known[kind] = kept[-MAX_PER_KIND:]


def _unique(changes: list[Change]) -> list[Change]:
    seen: set[tuple[str, str]] = set()
    out = []
    for change in changes:
        if (change.path, change.text) not in seen:
            seen.add((change.path, change.text))
            out.append(change)
    return out


def _key(integration: str, tool: str) -> str:
    return f"{integration}/{tool}"


__all__ = ["FILE_NAME", "ApprovalMemory", "Change"]
