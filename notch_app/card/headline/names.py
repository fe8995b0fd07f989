"""The argument names a headline looks for: recipients, amounts, times, paths, commands."""

from __future__ import annotations

from typing import Final

ARTICLES: Final = frozenset({"a", "an", "the"})

RECIPIENTS: Final = (
    "to", "recipients", "recipient", "attendees", "attendee", "invitees", "invitee",
    "participants", "members", "emails", "email", "phone", "phone_number", "phoneNumber",
    "number", "contacts", "contact", "users", "user", "channel", "chat",
)  # fmt: skip
MORE_RECIPIENTS: Final = ("cc", "bcc")
COUNTERPARTY: Final = (
    "payee", "beneficiary", "merchant", "vendor", "creditor", "recipient", "to", "supplier",
)  # fmt: skip
AMOUNTS: Final = ("amount", "total", "price", "cost", "sum", "fee", "value")
CURRENCIES: Final = ("currency", "currency_code", "currencyCode", "ccy")
STARTS: Final = (
    "start", "start_time", "startTime", "starts_at", "startsAt", "start_at", "startAt",
    "send_at", "sendAt", "scheduled_at", "scheduledAt", "scheduled_for", "scheduledFor",
    "when", "at", "datetime", "date_time", "time", "date", "pay_on", "payOn", "run_at",
    "runAt", "publish_at", "publishAt", "due", "due_date", "dueDate",
)  # fmt: skip
ENDS: Final = ("end", "end_time", "endTime", "ends_at", "endsAt", "end_at", "endAt")
MINUTES: Final = (
    "duration_minutes", "durationMinutes", "duration_min", "minutes", "length_minutes",
)  # fmt: skip
SUBJECTS: Final = ("title", "subject", "name", "summary", "topic", "label")
PATH_LISTS: Final = ("paths", "files", "file_paths", "filePaths", "targets", "items")
SOURCES: Final = (
    "source", "src", "from_path", "fromPath", "path", "file", "file_path", "filePath",
    "filename", "target",
)  # fmt: skip
DESTINATIONS: Final = (
    "destination", "dest", "dst", "to_path", "toPath", "new_path", "newPath", "to",
    "target_path", "targetPath",
)  # fmt: skip
FOLDERS: Final = ("folder", "directory", "dir", "cwd", "working_directory", "workdir")
COMMANDS: Final = ("command", "cmd", "script", "shell_command", "shellCommand")
URLS: Final = ("url", "link", "href", "uri", "address")
WORDS: Final = ("text", "message", "body", "content", "prompt", "query")
# Objects that describe a person or a party, not the thing acted on: their `name` is
# nobody's subject ("organizer.name" is not the meeting's title).
PARTIES: Final = frozenset(
    {"payee", "beneficiary", "merchant", "vendor", "creditor", "organizer", "owner",
     "author", "sender", "from", "user", "contact", "recipient", "supplier", "customer"}
)  # fmt: skip
# The model's own account of the call: never the headline's fact.
NARRATION: Final = frozenset(
    {"description", "summary", "notes", "note", "reason", "explanation", "rationale"}
)
SCHEDULING: Final = frozenset(
    {"book", "schedule", "reschedule", "create", "add", "invite", "reserve", "plan"}
)
