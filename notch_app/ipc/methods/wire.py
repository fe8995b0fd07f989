"""The socket's wire models: their shared base and ids, and how params are checked."""

from __future__ import annotations

from typing import Annotated, Any, Final, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from notch_app.ipc import protocol as rpc
from notch_app.runtime.ownership import MAX_TOKEN_CHARS, MIN_TOKEN_CHARS, TOKEN_PATTERN, TOKEN_RULE
from notch_app.runtime.service import MAX_CALL_ID_CHARS

MAX_AWAIT_MS: Final = 24 * 3600 * 1000


class Wire(BaseModel):
    """Fields are snake_case in Python and camelCase on the wire."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", strict=True, alias_generator=to_camel, populate_by_name=True
    )


CallId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_CALL_ID_CHARS,
        description="The executor's id for one tool call (e.g. its tool-call id). Sending "
        "the same callId again never makes a second card: it returns the same request.",
    ),
]


Token = Annotated[
    str,
    Field(
        min_length=MIN_TOKEN_CHARS,
        max_length=MAX_TOKEN_CHARS,
        pattern=TOKEN_PATTERN,
        description="The request's secret, sent with `confirm.request`: only a client "
        "sending it can await, withdraw, supersede, repeat or read more than the bare "
        f"status of the request. {TOKEN_RULE[0].upper()}{TOKEN_RULE[1:]}. Notch keeps only "
        "its SHA-256.",
    ),
]

P = TypeVar("P", bound=Wire)


def parse_params(model: type[P], params: dict[str, Any]) -> P:
    """`params` checked against `model`. Raises RpcError(INVALID_PARAMS) naming the first
    bad field in the message and in `data.field`."""
    try:
        return model.model_validate(params)
    except ValidationError as exc:
        raise _invalid(model, exc.errors(include_url=False, include_context=True)) from None


def _invalid(model: type[Wire], errors: list[Any]) -> rpc.RpcError:
    first = errors[0]
    where = ".".join(str(part) for part in first["loc"]) or "params"
    kind: str = first["type"]
    if kind == "extra_forbidden":
        takes = sorted(field.alias or name for name, field in model.model_fields.items())
        what = f"is not a parameter of this method (it takes {', '.join(takes) or 'none'})"
    elif kind == "missing" and where == "token":
        what = (
            "is required: send the token the request was made with (the reply to its "
            "confirm.request carries it); only its asker can do this"
        )
    elif kind == "missing":
        what = "is required"
    elif kind == "string_type":
        what = "must be a string"
    elif kind in ("dict_type", "model_type"):
        what = "must be an object"
    elif kind == "bool_type":
        what = "must be true or false"
    elif kind.startswith(("int_", "greater_", "less_")):
        low, high = _range(model, first["loc"][0])
        what = f"must be a whole number from {low} to {high}"
    elif where == "token" and kind.startswith("string_"):
        what = f"must be {TOKEN_RULE}"
    elif kind in ("string_too_short", "string_too_long"):
        what = f"must be 1 to {MAX_CALL_ID_CHARS} characters"
    else:
        what = str(first["msg"]).lower()
    return rpc.RpcError(rpc.INVALID_PARAMS, f"invalid params: {where} {what}", {"field": where})


def _range(model: type[Wire], alias: object) -> tuple[int, int]:
    for name, field in model.model_fields.items():
        if (field.alias or name) == alias:
            low = high = None
            for rule in field.metadata:
                low = getattr(rule, "ge", low)
                high = getattr(rule, "le", high)
            return int(low or 0), int(high or 0)
    return 0, 0
