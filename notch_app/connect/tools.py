"""The tool definitions a model is given, built from Notch's catalog (`integrations.list`).

    names = ToolNames.from_catalog(notch.integrations())
    tools = names.openai()            # [{"type": "function", "function": {...}}, ...]
    tools = names.anthropic()         # [{"name", "description", "input_schema"}, ...]
    integration, tool = names.resolve(call.name)   # back to Notch's words

Providers allow tool names matching `^[a-zA-Z0-9_-]{1,64}$`; Notch's are reverse-DNS
integration ids and manifest names up to 128 characters. A tool keeps its own name when
no other tool in the catalog would spell the same; otherwise it is qualified by its
integration (`mail__send_email`, then `com_example_mail__send_email`), and as a last
resort shortened with a hash of its full identity (`send_email-1a2b3c4d5e`). Only hashed
names hold a `-`, so no author can choose a name that takes another tool's hashed one.
The choice depends only on the catalog's contents, never on its order.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from notch_app.ipc.client import NotchError
from notch_app.runtime.model_sentence import ASKS_FIRST, described_for_model

NAME_RULE: Final = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""What OpenAI and Anthropic accept as a tool name."""
MAX_NAME: Final = 64
MAX_DESCRIPTION: Final = 1024
"""OpenAI's limit on a function's description; longer ones end in an ellipsis."""
_NOT_A_NAME_CHAR: Final = re.compile(r"[^A-Za-z0-9_]+")
_HASH_CHARS: Final = 10
_SHOWN_NAME: Final = 80
"""How much of an unknown name an error quotes (a model may send anything)."""
_LISTED_IN_ERROR: Final = 12


class UnknownToolName(NotchError, LookupError):
    """A model called a tool name that is not among the definitions it was given."""

    def __init__(self, name: object, offered: list[str]) -> None:
        shown = _shown(name)
        listed = ", ".join(offered[:_LISTED_IN_ERROR])
        more = (
            f" and {len(offered) - _LISTED_IN_ERROR} more"
            if len(offered) > _LISTED_IN_ERROR
            else ""
        )
        super().__init__(
            f"the model called the tool {shown}, which is not one of the {len(offered)} tools "
            f"it was given ({listed or 'none'}{more}); nothing ran. Give the model the "
            "definitions from the same ToolNames that resolves its calls"
        )
        self.name = name


class ToolNameCollision(NotchError):
    """Two tools of the catalog ended with the same provider name (a hash collision):
    never expected, and refused rather than letting one tool answer for another."""


@dataclass(frozen=True, slots=True)
class CatalogTool:
    """One tool of the catalog as a model sees it, and where it lives in Notch."""

    name: str
    """The provider-safe name given to the model."""
    integration: str
    tool: str
    description: str
    input_schema: dict[str, Any] = field(repr=False)
    confirms: bool
    """Notch shows a card before it runs (an acting tool)."""
    annotations: dict[str, Any] = field(default_factory=dict, repr=False)

    def openai(self) -> dict[str, Any]:
        """This tool for an OpenAI-style (Chat Completions) request."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(self.input_schema),
            },
        }

    def anthropic(self) -> dict[str, Any]:
        """This tool for an Anthropic-style (Messages API) request."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": copy.deepcopy(self.input_schema),
        }


class ToolNames:
    """The catalog's tools under provider-safe names, and the way back."""

    def __init__(self, tools: Iterable[CatalogTool]) -> None:
        self._by_name: dict[str, CatalogTool] = {}
        self._by_identity: dict[tuple[str, str], CatalogTool] = {}
        for tool in tools:
            if tool.name in self._by_name:
                raise ToolNameCollision(
                    f"{tool.integration}/{tool.tool} and {self._by_name[tool.name].integration}/"
                    f"{self._by_name[tool.name].tool} would both be called {tool.name!r}"
                )
            self._by_name[tool.name] = tool
            self._by_identity[(tool.integration, tool.tool)] = tool

    @classmethod
    def from_catalog(
        cls, integrations: Iterable[Mapping[str, Any]], *, acting_only: bool = False
    ) -> ToolNames:
        """Name every tool of `integrations.list`'s integrations (`acting_only`: only the
        ones that show a card). Entries that are not an integration with tools are skipped:
        the catalog is Notch's, but a tool's words are its author's."""
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for integration in integrations:
            iid = integration.get("id") if isinstance(integration, Mapping) else None
            tools = integration.get("tools") if isinstance(integration, Mapping) else None
            if not isinstance(iid, str) or not iid or not isinstance(tools, list):
                continue
            for tool in tools:
                name = tool.get("name") if isinstance(tool, Mapping) else None
                if not isinstance(name, str) or not name:
                    continue
                if acting_only and not tool.get("confirms"):
                    continue
                found.setdefault((iid, name), dict(tool))
        return cls(_named(found))

    # --- what the model is given -------------------------------------------------------

    def openai(self) -> list[dict[str, Any]]:
        """Every tool as `{"type": "function", "function": {name, description, parameters}}`."""
        return [tool.openai() for tool in self]

    def anthropic(self) -> list[dict[str, Any]]:
        """Every tool as `{"name", "description", "input_schema"}`."""
        return [tool.anthropic() for tool in self]

    # --- the way back --------------------------------------------------------------------

    def resolve(self, name: object) -> tuple[str, str]:
        """(integration, tool) for a name the model called. Raises UnknownToolName
        (a NotchError) for any name this catalog did not give it."""
        return (found := self.lookup(name)).integration, found.tool

    def lookup(self, name: object) -> CatalogTool:
        """The tool a model's name stands for. Raises UnknownToolName."""
        found = self._by_name.get(name) if isinstance(name, str) else None
        if found is None:
            raise UnknownToolName(name, list(self._by_name))
        return found

    def name_of(self, integration: str, tool: str) -> str:
        """The name the model knows `integration`/`tool` by. Raises KeyError when the
        catalog has no such tool."""
        return self._by_identity[(integration, tool)].name

    def __iter__(self) -> Iterator[CatalogTool]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._by_name


def _named(found: Mapping[tuple[str, str], Mapping[str, Any]]) -> list[CatalogTool]:
    """Each tool with the first of its candidate names that no other tool has among its own
    candidates (so the outcome does not depend on order), else its hashed name."""
    candidates = {identity: _candidates(*identity) for identity in found}
    holders: dict[str, set[tuple[str, str]]] = {}
    for identity, names in candidates.items():
        for name in names:
            holders.setdefault(name, set()).add(identity)
    out: list[CatalogTool] = []
    for identity in sorted(found):
        name = next(
            (n for n in candidates[identity] if holders[n] == {identity}), _hashed(*identity)
        )
        out.append(_catalog_tool(name, identity, found[identity]))
    return out


def _candidates(integration: str, tool: str) -> list[str]:
    """The readable names `tool` could have, shortest first; none holds a `-`."""
    bare = _spelled(tool)
    if not bare:
        return []
    parts = [_spelled(p) for p in integration.split(".") if _spelled(p)]
    names = [bare, *("_".join(parts[-n:]) + "__" + bare for n in range(1, len(parts) + 1))]
    return [n for n in dict.fromkeys(names) if 0 < len(n) <= MAX_NAME and NAME_RULE.match(n)]


def _hashed(integration: str, tool: str) -> str:
    digest = hashlib.sha256(f"{integration}\x00{tool}".encode()).hexdigest()[:_HASH_CHARS]
    head = _spelled(tool)[: MAX_NAME - _HASH_CHARS - 1] or "tool"
    return f"{head}-{digest}"


def _spelled(text: str) -> str:
    """`text` with every run of characters a provider refuses (and `-`) as one `_`."""
    return _NOT_A_NAME_CHAR.sub("_", text).strip("_")


def _catalog_tool(name: str, identity: tuple[str, str], tool: Mapping[str, Any]) -> CatalogTool:
    integration, tool_name = identity
    schema = tool.get("inputSchema")
    # A model needs an object schema; a tool listed without one (an older Notch) takes any.
    if not isinstance(schema, dict) or schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    annotations = tool.get("annotations")
    return CatalogTool(
        name=name,
        integration=integration,
        tool=tool_name,
        description=_description(tool),
        input_schema=copy.deepcopy(schema),
        confirms=bool(tool.get("confirms")),
        annotations=dict(annotations) if isinstance(annotations, Mapping) else {},
    )


def _description(tool: Mapping[str, Any]) -> str:
    """The tool's description (else its title), bounded for the provider; a tool that
    shows a card ends with the sentence that calling it asks the person first (never cut:
    the author's words are cut to make room for it)."""
    confirms = bool(tool.get("confirms"))
    room = MAX_DESCRIPTION - (len(ASKS_FIRST) + 2 if confirms else 0)
    for key in ("description", "title", "name"):
        text = tool.get(key)
        if isinstance(text, str) and text.strip():
            text = text.strip()
            text = text if len(text) <= room else text[: room - 1] + "…"
            return described_for_model(text, confirms) or ""
    return ASKS_FIRST if confirms else ""


def _shown(name: object) -> str:
    """A model's name, quoted for an error: bounded, control characters escaped."""
    text = repr(name) if not isinstance(name, str) else repr(name[:_SHOWN_NAME])
    return text + ("…" if isinstance(name, str) and len(name) > _SHOWN_NAME else "")
