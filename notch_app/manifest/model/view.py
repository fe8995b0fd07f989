"""The confirmation view: `{schemaVersion: 1, root: <block>}` and the block vocabulary.

These frozen models are the readable spec; `schemas/view.schema.json` is generated from
them (`notch schema`). Every shape here is closed (`extra="forbid"`): a view is untrusted
data drawn on top of every other window, so an unknown prop is an error, not a guess.

Where the spec leaves a prop open, the decision is written in the field's description
(and mirrored in README.md).
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

from notch_app.manifest import limits

Label = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_LABEL_CHARS)]
ShortText = Annotated[str, StringConstraints(max_length=limits.MAX_LABEL_CHARS)]
LongText = Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)]
UrlText = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_URL_CHARS)]
BindingText = Annotated[
    str,
    StringConstraints(min_length=5, max_length=limits.MAX_NAME_CHARS * 4),
    Field(
        description="Exactly one binding, `{{path}}` or `<<path>>`; dotted paths address "
        "nested arguments.",
        examples=["{{text}}", "<<user.name>>"],
    ),
]

ReadBackText = Annotated[
    str, StringConstraints(min_length=1, max_length=limits.MAX_READ_BACK_TEMPLATE_CHARS)
]
HeadlineText = Annotated[
    str, StringConstraints(min_length=1, max_length=limits.MAX_READ_BACK_TEMPLATE_CHARS)
]
Color = Literal["accent", "neutral", "danger", "success", "warning"]
Tone = Literal["neutral", "info", "success", "warning", "danger"]
ActionRole = Literal["confirm", "cancel", "copy", "openUrl"]


class _Block(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    visible_if: BindingText | None = Field(
        default=None,
        description="Show this block and everything under it only while the bound "
        "argument is truthy (non-empty, non-zero, not false). Hidden required inputs "
        "do not gate the confirm button.",
    )
    compact: bool | None = Field(
        default=None,
        description="Whether the card's first, compact view shows this block (the rest "
        "is one click away under 'Details'). Unset: Notch's default — short facts "
        "(keyValue, metadata, badges, titles, the image beside them) show, long or "
        "editable content folds. A card with an empty required input, a guard, a risk "
        "or a change since the last approval opens expanded whatever is marked.",
    )


# --- display -------------------------------------------------------------------------


class TextBlock(_Block):
    """Plain text. Bindings are interpolated from the current (edited) values."""

    type: Literal["text"]
    text: LongText = Field(description="The text; `{{path}}` is replaced live.")
    variant: Literal["body", "title", "caption", "muted", "code"] = Field(
        default="body",
        description="`title` is larger and bold; `caption`/`muted` are quiet; `code` is "
        "fixed-width on a faint panel (shell commands, diffs, code).",
    )


class MarkdownBlock(_Block):
    """Sanitized markdown: raw HTML is shown as literal text, links only http(s)/mailto."""

    type: Literal["markdown"]
    text: LongText = Field(
        description="Markdown source; bindings are interpolated first. Raw HTML is never "
        "rendered, links other than https/http/mailto are inert, images show a placeholder "
        "(nothing is read from disk or the network)."
    )


class KeyValueItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: Label = Field(description="The key, shown quiet on the left.")
    value: LongText = Field(description="The value, bindings interpolated; long values wrap.")


class KeyValueBlock(_Block):
    """A two-column table of facts: what will happen, in the person's words."""

    type: Literal["keyValue"]
    items: list[KeyValueItem] = Field(
        min_length=1,
        max_length=limits.MAX_ITEMS,
        description="Rows of `{label, value}`; values may hold bindings.",
    )


class MetadataItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: ShortText | None = Field(default=None, description="Optional key before the value.")
    value: LongText


class MetadataBlock(_Block):
    """One quiet line of small facts, joined by ` · ` (sender, size, time...)."""

    type: Literal["metadata"]
    items: list[MetadataItem] = Field(min_length=1, max_length=limits.MAX_ITEMS)


class ListItemBlock(_Block):
    """One row of a list: a title, an optional subtitle and an optional trailing note."""

    type: Literal["listItem"]
    title: LongText
    subtitle: LongText | None = None
    trailing: ShortText | None = Field(
        default=None, description="Short text aligned right (a size, a time, a price)."
    )


class ListBlock(_Block):
    """A list of `listItem` blocks, or of the elements of an array argument."""

    type: Literal["list"]
    items: list[ListItemBlock] = Field(
        default_factory=list,
        max_length=limits.MAX_ITEMS,
        description="Fixed rows (titles may hold bindings).",
    )
    items_from: BindingText | None = Field(
        default=None,
        description="A binding to an array argument: one row per element, shown live as "
        "the person edits it. Scalars show as text; objects show their `title`, `name` or "
        "`label` key, else a compact summary.",
    )
    ordered: bool = Field(default=False, description="Number the rows.")
    max_visible: int = Field(
        default=8,
        ge=1,
        le=100,
        description="Rows shown before the rest fold into 'and N more'.",
    )


class ImageBlock(_Block):
    """An image: a data: URI, a file inside the integration's folder, or an https URL."""

    type: Literal["image"]
    src: Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_IMAGE_SRC_CHARS)] = (
        Field(
            description="`data:image/png;base64,...`, a path relative to the integration "
            "folder (never outside it), or an `https://` URL on a domain the integration "
            "declares in `permissions` (fetched off the UI thread, size- and time-limited; "
            "otherwise a placeholder). May hold bindings."
        )
    )
    alt: Label = Field(description="What the image shows; read by screen readers.")
    height: int = Field(default=120, ge=16, le=320, description="Display height in pixels.")


class BadgeBlock(_Block):
    """A small pill of status text."""

    type: Literal["badge"]
    text: Label
    tone: Tone = Field(default="neutral", description="Colour family of the pill.")


class ProgressBlock(_Block):
    """A progress bar: `value` out of `max` (default 100)."""

    type: Literal["progress"]
    value: float | BindingText = Field(
        description="A number in 0..max, or a binding to a numeric argument (clamped)."
    )
    max: float = Field(default=100, gt=0, le=1e12)
    label: ShortText | None = None


class DividerBlock(_Block):
    """A thin horizontal rule."""

    type: Literal["divider"]


# --- input ---------------------------------------------------------------------------


class _Input(_Block):
    bind: BindingText = Field(description="The argument this input shows and edits.")
    label: Label = Field(description="Shown above the input; its accessible name.")
    required: bool = Field(
        default=False,
        description="Gate the confirm button until this input holds a non-whitespace "
        "value (while visible). Marked with a quiet, permanent `*`.",
    )
    help: ShortText | None = Field(default=None, description="A quiet hint under the input.")


class TextFieldBlock(_Input):
    type: Literal["textField"]
    multiline: bool = Field(default=False, description="A growing text area (Ctrl+Enter confirms).")
    placeholder: ShortText | None = None
    monospace: bool = Field(
        default=False,
        description="Show and edit the value in a fixed-width font (a shell command, code).",
    )


class PasswordFieldBlock(_Input):
    """A masked input with a reveal button; its value is never logged or stored."""

    type: Literal["passwordField"]
    placeholder: ShortText | None = None


class SelectOption(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: Label
    value: Annotated[str, StringConstraints(max_length=limits.MAX_LABEL_CHARS)] | int | float | bool


class SelectBlock(_Input):
    type: Literal["select"]
    options: list[SelectOption] = Field(
        min_length=1, max_length=limits.MAX_OPTIONS, description="The choices, in order."
    )


class ToggleBlock(_Input):
    """An on/off switch bound to a boolean. Toggles never gate: off is an answer."""

    type: Literal["toggle"]


class ChipsBlock(_Input):
    """Removable chips for an array of strings, with a field to add more."""

    type: Literal["chips"]
    placeholder: ShortText | None = None


# --- action --------------------------------------------------------------------------


class _ActionProps(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )

    label: Label = Field(description="Name the consequence: 'Delete 42 files', not 'Confirm'.")
    role: ActionRole = Field(
        description="`confirm` approves (gated), `cancel` declines, `copy` copies `value`, "
        "`openUrl` opens `url` after the person clicks. `custom` is reserved for a later "
        "schemaVersion."
    )
    color: Color | None = Field(
        default=None, description="Tint; `danger` for destructive confirms."
    )
    value: LongText | None = Field(
        default=None,
        description="For `copy`: the text put on the clipboard (bindings interpolated). "
        "Without it, copy puts the final arguments as JSON.",
    )
    url: UrlText | None = Field(
        default=None,
        description="For `openUrl`: an https/http/mailto URL (bindings interpolated); "
        "shown before it opens.",
    )


class ActionItem(_ActionProps):
    """One button inside an `actions` row."""

    visible_if: BindingText | None = Field(default=None, description="As on every block.")


class ButtonBlock(_ActionProps, _Block):
    """A single button."""

    type: Literal["button"]


class ActionsBlock(_Block):
    """A row of buttons; the footer's confirm and cancel usually live here."""

    type: Literal["actions"]
    items: list[ActionItem] = Field(min_length=1, max_length=12)


# --- a sandboxed HTML widget (a whole view) -------------------------------------------

MAX_WIDGET_HTML_BYTES: Final = 256 * 1024
"""A confirmation widget's page, in UTF-8 bytes (it is inlined in the manifest)."""

MAX_WIDGET_HEIGHT: Final = 600
"""The tallest a widget is drawn, in pixels, whatever the block or the page asks."""


def _html_within_limit(html: str) -> str:
    size = len(html.encode("utf-8", "surrogatepass"))
    if size > MAX_WIDGET_HTML_BYTES:
        raise ValueError(
            f"this page is {size} bytes; a widget's html is at most {MAX_WIDGET_HTML_BYTES} "
            "bytes — move images out (or shrink them) and minify the page"
        )
    return html


WidgetHtml = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_WIDGET_HTML_BYTES),
    AfterValidator(_html_within_limit),
]


class WidgetBlock(_Block):
    """A sandboxed HTML page as the whole confirmation view (VoiceOS "your pixels").

    Only as a view's root. The page runs with JavaScript but no network, files, popups
    or navigation; it gets `{"type": "voiceos:init", "theme", "radius", "data"}` by
    `postMessage`, may resize itself (`voiceos:resize`) and stage edits of the arguments
    (`voiceos:args`). Notch draws its own "What will run" list of every argument under
    the page and its own Cancel and confirm buttons outside it: a page never approves."""

    type: Literal["widget"]
    html: WidgetHtml = Field(
        description="The page, inline (as VoiceOS integrations write it): at most "
        f"{MAX_WIDGET_HTML_BYTES} bytes of UTF-8. Drawn as written; no bindings inside."
    )
    height: int = Field(
        default=160,
        ge=1,
        le=MAX_WIDGET_HEIGHT,
        description="Height in pixels until the page reports its own (`voiceos:resize`, "
        f"clamped to 1..{MAX_WIDGET_HEIGHT}).",
    )
    label: Label | None = Field(
        default=None,
        description="What the page shows, for screen readers; the tool's title if unset.",
    )
    data: dict[str, Any] = Field(
        default_factory=dict,
        description="JSON handed to the page as `data` in `voiceos:init`. A string that is "
        'exactly one binding (`"{{to}}"`) becomes that argument\'s current value (typed); '
        "other text has its bindings filled in. Every bound name must be an argument.",
    )
    confirm_label: Label | None = Field(
        default=None,
        description="The words on Notch's own confirm button under the page; the tool's "
        "title if unset. Name the consequence ('Send message').",
    )


@functools.cache
def web_engine_installed() -> bool:
    """Whether this installation can draw HTML widgets (QtWebEngine is present), found
    without importing Qt. Where it is not, a widget view asks with the generated card."""
    spec = importlib.util.find_spec("PySide6")
    places = spec.submodule_search_locations if spec is not None else None
    return any(
        next(Path(place).glob("QtWebEngineWidgets*"), None) is not None for place in places or ()
    )


# --- layout --------------------------------------------------------------------------


class CardBlock(_Block):
    """The usual root: a title, content blocks and a footer of actions."""

    type: Literal["card"]
    title: ShortText | None = None
    subtitle: ShortText | None = None
    children: list[Block] = Field(default_factory=list, max_length=limits.MAX_BLOCKS_PER_VIEW)
    footer: list[Block] = Field(
        default_factory=list,
        max_length=12,
        description="Action blocks; holds exactly one confirm and one cancel.",
    )


class StackBlock(_Block):
    type: Literal["stack"]
    direction: Literal["vertical", "horizontal"] = "vertical"
    gap: int = Field(default=8, ge=0, le=48, description="Space between children, in pixels.")
    children: list[Block] = Field(default_factory=list, max_length=limits.MAX_BLOCKS_PER_VIEW)


Block = Annotated[
    CardBlock
    | StackBlock
    | TextBlock
    | MarkdownBlock
    | KeyValueBlock
    | MetadataBlock
    | ListBlock
    | ListItemBlock
    | ImageBlock
    | BadgeBlock
    | ProgressBlock
    | DividerBlock
    | TextFieldBlock
    | PasswordFieldBlock
    | SelectBlock
    | ToggleBlock
    | ChipsBlock
    | ButtonBlock
    | ActionsBlock
    | WidgetBlock,
    Field(discriminator="type"),
]

InputBlock = TextFieldBlock | PasswordFieldBlock | SelectBlock | ToggleBlock | ChipsBlock
INPUT_TYPES = frozenset({"textField", "passwordField", "select", "toggle", "chips"})
BLOCK_TYPES = frozenset(
    {
        "card", "stack", "text", "markdown", "keyValue", "metadata", "list", "listItem",
        "image", "badge", "progress", "divider", "textField", "passwordField", "select",
        "toggle", "chips", "button", "actions", "widget",
    }
)  # fmt: skip
ROOT_ONLY_TYPES = frozenset({"widget"})
"""Blocks that are a whole view: allowed as the root only (`widget-not-root`)."""
RESERVED_BLOCK_TYPES = frozenset({"canvas"})
RESERVED_ROLES = frozenset({"custom"})
SUPPORTED_VIEW_VERSIONS = (1,)


class ConfirmationView(BaseModel):
    """A confirmation card: one root block, usually a `card` with children and a footer."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True,
        title="Notch confirmation view",
    )  # fmt: skip

    schema_version: Literal[1] = Field(description="This Notch reads schemaVersion 1.")
    root: Block
    read_back: ReadBackText | None = Field(
        default=None,
        description="The one sentence a voice agent (and Notch, with voice on) says to ask "
        "for this call, as display text with bindings filled from the validated final "
        "arguments: 'Send {{text}} to {{to}} ({{phone}})?'. Every binding must be an "
        "argument; it must name every phone number, IBAN, amount and recipient the tool "
        "sends and say something of its own beyond free text the model fills "
        "(`read-back-incomplete`); secrets are never read back (`read-back-secret`). "
        "Without it Notch builds the sentence from the card's title and what it binds.",
        examples=["Send WhatsApp message to {{to}} ({{phone}}): '{{text}}'?"],
    )
    headline: HeadlineText | None = Field(
        default=None,
        description="The card's first line: the action and its key facts in plain words, "
        "with bindings: 'Pay {{amount}} to {{payee.name}}'. A binding to an amount shows "
        "it with the currency beside it in the person's locale ('€1,250.00'), a date or "
        "time humanised in the person's zone ('Tue 3 Jun, 14:00 (in 2 days)'), a path "
        "with the home folder as ~, a list as 'a, b and 3 more'; secrets as ••••••. "
        "Without it Notch writes one from the tool's title and arguments.",
        examples=["Pay {{amount}} to {{payee.name}}", "Book {{meeting.title}} · {{meeting.start}}"],
    )


CardBlock.model_rebuild()
StackBlock.model_rebuild()
ConfirmationView.model_rebuild()


CHILD_KEYS: Final[Mapping[str, tuple[str, ...]]] = {
    "card": ("children", "footer"),
    "stack": ("children",),
    "list": ("items",),
}
"""Which blocks hold blocks, and under which keys (in reading order). The one list: the
structure pre-pass, the rules, the card state and `iter_blocks` all walk with it."""

ACTION_ITEMS_KEY: Final = "items"
"""An `actions` block holds action items (not blocks) under this key."""


@dataclass(frozen=True, slots=True)
class BlockVisit:
    """One block met by `walk_blocks`."""

    block: Any
    """The block: a dict (raw JSON) or a block model, as the walk was given."""
    pointer: str
    """Its JSON Pointer (from the pointer the walk started at)."""
    depth: int
    """1 for the root, 2 for its children, ..."""
    parent: Any
    """The block that holds it; None for the root."""


def _kind(node: Any) -> Any:
    return node.get("type") if isinstance(node, dict) else getattr(node, "type", None)


def _kids(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, dict) else getattr(node, key, None)


def walk_blocks(
    root: Any,
    pointer: str = "",
    *,
    action_items: bool = False,
    pruned: set[int] | None = None,
) -> Iterator[BlockVisit]:
    """Every block under (and including) `root`, depth first in reading order.

    Works on raw JSON (dicts; anything else in a child list is skipped) and on block
    models alike. With `action_items`, the items of an `actions` block are visited too
    (they carry `visibleIf` and a role, but are not blocks). A block whose `id()` the
    caller adds to `pruned` while handling it is not descended into. Never raises.
    """
    stack: list[BlockVisit] = [BlockVisit(root, pointer, 1, None)]
    while stack:
        visit = stack.pop()
        node = visit.block
        if not isinstance(node, dict | BaseModel):
            continue
        yield visit
        if pruned is not None and id(node) in pruned:
            continue
        kind = _kind(node)
        keys = CHILD_KEYS.get(kind, ()) if isinstance(kind, str) else ()
        if action_items and kind == "actions":
            keys = (ACTION_ITEMS_KEY,)
        below: list[BlockVisit] = []
        for key in keys:
            kids = _kids(node, key)
            if isinstance(kids, list):
                # Keys and indexes need no escaping, so the pointer is joined directly.
                base = f"{visit.pointer}/{key}/"
                depth = visit.depth + 1
                below.extend(
                    BlockVisit(kid, f"{base}{i}", depth, node) for i, kid in enumerate(kids)
                )
        stack.extend(reversed(below))


def iter_blocks(block: BaseModel) -> list[BaseModel]:
    """Every block under (and including) `block`, depth first, in reading order."""
    return [visit.block for visit in walk_blocks(block)]
