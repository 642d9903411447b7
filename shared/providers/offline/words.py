"""How the offline model reads a request: words, stems, quoted text, numbers, clauses.

Everything here is plain string work; nothing knows about tools or messages. It reads
English and French: a word is any run of letters (accents included), a French elision
is a word of its own (`l'heure` is `l'` and `heure`), French little words are stopwords,
and the French words for what the kit's tools do stand for their English ones (FRENCH),
since tools describe themselves in English. `language()` tells which of the two a
message is in, so the reply can be written in it.
"""

from __future__ import annotations

import bisect
import math
import re
from functools import lru_cache

# words that say nothing about which tool is wanted
STOPWORDS = frozenset("""
a about after again all also am an and any are as at be been before but by can could
did do does doing done for from get give had has have he her here him his how i if in
into is it its just let like many may me might more most much must my no not of on once only
or our out over please she should show so some such tell than that the their them then
there these they this those to too up us use using very want was we were what when
where which who whom why will with would you your yourself
à au aux avec ce ces cet cette dans de des du elle en es est et être il ils je la le les leur
lui ma me mes moi mon ne nous on ou où par pas peux pouvez pour que quel quelle quels quelles
qui quoi sa se ses son sont sur ta te tes toi ton tu un une vos votre vous donne donnez dis
dites fais faites svp stp merci combien
""".split())

# French words -> the English word they stand for (the kit's tools are described in English)
FRENCH = dict(  # "english: french french ..." per line, read once
    (french, line.split(":")[0]) for line in """
word: mot mots
time: heure heures
now: maintenant
today: aujourd
day: jour jours
count: compte compter comptez
number: nombre nombres
calculate: calcule calculer calculez calcul
sentence: phrase phrases
result: résultat résultats
roll: lance lancer lancez
die: dé
dice: dés
sides: face faces
city: ville
weather: météo
search: cherche chercher cherchez recherche rechercher
fetch: récupère récupérer récupérez télécharge
reverse: inverse inverser inversez renverse
seconds: seconde secondes
file: fichier fichiers
replace: remplace remplacer remplacez
run: exécute exécuter exécutez
""".strip().splitlines() for french in line.split(":")[1].split())

# arithmetic said in words -> its symbol; read only between numbers, so "times" alone is time
SPOKEN = {"multiplied by": "*", "times": "*", "x": "*", "×": "*", "divided by": "/", "over": "/",
          "÷": "/", "plus": "+", "minus": "-", "to the power of": "**", "mod": "%",
          "fois": "*", "multiplié par": "*", "multipliés par": "*", "divisé par": "/",
          "divisés par": "/", "moins": "-", "à la puissance": "**", "puissance": "**",
          "modulo": "%"}
NUM = r"-?\d+(?:\.\d+)?"
INFIX = re.compile(r"(?<=[\d)])\s*(" + "|".join(sorted(SPOKEN, key=len, reverse=True))
                   + r")\s*(?=[-(\d])", re.I)
VERB_FIRST = re.compile(rf"\b(multiply|divide|add|subtract|multipliez|multiplie|divisez|divise|"
                        rf"ajoutez|ajoute|soustrayez|soustrais|retirez|retire) ({NUM}) "
                        rf"(?:by|to|from|par|à|de) ({NUM})", re.I)
VERBS = (("mult", "*"), ("div", "/"), ("add", "+"), ("ajout", "+"), ("sub", "-"), ("sous", "-"),
         ("ret", "-"))  # a verb's first letters, in either language -> its operator
SQUARED = re.compile(r"(?<=[\d)])\s*\b(squared|cubed|au carré|au cube)(?!\w)", re.I)
SQUARE_OF = re.compile(rf"\b(?:le |du )?(carré|cube) (?:de |d['’])({NUM})", re.I)  # le carré de 12
# words that point back: at an earlier result ("multiply that by 2"), or at earlier words
RESULT = re.compile(r"\b(?:that|it|the (?:result|answer|number|total)|ça|cela|le (?:résultat|"
                    r"total|nombre)|la réponse)(?!\w)", re.I)
SAID_BEFORE = re.compile(r"\b(?:(?:i|you) (?:just |already )?(?:gave|give|sent|send|wrote|typed|"
                         r"said|told|pasted)|(?:previous|last|earlier) (?:sentence|message|text|"
                         r"line|one)|que je (?:viens|vous ai|t['’]ai)|(?:phrase|message|texte|"
                         r"ligne) (?:précédente?|d['’]avant))(?!\w)", re.I)
SAID_NOW = re.compile(r"^(?:this|my|cette|ma|mon|ce)\b.*\b(?:sentence|question|message|request|"
                      r"phrase|demande)$", re.I)

# a phrase in a request -> the words it stands for (so "how many" can meet "count"), and
# whether those words alone may pick a tool ("how many" alone could be about anything)
ARITHMETIC = re.compile(r"\d\s*(\*\*|//|[-+*/%^])\s*[(\d.]")
IMPLIED = (
    (re.compile(r"\bhow (many|much)\b"), "count number", False),
    (ARITHMETIC, "arithmetic calculate expression", True),
    (re.compile(r"\b(what day|today|tonight|quel jour|aujourd['’]hui|date)\b"), "date time",
     True),
    (re.compile(r"\bcombien\b"), "count number", False),
)

# a quote opens where no letter is just before it and closes where none is just after,
# so the apostrophes in "What's" or "don't" are not quotes
OPENING = re.compile(r"(?<!\w)['‘]|[\"“«]")
CLOSING = {"'": re.compile(r"'(?!\w)"), "‘": re.compile(r"’(?!\w)"),
           '"': re.compile('"'), "“": re.compile("”"), "«": re.compile("»")}
LETTERS = r"[^\W\d_]+"  # letters of any alphabet, accents included
ELISION = r"\b(?:[cdjlmnst]|qu|jusqu|lorsqu|puisqu)['’](?=[^\W\d_])"  # l'heure: l' + heure
WORD = re.compile(rf"{ELISION}|{LETTERS}(?:['’]{LETTERS})?", re.I)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
EXPRESSION = re.compile(r"(?<!\()\(*-?\d[-+*/%().\d\s^]*")
# where one request asks for two things: sentence ends, "and", "then", "also" (et, puis...)
SEPARATOR = re.compile(r"[.?!;](?=\s|$)|,?(?<!\s)\s+(?:and|then|also|et|puis|ensuite|aussi)\b\s*",
                       re.I)

# which language a message is in: its little words vote, and each French accent counts
FRENCH_MARKS = frozenset("""le la les l des du de un une est sont et ou dans avec pour que qui
quoi quel quelle combien je tu il elle nous vous ce cette c qu d j n s mots fois heure bonjour
salut merci oui non pas par moins font calcule calculez multiplie divise ajoute soustrais
retire compte donne""".split())
ENGLISH_MARKS = frozenset("""the an is are and or in with for that who what which how many
much i you he she we this it of to do does words times hello hi thanks yes no not""".split())
ACCENTED = re.compile(r"[àâäçéèêëîïôöùûüÿœæ]", re.I)

_PLURAL = (("ies", "y", 3), ("sses", "ss", 2), ("es", "", 3), ("s", "", 3))
_VERBAL = (("ing", "", 3), ("ion", "", 4), ("ed", "", 3), ("er", "", 3), ("or", "", 3))


@lru_cache(maxsize=4096)
def stem(word: str) -> str:
    """A crude stem, so `words` meets `word` and `calculator` meets `calculate`."""
    word = _strip_suffix(_strip_suffix(word.lower(), _PLURAL), _VERBAL)
    return word[:-1] if word.endswith("e") and len(word) > 2 else word


def _strip_suffix(word: str, table) -> str:
    """`word` without the first suffix of `table` that leaves a long enough base."""
    for suffix, replacement, shortest in table:
        base = word[: -len(suffix)]
        if suffix == "s" and base.endswith("s"):
            continue  # "class" is not a plural
        if word.endswith(suffix) and len(base) >= shortest:
            return base + replacement
    return word


@lru_cache(maxsize=1024)  # tool descriptions are read again on every turn
def stems(text: str) -> frozenset[str]:
    """The stems of the words in `text` that are not stopwords."""
    found = set()
    for word in WORD.findall(text):
        if word[-1] in "'’":
            continue  # an elision (l', qu'): the word it belongs to follows
        word = re.split(r"['’]", word.lower())[0]  # what's -> what
        word = FRENCH.get(word, word)
        if word not in STOPWORDS:
            found.add(stem(word))
    return frozenset(found)


def name_stems(name: str) -> frozenset[str]:
    """The stems of a tool or argument name, split on `_`, `-`, `.` and camelCase."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", name)
    return stems(re.sub(r"[_.\-]", " ", spaced))


@lru_cache(maxsize=256)
def quote_spans(text: str) -> tuple[tuple[int, int, str], ...]:
    """Each quoted piece of `text` as (start, end, the text inside), in order."""
    closers = {opening: [m.start() for m in pattern.finditer(text)]
               for opening, pattern in CLOSING.items()}
    spans, searched_to = [], 0
    for m in OPENING.finditer(text):
        start = m.start()
        if start < searched_to:
            continue  # inside the previous quote
        ends = closers[m.group()]
        at = bisect.bisect_right(ends, start + 1)  # the first closer after one character
        if at < len(ends):
            inside = text[start + 1: ends[at]]  # « guillemets » hold a space inside each end
            spans.append((start, ends[at] + 1, inside.strip() if m.group() == "«" else inside))
            searched_to = ends[at] + 1
    return tuple(spans)


def quoted(text: str) -> list[str]:
    """The quoted pieces of `text`, in order."""
    return [inside for _, _, inside in quote_spans(text)]


def unquoted(text: str) -> str:
    """`text` with its quoted pieces blanked out (they are data, not the request's words)."""
    pieces, done = [], 0
    for start, end, _ in quote_spans(text):
        pieces += [text[done:start], " " * (end - start)]
        done = end
    return "".join(pieces) + text[done:]


def spoken_arithmetic(text: str) -> str:
    """`text` with arithmetic in words written in symbols: "4823 times 1979" -> "4823 * 1979",
    "multiply 6 by 7" -> "6 * 7", "add 10 to 42" -> "42 + 10", "5 squared" -> "5 ** 2";
    in French too: "4823 fois 1979", "divise 100 par 8", "le carré de 12" -> "12 ** 2"."""
    text = text.replace("×", "*").replace("÷", "/")
    text = VERB_FIRST.sub(lambda m: _verb_first(m.group(1).lower(), m.group(2), m.group(3)), text)
    text = SQUARE_OF.sub(lambda m: f"{m.group(2)}{_power(m.group(1))}", text)
    text = SQUARED.sub(lambda m: _power(m.group(1)), text)
    return INFIX.sub(lambda m: f" {SPOKEN[m.group(1).lower()]} ", text)


def _power(said: str) -> str:
    """" ** 2" for a square ("squared", "carré"), " ** 3" for a cube."""
    return " ** 3" if "cub" in said.lower() else " ** 2"


def _verb_first(verb: str, a: str, b: str) -> str:
    """"multiply a by b" and its kin, in symbols (add and subtract read right to left:
    "add 10 to 42", "ajoute 10 à 42" are 42 + 10)."""
    op = next(op for start, op in VERBS if verb.startswith(start))
    return f"{b} {op} {a}" if op in "+-" else f"{a} {op} {b}"


def is_arithmetic(text: str) -> bool:
    """Whether `text` holds arithmetic, in symbols or in words."""
    return bool(ARITHMETIC.search(spoken_arithmetic(unquoted(text))))


def request_stems(text: str, *, strong_only: bool = False) -> frozenset[str]:
    """What a request asks about: its own stems plus the words its phrases imply
    (only those that may pick a tool alone, with `strong_only`); arithmetic in words
    counts as arithmetic, not as words ("times" between numbers is no clock)."""
    plain = spoken_arithmetic(unquoted(text))
    found = stems(plain)
    for pattern, implied, alone in IMPLIED:
        if (alone or not strong_only) and pattern.search(plain.lower()):
            found |= stems(implied)
    return found


def numbers(text: str) -> list[tuple[int | float, int]]:
    """The numbers outside quotes, as written (20 or 0.5), each with its position."""
    found = []
    for m in NUMBER.finditer(unquoted(text)):
        written, start = m.group(), m.start()
        if written.startswith("-") and start > 0 and text[start - 1] not in " (":
            written, start = written[1:], start + 1  # "1-6": a dash, not a minus sign
        try:
            value = float(written) if "." in written else int(written)
        except ValueError:
            continue  # thousands of digits: no argument wants that
        if math.isfinite(value):
            found.append((value, start))
    return found


def expression(text: str) -> str | None:
    """The longest run of arithmetic in `text` (in words or symbols), or None."""
    runs = [run.strip() for run in EXPRESSION.findall(spoken_arithmetic(text))]
    return max(runs, key=len) if runs else None


def language(text: str) -> str | None:
    """"fr" or "en", by the little words of `text` outside its quotes (quoted text is
    data, in any language); None when they do not tell."""
    plain = unquoted(text).lower()
    said = [re.split(r"['’]", word)[0] for word in WORD.findall(plain)]
    french = sum(word in FRENCH_MARKS for word in said) + len(ACCENTED.findall(plain))
    english = sum(word in ENGLISH_MARKS for word in said)
    return None if french == english else "fr" if french > english else "en"


def clauses(text: str) -> list[tuple[int, int]]:
    """Spans (start, end) of the parts of a request, split where no quote is open."""
    quotes = quote_spans(text)
    starts = [q[0] for q in quotes]
    spans, start = [], 0
    for m in SEPARATOR.finditer(text):
        at = bisect.bisect_right(starts, m.start()) - 1  # the last quote opened before it
        if at >= 0 and m.start() < quotes[at][1]:
            continue  # inside that quote
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    return [(a, b) for a, b in spans if text[a:b].strip()]
