"""Why a glance block is dropped, in one sentence a person reads: the field, what is wrong,
the fix (`rows[7].title: 75 characters, at most 60 show; shorten it to 60`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from pydantic_core import ErrorDetails, PydanticCustomError

from notch_app.manifest.glance.blocks import BLOCK_MODELS
from notch_app.manifest.glance.fields import SURROGATE, number_as_text

_KINDS_TEXT: Final = ", ".join(BLOCK_MODELS)
_ROW_KINDS_TEXT: Final = ", ".join(k for k in BLOCK_MODELS if k not in ("row", "widget"))


def json_kind(value: object) -> str:
    """What kind of JSON value `value` is, in words: null, text, a number, a list..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def quote(value: object) -> str:
    """`value` quoted for a reason, cut to 40 characters; a lone surrogate escaped."""
    text = repr(value)
    if SURROGATE.search(text) is not None:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 40 else text[:39] + "…"


# --- reasons a person reads -------------------------------------------------------------------


def _where(loc: tuple[int | str, ...]) -> str:
    """`('list', 'rows', 7, 'title')` → `rows[7].title`; tags of nested blocks read as
    `children[1] (list).rows`."""
    out = ""
    after_index = False
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
            after_index = True
            continue
        if i == 0 and part in BLOCK_MODELS:
            continue  # the outer tag is the block's kind, said already
        if after_index and part in BLOCK_MODELS and i >= 2 and loc[i - 2] == "children":
            out += f" ({part})"
        else:
            out += ("." if out else "") + str(part)
        after_index = False
    return out or "block"


def _fields_of(kind: str) -> str:
    model = BLOCK_MODELS.get(kind)
    if model is None:
        return ""
    names = [f.alias or name for name, f in model.model_fields.items() if name != "type"]
    return ", ".join(names) or "no fields"


_Reason = Callable[[ErrorDetails, str, str], str]


def _too_many(err: ErrorDetails, where: str, kind: str) -> str:
    ctx = err.get("ctx", {})
    if where.endswith("]"):  # a [label, value] pair
        return f"{where}: {ctx.get('actual_length')} items; write a pair as [label, value]"
    noun = where.rsplit(".", 1)[-1].split("[")[0]
    most = ctx.get("max_length")
    return f"{where}: {ctx.get('actual_length', 'too many')} {noun}, at most {most} show; keep the first {most}"


def _too_few(err: ErrorDetails, where: str, kind: str) -> str:
    ctx = err.get("ctx", {})
    if where.endswith("]"):  # a [label, value] pair
        return f"{where}: {ctx.get('actual_length')} item; write a pair as [label, value]"
    noun = where.rsplit(".", 1)[-1].split("[")[0]
    return (
        f"{where}: {ctx.get('actual_length', 0)} {noun}, needs at least "
        f"{ctx.get('min_length')}; add more or remove the block"
    )


def _too_long(err: ErrorDetails, where: str, kind: str) -> str:
    most = err.get("ctx", {}).get("max_length")
    got = err.get("input")
    n = len(got) if isinstance(got, str) else "too many"
    return f"{where}: {n} characters, at most {most} show; shorten it to {most}"


def _too_short(err: ErrorDetails, where: str, kind: str) -> str:
    return f"{where}: empty; write some text or leave {where} out"


def _lone_surrogate(err: ErrorDetails, where: str, kind: str) -> str:
    return f"{where}: holds a lone surrogate character; remove it (plain text only)"


def _missing(err: ErrorDetails, where: str, kind: str) -> str:
    field = where.rsplit(".", 1)[-1]
    if "." in where or "[" in where:
        return f"{where}: missing; add {field}"
    return f"{where}: missing; {kind} needs {field}"


def _unknown_field(err: ErrorDetails, where: str, kind: str) -> str:
    takes = _fields_of(kind) if "." not in where and "[" not in where else ""
    hint = f" ({kind} takes {takes})" if takes else ""
    return f"{where}: not a field of {kind}; remove it{hint}"


def _tag_invalid(err: ErrorDetails, where: str, kind: str) -> str:
    tag = err.get("ctx", {}).get("tag", "")
    if where.startswith("children"):
        if tag in ("row", "widget"):
            return (
                f"{where}.type: a {tag} cannot sit inside a row; a row holds 2–3 of "
                f"{_ROW_KINDS_TEXT}"
            )
        return (
            f"{where}.type: {quote(tag)} is not a block a row holds; use one of {_ROW_KINDS_TEXT}"
        )
    return f"type: {quote(tag)} is not a glance block; use one of {_KINDS_TEXT}"


def _tag_missing(err: ErrorDetails, where: str, kind: str) -> str:
    at = f"{where}." if where != "block" else ""
    return f"{at}type: missing or not text; every block names its kind, one of {_KINDS_TEXT}"


def _wrong_type(expected: str) -> _Reason:
    def reason(err: ErrorDetails, where: str, kind: str) -> str:
        return f"{where}: {json_kind(err.get('input'))}, not {expected}; write {expected}"

    return reason


def _bound(word: str) -> _Reason:
    def reason(err: ErrorDetails, where: str, kind: str) -> str:
        ctx = err.get("ctx", {})
        limit = next(iter(ctx.values()), "?")
        return f"{where}: {_number_as_text_safe(err.get('input'))} {word} {limit}; change it"

    return reason


def _literal(err: ErrorDetails, where: str, kind: str) -> str:
    expected = str(err.get("ctx", {}).get("expected", ""))
    return f"{where}: {quote(err.get('input'))} is not one of {expected}; use one of them"


def _number_as_text_safe(value: object) -> str:
    try:
        shown = number_as_text(value)
    except PydanticCustomError:
        return "a number"
    return shown if isinstance(shown, str) else quote(shown)


_REASONS: Final[dict[str, _Reason]] = {
    "too_long": _too_many,
    "too_short": _too_few,
    "string_too_long": _too_long,
    "string_too_short": _too_short,
    "string_unicode": _lone_surrogate,
    "missing": _missing,
    "extra_forbidden": _unknown_field,
    "union_tag_invalid": _tag_invalid,
    "union_tag_not_found": _tag_missing,
    "string_type": _wrong_type("text"),
    "float_type": _wrong_type("a number"),
    "int_type": _wrong_type("a whole number"),
    "int_from_float": _wrong_type("a whole number"),
    "model_type": _wrong_type("an object"),
    "model_attributes_type": _wrong_type("an object"),
    "dict_type": _wrong_type("an object"),
    "tuple_type": _wrong_type("a list"),
    "list_type": _wrong_type("a list"),
    "greater_than_equal": _bound("is below"),
    "greater_than": _bound("must be over"),
    "less_than_equal": _bound("is over"),
    "less_than": _bound("must be under"),
    "literal_error": _literal,
}


def reason_for(errors: list[ErrorDetails], kind: str) -> str:
    """One sentence for the first thing wrong with a block (the block is dropped whole)."""
    if not errors:
        return "block: not valid"
    err = errors[0]
    where = _where(tuple(err.get("loc", ())))
    explain = _REASONS.get(err.get("type", ""))
    if explain is not None:
        return explain(err, where, kind)
    msg = str(err.get("msg", "not valid"))
    if err.get("type", "") in _NAMES_ITS_FIELD and where == "block":
        return msg  # a whole-block rule whose message starts with the field it is about
    return f"{where}: {msg}"


_NAMES_ITS_FIELD: Final = frozenset(
    {
        "glance_bars",
        "glance_split",
        "glance_progress",
        "glance_countdown",
        "glance_chart",
        "glance_until",
    }
)
