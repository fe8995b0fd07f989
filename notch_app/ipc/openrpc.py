"""The OpenRPC document of the socket API, generated from the method models.

`notch schema` writes it as `schemas/notch-socket.openrpc.json` and `notch schema --check`
fails when the committed file differs from what the models generate, like the JSON
Schemas of manifests and views.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic.json_schema import models_json_schema

from notch_app.ipc import methods
from notch_app.ipc import protocol as rpc

FILE_NAME: Final = "notch-socket.openrpc.json"
OPENRPC_VERSION: Final = "1.3.2"
_REF: Final = "#/components/schemas/{model}"

_DESCRIPTION: Final = (
    "JSON-RPC 2.0 over Notch's Unix socket (owner-only), one JSON object per line "
    "(UTF-8, `\\n`-terminated, at most 1 MiB per line). Params are objects (by name, "
    "camelCase); a param the method does not take is refused (-32602, `data.field` names "
    "it). While a client waits on a request, the server sends it `confirm.event` "
    "notifications (params: ConfirmEvent, plus the event's data). There is deliberately "
    "no method that changes policy."
)


def socket_openrpc() -> dict[str, Any]:
    """The OpenRPC document of every socket method (stable: same models, same text)."""
    models = {m for method in methods.METHODS for m in (method.params, *method.results)}
    models.add(methods.ConfirmEvent)
    ordered = sorted(models, key=lambda model: model.__name__)
    refs, defs = models_json_schema(
        [(model, "validation") for model in ordered], ref_template=_REF, by_alias=True
    )
    schemas: dict[str, Any] = _untitled(dict(sorted(defs.get("$defs", {}).items())))
    errors = {
        str(code): {"code": code, "message": meaning}
        for code, meaning in sorted(methods.ERROR_MEANINGS.items(), reverse=True)
    }
    described = []
    for method in methods.METHODS:
        params_schema = schemas[method.params.__name__]
        required = set(params_schema.get("required", ()))
        params = [
            {
                "name": name,
                "required": name in required,
                **({"description": prop["description"]} if "description" in prop else {}),
                "schema": {k: v for k, v in prop.items() if k != "description"},
            }
            for name, prop in params_schema.get("properties", {}).items()
        ]
        results = [refs[(model, "validation")] for model in method.results]
        result_schema = results[0] if len(results) == 1 else {"oneOf": results}
        described.append(
            {
                "name": method.name,
                "summary": method.summary,
                "paramStructure": "by-name",
                "params": params,
                "result": {"name": "result", "schema": result_schema},
                "errors": [errors[str(code)] for code in method.errors],
            }
        )
    return {
        "openrpc": OPENRPC_VERSION,
        "info": {
            "title": "Notch socket API",
            "version": rpc.PROTOCOL_VERSION,
            "description": _DESCRIPTION,
        },
        "methods": described,
        "components": {"schemas": schemas, "errors": errors},
    }


def _untitled(node: Any) -> Any:
    """`node` without pydantic's generated `title`s ("Callid", "Expiresinms"): the params'
    names and the schemas' keys already name everything. (A property called `title` is
    a schema, not a string, so it stays.)"""
    if isinstance(node, dict):
        return {
            key: _untitled(value)
            for key, value in node.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    return node
