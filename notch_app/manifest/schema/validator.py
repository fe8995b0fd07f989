"""The jsonschema validator every argument check uses: schema patterns run through
`notch_app.manifest.schema.patterns` (RE2, ECMA-262 meaning), never Python's `re`, and every
keyword spends the check's time budget.

jsonschema itself calls `re.search` for `pattern`, `patternProperties`,
`additionalProperties` (to skip keys a pattern covers) and `unevaluatedProperties`, and
`re.compile` for `format: regex`. The first three and the format are replaced here by
keywords of our own. `unevaluatedProperties` next to `patternProperties` in one schema is
refused (`unchecked_reason`): `notch validate` and `gateway.attach` say so, and a check
that meets one anyway fails closed. `uniqueItems` is replaced too: jsonschema compares
every pair of objects (100,000 small objects in a 1 MiB message: 5e9 comparisons). And
`format: email` / `idn-email`, which jsonschema passes for any text with an "@" in it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, Final

from email_validator import EmailNotValidError
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend, validator_for

from notch_app.manifest.schema.check import unchecked_reason
from notch_app.manifest.schema.formats import email_address
from notch_app.manifest.schema.patterns import (
    PatternRefused,
    TooLongToMatch,
    compile_pattern,
    search,
    shown_pattern,
    spend,
)

UNCHECKED: Final = "notchUnchecked"
"""The `validator` of an error for a value Notch could not check (a pattern it does not
run, a text too long for its pattern): the message says why, without the value."""

Keyword = Callable[[Any, Any, Any, Mapping[str, Any]], Any]


def new_validator(schema: Any) -> Validator:
    """A validator for `schema` (its `$schema` dialect, 2020-12 by default) that runs
    patterns with Notch's engine and spends the current time budget."""
    base = validator_for(schema, default=Draft202012Validator)
    cls = _notch_class(base, unchecked_reason(schema) is not None)
    validator: Validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    return validator


@functools.cache
def _notch_class(base: Any, refuse_unevaluated: bool) -> Any:
    keywords: dict[str, Keyword] = {
        name: _spending(keyword) for name, keyword in base.VALIDATORS.items()
    }
    ours: dict[str, Keyword] = {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "uniqueItems": _unique_items,
    }
    for name, keyword in ours.items():
        if name in keywords:
            keywords[name] = _spending(keyword)
    if refuse_unevaluated and "unevaluatedProperties" in keywords:
        keywords["unevaluatedProperties"] = _unevaluated_refused
    checker = FormatChecker(())
    checker.checkers = dict(base.FORMAT_CHECKER.checkers)
    checker.checks("regex", raises=PatternRefused)(_is_schema_pattern)
    checker.checks("email", raises=EmailNotValidError)(_is_email)
    checker.checks("idn-email", raises=EmailNotValidError)(_is_idn_email)
    return extend(base, validators=keywords, format_checker=checker)  # type: ignore[no-untyped-call]


def _spending(keyword: Keyword) -> Keyword:
    def spent(validator: Any, value: Any, instance: Any, schema: Mapping[str, Any]) -> Any:
        spend()
        return keyword(validator, value, instance, schema)

    return spent


def _unchecked(message: str) -> ValidationError:
    return ValidationError(message, validator=UNCHECKED)


def _matches(pattern: str, text: str) -> bool | ValidationError:
    """Whether `pattern` matches `text`, or the error for a value Notch cannot check."""
    try:
        return search(pattern, text)
    except PatternRefused as exc:
        return _unchecked(
            f"cannot be checked: the pattern {shown_pattern(pattern)} is refused ({exc})"
        )
    except TooLongToMatch as exc:
        return _unchecked(str(exc))


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Mapping[str, Any]) -> Any:
    if not validator.is_type(instance, "string") or not isinstance(pattern, str):
        return
    found = _matches(pattern, instance)
    if isinstance(found, ValidationError):
        yield found
    elif not found:
        yield ValidationError(f"does not match {shown_pattern(pattern)}")


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Mapping[str, Any]
) -> Any:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            found = _matches(pattern, key)
            if isinstance(found, ValidationError):
                found.path.appendleft(key)
                yield found
            elif found:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, extra: Any, instance: Any, schema: Mapping[str, Any]
) -> Any:
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras: list[str] = []
    for key in instance:
        if key in properties:
            continue
        covered = False
        for pattern in patterns:
            found = _matches(pattern, key)
            if isinstance(found, ValidationError):
                # Not known to be covered, and not known to be extra: fail closed.
                found.path.appendleft(key)
                yield found
                covered = True
                break
            if found:
                covered = True
                break
        if not covered:
            extras.append(key)
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        shown = ", ".join(repr(k)[:40] for k in sorted(extras)[:5])
        yield ValidationError(f"unexpected properties ({shown})")


def _unevaluated_refused(
    validator: Any, value: Any, instance: Any, schema: Mapping[str, Any]
) -> Any:
    if validator.is_type(instance, "object"):
        yield _unchecked(f"cannot be checked: {unchecked_reason(schema) or 'see the inputSchema'}")


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Mapping[str, Any]) -> Any:
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[Any] = set()
    for index, item in enumerate(instance):
        if index % 1024 == 1023:
            spend()
        key = _json_key(item)
        if key in seen:
            yield ValidationError("has non-unique elements")
            return
        seen.add(key)


def _json_key(value: Any) -> Any:
    """A hashable key equal for JSON-equal values: 1 and 1.0 alike, true and 1 not, key
    order ignored."""
    kind = type(value)  # exact types first: this runs once per item of a huge array
    if kind is str:
        return value
    if kind is dict:
        return ("o", frozenset([(k, _json_key(v)) for k, v in value.items()]))
    if kind is bool or value is None:
        return ("b", value)
    if kind is int or kind is float:
        return ("n", value)  # Python's 1 == 1.0 and hash(1) == hash(1.0), as JSON's
    if kind is list:
        return ("a", tuple([_json_key(v) for v in value]))
    if isinstance(value, str):
        return str(value)
    if isinstance(value, Mapping):
        return ("o", frozenset([(k, _json_key(v)) for k, v in value.items()]))
    if isinstance(value, list | tuple):
        return ("a", tuple([_json_key(v) for v in value]))
    return ("?", id(value))


def format_conforms(name: str) -> Callable[[Any], bool]:
    """Whether a value conforms to format `name`, as the validator of a 2020-12 schema
    decides it (the same checker, so a fast path asking this can never be laxer)."""
    checker = _notch_class(Draft202012Validator, False).FORMAT_CHECKER
    return functools.partial(checker.conforms, format=name)


def _is_email(instance: object) -> bool:
    return email_address(instance, international=False)


def _is_idn_email(instance: object) -> bool:
    return email_address(instance, international=True)


def _is_schema_pattern(instance: object) -> bool:
    if isinstance(instance, str):
        compile_pattern(instance)  # raises PatternRefused with the reason
    return True
