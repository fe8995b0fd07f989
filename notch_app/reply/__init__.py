"""Reply classification without Qt: how Notch takes a typed or spoken answer to a card.

`classify_reply("sure, go ahead")` -> `Reply(verdict="yes", ...)`. English, Spanish, German
and French; the words are data in `languages/`, the logic is in `classify.py`.
"""

from notch_app.reply.classify import SUPPORTED_LANGUAGES, Reply, Verdict, classify_reply

__all__ = ["SUPPORTED_LANGUAGES", "Reply", "Verdict", "classify_reply"]
