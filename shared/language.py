"""Which language tao speaks, and the trace's own words in it.

`language()` is the one choice, for a stage's screen and for the `tao` command alike
(tao/i18n.py imports it from here: `shared` never imports `tao`): TAO_LANG (`en` or
`fr`) if set, else the locale (the first of LC_ALL, LC_MESSAGES, LANG that is set: one
starting with `fr` is French), else English.

`say(english)` is one of the trace's own words (`you>`, `iteration 1`, `turn:`, `bye`)
in that language. The English is the key, so the code reads as it prints; the French is
in shared/french.py, imported only when French is spoken. What a stage prints itself
stays English, since a learner diffs the stages; what a model writes is its own (the
offline model answers in the language it is asked in).
"""

from __future__ import annotations

import os

LANGUAGES = ("en", "fr")
LOCALE_VARS = ("LC_ALL", "LC_MESSAGES", "LANG")  # POSIX order: the first one set decides


def language(env=None) -> str:
    """"fr" or "en": TAO_LANG if set, else the locale, else English."""
    env = os.environ if env is None else env
    chosen = (env.get("TAO_LANG") or "").strip()
    if not chosen:
        chosen = next((env[var] for var in LOCALE_VARS if env.get(var)), "")
    return "fr" if chosen.lower().startswith("fr") else "en"


def say(english: str, **parts) -> str:
    """One of the trace's own words, `english`, in the language tao speaks, parts filled
    in (words it has no French for stay English: a key's name, a provider's)."""
    words = english
    if language() == "fr":
        from .french import FRENCH  # only a French session reads the table

        words = FRENCH.get(english, english)
    return words.format(**parts) if parts else words
