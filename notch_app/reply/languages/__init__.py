"""Reply words per language, one module each; `LEXICONS` maps a language code to its words."""

from notch_app.reply.languages.de import GERMAN
from notch_app.reply.languages.en import ENGLISH
from notch_app.reply.languages.es import SPANISH
from notch_app.reply.languages.fr import FRENCH
from notch_app.reply.lexicon import Lexicon

LEXICONS: dict[str, Lexicon] = {lex.code: lex for lex in (ENGLISH, SPANISH, GERMAN, FRENCH)}

__all__ = ["LEXICONS"]
