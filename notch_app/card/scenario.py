"""Confirmation scenarios: an integration author's tests for a card (`notch test`).

A scenario names a manifest and a tool, gives the agent's proposed arguments, then walks
the card: `expect` what it shows, `set` inputs through the real widgets, `press` confirm
or cancel; finally the `outcome` and, when approved, the exact `finalArguments`.
`schemas/scenario.schema.json` is generated from these models (`scenario_schema()`).
Loading never raises for bad content: problems come back with the file's line and column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StringConstraints,
    Tag,
    ValidationError,
)

from notch_app.manifest import limits
from notch_app.manifest.model import BASE_ID, DIALECT
from notch_app.manifest.paths import join_pointer
from notch_app.manifest.reading import Problem, SourceError, load_json

ArgPath = Annotated[
    str,
    StringConstraints(min_length=1, max_length=limits.MAX_NAME_CHARS * 4),
    Field(description="A bound argument path without braces, e.g. `user.name`."),
]
MAX_STEPS = 500


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Expectation(_Closed):
    """What the card shows at this point; every key is optional."""

    confirm_enabled: bool | None = Field(
        default=None, alias="confirmEnabled", description="Whether confirm can be pressed."
    )
    visible: list[ArgPath] = Field(
        default_factory=list, max_length=500, description="Inputs (by bound path) shown."
    )
    hidden: list[ArgPath] = Field(
        default_factory=list, max_length=500, description="Inputs hidden by `visibleIf`."
    )
    values: dict[str, Any] = Field(
        default_factory=dict, description="Current values by path, compared exactly."
    )
    text: list[Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)]] = Field(
        default_factory=list,
        max_length=500,
        description="Substrings that must be shown somewhere on the card.",
    )


class ExpectStep(_Closed):
    expect: Expectation

    @property
    def kind(self) -> str:
        return "expect"


class SetStep(_Closed):
    set: dict[str, Any] = Field(
        min_length=1,
        description="Values to enter through the real widgets (type, pick, flip, add or "
        "remove chips), in order.",
    )

    @property
    def kind(self) -> str:
        return "set"


class PressStep(_Closed):
    press: Literal["confirm", "cancel"]

    @property
    def kind(self) -> str:
        return "press"


def _step_kind(value: Any) -> str | None:
    # A step is told apart by its one key, so a typo gets one precise error, not three.
    if isinstance(value, dict):
        for key in ("expect", "set", "press"):
            if key in value:
                return key
        return None
    return getattr(value, "kind", None)


Step = Annotated[
    Annotated[ExpectStep, Tag("expect")]
    | Annotated[SetStep, Tag("set")]
    | Annotated[PressStep, Tag("press")],
    Discriminator(
        _step_kind,
        custom_error_type="scenario_step",
        custom_error_message='a step is {"expect": {...}}, {"set": {...}} or {"press": "confirm"|"cancel"}',
    ),
]


class Scenario(_Closed):
    """One confirmation scenario (a file under an integration's `scenarios/`)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, populate_by_name=True, title="Notch confirmation scenario"
    )

    schema_: str | None = Field(default=None, alias="$schema")
    name: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = Field(
        default=None, description="Shown in `notch test` output; defaults to the file path."
    )
    description: Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)] | None = None
    manifest: Annotated[str, StringConstraints(min_length=1, max_length=4096)] = Field(
        description="The manifest file or integration folder, relative to this file."
    )
    tool: Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_NAME_CHARS)]
    arguments: dict[str, Any] = Field(description="The arguments the agent proposes.")
    steps: list[Step] = Field(default_factory=list, max_length=MAX_STEPS)
    outcome: Literal["approved", "declined"]
    final_arguments: dict[str, Any] | None = Field(
        default=None,
        alias="finalArguments",
        description="Compared exactly with what would execute, when the outcome is approved.",
    )


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema published as `schemas/scenario.schema.json` (by `notch schema`)."""
    generated = Scenario.model_json_schema(by_alias=True, mode="validation")
    generated.pop("title", None)
    return {
        "$schema": DIALECT,
        "$id": BASE_ID + "scenario.schema.json",
        "title": "Notch confirmation scenario",
        "description": (
            "A confirmation scenario for `notch test`: a tool call, steps through the real "
            "card (expect / set / press) and the expected outcome and final arguments."
        ),
        **generated,
    }


def _pointer(loc: tuple[int | str, ...], data: Any) -> str:
    # pydantic names union members in `loc` (e.g. "ExpectStep"); keep only real keys.
    parts: list[str] = []
    node = data
    for part in loc:
        if isinstance(node, dict) and str(part) in node:
            node = node[str(part)]
            parts.append(str(part))
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            parts.append(str(part))
    return join_pointer("", *parts)


def load_scenario(
    path: Path, display_name: str | None = None
) -> tuple[Scenario | None, list[Problem]]:
    """Read one scenario file. Returns the scenario, or None and problems that place each
    mistake at its line and column (`FILE:LINE:COLUMN: error[RULE]: message`)."""
    name = display_name or str(path)
    try:
        doc, problems = load_json(path, name)
    except SourceError as exc:
        return None, [Problem(name, 1, 1, "", "file-unreadable", "error", str(exc))]
    if doc is None:
        return None, problems
    if not isinstance(doc.data, dict):
        return None, [doc.problem("", "scenario-shape", "a scenario is a JSON object")]
    try:
        return Scenario.model_validate(doc.data), []
    except ValidationError as exc:
        out: list[Problem] = []
        for error in exc.errors()[:20]:
            pointer = _pointer(tuple(error["loc"]), doc.data)
            where = ".".join(str(p) for p in error["loc"]) or "the scenario"
            missing = error["type"] == "missing"
            message = (
                f"`{error['loc'][-1]}` is missing; add it"
                if missing
                else f"{where}: {error['msg']}"
            )
            if error["type"] == "extra_forbidden":
                message = (
                    f"`{error['loc'][-1]}` is not a scenario key (known: name, description, "
                    "manifest, tool, arguments, steps, outcome, finalArguments; a step is "
                    "expect, set or press)"
                )
            out.append(
                doc.problem(
                    pointer,
                    "scenario-" + error["type"].removeprefix("scenario_").replace("_", "-"),
                    message,
                    key=error["type"] == "extra_forbidden",
                )
            )
        return None, out
