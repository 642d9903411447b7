"""Which tools a request needs, and with what arguments: the offline model's planning.

A tool is chosen by the words it shares with the request: each word of the tool's name
(split on `_`) scores 2, each word of its description or argument names scores 1, after
stemming; arithmetic, in symbols or words, points at an arithmetic tool. Each clause of
the request ("... and ...") takes its best tool. Arguments are filled from the schema by
kind (FILLERS); a required one that cannot be filled is listed in `Need.missing`, and the
model asks for it instead of guessing. Words that point back are read for what they point
at: "that" in arithmetic is the previous clause's result, once it is in (a chain of
calls), and "the sentence I gave you" is the earlier message, not these words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from . import words

MIN_SCORE = 1  # a tool sharing no word with the request is never called
LISTED_TOOL = re.compile(r"^[ \t]*[-*][ \t]*`(\w+)`[ \t]*(?:—|-|:)[ \t]*(.*)$", re.M)
ARG_NAME = re.compile(r"`(\w+)`")
FILLER = frozenset("is are was in of for on at to from with about called named as into "
                   "now right please de du des d' dans à en pour sur par est sont "
                   "maintenant".split())  # and French; "right now" is no part of a city
EXPRESSION_WORDS = words.stems("expression arithmetic formula math sum")
PATH_WORDS, PATH_LIKE = words.stems("path file folder"), re.compile(r"[\w~-]*[./][\w./~-]*\w")


@dataclass
class ToolSpec:
    """What the model knows of one tool: its name, description and argument schema."""

    name: str
    description: str
    schema: dict
    name_words: frozenset[str] = frozenset()
    other_words: frozenset[str] = frozenset()

    def __post_init__(self):
        self.name_words = words.name_stems(self.name)
        params = " ".join(self.properties())
        self.other_words = words.stems(f"{self.description} {params.replace('_', ' ')}")

    def properties(self) -> dict[str, dict]:
        """The argument schemas, by name (a malformed one reads as a plain string)."""
        found = self.schema.get("properties") if isinstance(self.schema, dict) else None
        if not isinstance(found, dict):
            return {}
        return {str(name): spec if isinstance(spec, dict) else {} for name, spec in found.items()}

    def kinds(self) -> set[str]:
        """The kinds of its arguments (FILLERS' keys)."""
        return {kind(name, prop) for name, prop in self.properties().items()}

    def required(self) -> list[str]:
        """The names of the arguments the tool cannot do without."""
        names = self.schema.get("required") if isinstance(self.schema, dict) else None
        return [n for n in names or [] if isinstance(n, str) and n in self.properties()]

    def score(self, asked: frozenset[str]) -> int:
        """How strongly a request's stems point at this tool: a name word counts twice, and
        once more if the description says it too (a tool about that subject beats "now")."""
        return 2 * len(asked & self.name_words) + len(asked & self.other_words)


@dataclass
class Need:
    """One call the request needs: the tool, the arguments found, the ones still missing."""

    tool: str
    args: dict
    missing: list[str] = field(default_factory=list)

    def key(self) -> str:
        """The call as one comparable string."""
        return self.tool + json.dumps(self.args, sort_keys=True)


def catalogue_from_tools(tools) -> dict[str, ToolSpec]:
    """The native `tools` of a request, as the model sees them."""
    return {t.name: ToolSpec(t.name, t.description or "", t.schema or {}) for t in tools}


def catalogue_from_prompt(system: str) -> dict[str, ToolSpec]:
    """Tools listed in a JSON-line protocol prompt (`- `name` — what it does`).

    The prompt has no schema, so each `name` in backticks in a description is taken
    as a required argument of no stated type.
    """
    if '"tool"' not in system or '"args"' not in system:
        return {}
    listed = LISTED_TOOL.findall(system)
    names = {name for name, _ in listed}
    catalogue = {}
    for name, description in listed:
        params = [p for p in ARG_NAME.findall(description) if p not in names]
        schema = {"type": "object", "properties": {p: {} for p in params}, "required": params}
        catalogue[name] = ToolSpec(name, description, schema)
    return catalogue


def plan(request: str, catalogue: dict[str, ToolSpec], result_of=lambda need: None,
         said: tuple[str, ...] = ()) -> list[Need]:
    """The calls a request needs, in the order it asks for them. `result_of(need)` is a
    result already in (a number, or None); `said` what the user said before, latest last."""
    groups: list[list] = []  # [tool spec, start, end, text]: a clause and its tool
    detail_start = None  # a clause naming no tool is a detail of its neighbour
    for start, end in words.clauses(request):
        chained = _chained(request[start:end], groups, request, result_of, said)
        spec = best_tool(chained or request[start:end], catalogue)
        if spec is None and groups:
            groups[-1][2] = end  # "roll a number between 1 and 6": "6" joins "roll ... 1"
        elif spec is None and detail_start is None:
            detail_start = start  # "'a b c'. How many words?": the text joins what follows
        elif spec is not None:
            groups.append([spec, start if detail_start is None else detail_start, end, chained])
            detail_start = None
    return _settled([need for group in groups for need in _fill(group, request, said)])


def _fill(group: list, request: str, said) -> list[Need]:
    """The calls of one clause group, from its own text (or its chained text)."""
    spec, start, end, chained = group
    return fill(spec, chained or request[start:end], said)


def _chained(clause: str, groups: list, request: str, result_of, said) -> str | None:
    """The clause with "that" replaced by the previous clause's result, when the clause
    is arithmetic on it ("... and multiply that by 3") and the result is in; else None."""
    found = words.RESULT.search(words.unquoted(clause))  # quoted words are data
    if not groups or not found:
        return None
    results = [result_of(need) for need in _fill(groups[-1], request, said)]
    if not results or results[-1] is None:
        return None  # not in yet: the clause waits, as a detail of the one before
    chained = clause[:found.start()] + results[-1] + clause[found.end():]
    return chained if words.is_arithmetic(chained) else None


def best_tool(clause: str, catalogue: dict[str, ToolSpec]) -> ToolSpec | None:
    """The tool whose words overlap the clause most (the first one on a tie), or None."""
    asked = words.request_stems(clause)
    if words.is_arithmetic(clause):  # arithmetic is for a tool that takes an expression
        takers = [spec for spec in catalogue.values() if "expression" in spec.kinds()]
        if takers:
            return max(takers, key=lambda spec: spec.score(asked))
    best = max(catalogue.values(), key=lambda spec: spec.score(asked), default=None)
    if best is None or best.score(words.request_stems(clause, strong_only=True)) < MIN_SCORE:
        return None  # "how many ..." alone is no reason to count words
    return best


def likeliest(request: str, catalogue: dict[str, ToolSpec]) -> Need:
    """The call of the tool closest to the request, even one sharing no word with it."""
    spec = max(catalogue.values(), key=lambda spec: spec.score(words.request_stems(request)))
    return fill(spec, request)[0]


def fill(spec: ToolSpec, clause: str, said: tuple[str, ...] = ()) -> list[Need]:
    """The call(s) for one clause: one, or one per extra quoted text for a one-text tool."""
    clue = Clue(clause, spec, said)
    need = Need(spec.name, {})
    required = spec.required()
    for name in sorted(spec.properties(), key=lambda n: n not in required):
        prop = spec.properties()[name]
        value = FILLERS.get(kind(name, prop), _never)(name, prop, clue, name in required)
        if value is not None:
            need.args[name] = value
        elif name in required:
            need.missing.append(name)
    texts = [n for n, p in spec.properties().items() if kind(n, p) in ("string", "untyped")]
    if len(texts) != 1 or texts[0] not in need.args:
        return [need]
    return [need] + [Need(spec.name, {**need.args, texts[0]: extra}, list(need.missing))
                     for extra in clue.quoted]


def _settled(needs: list[Need]) -> list[Need]:
    """Needs without repeats, each taking the arguments it lacks from its tool's other
    calls: in "fetch 'a' and 'b', 2 seconds each", both calls get the 2 seconds."""
    shared: dict[str, dict] = {}  # tool -> every argument its calls name, the first wins
    for need in needs:
        for name, value in need.args.items():
            shared.setdefault(need.tool, {}).setdefault(name, value)
    for need in needs:
        need.args = {**shared.get(need.tool, {}), **need.args}
        need.missing = [name for name in need.missing if name not in need.args]
    kept = {}
    for need in needs:
        kept.setdefault(need.key(), need)
    return list(kept.values())


class Clue:
    """What one clause offers to fill arguments with; each piece is used once."""

    def __init__(self, clause: str, spec: ToolSpec, said: tuple[str, ...] = ()):
        self.text = clause
        self.said = said
        self.quoted = words.quoted(clause)
        self.numbers = words.numbers(clause)
        self.keys = words.request_stems(clause) & (spec.name_words | spec.other_words)
        allowed = [v for p in spec.properties().values() for v in choices(p)]
        self.choices = words.stems(" ".join(map(str, allowed)))  # words other arguments use

    def number_near(self, name: str, *, named_only: bool = False) -> int | float | None:
        """The number written next to the argument's name ("20 sides"), else the first."""
        plain = words.unquoted(self.text)
        named = [(value, start) for value, start in self.numbers
                 if words.name_stems(name) & words.stems(plain[max(0, start - 20): start + 25])]
        if named or (self.numbers and not named_only):
            pick = (named or self.numbers)[0]
            self.numbers.remove(pick)
            return pick[0]
        return None

    def phrase_after_key(self, name: str) -> str | None:
        """The words after the last word that named the tool or this argument."""
        keys = self.keys | words.name_stems(name)
        plain = words.unquoted(self.text)
        last = None
        for m in words.WORD.finditer(plain):
            if words.stems(m.group()) & keys:
                last = m.end()
        if last is None:
            return None
        phrase = self.text[last:].strip().rstrip("?.!,;:").split()
        while phrase and phrase[0].lower().strip(":=") in FILLER | {""}:
            phrase.pop(0)
        while phrase and (words.stems(phrase[-1]) & self.choices or phrase[-1] in FILLER):
            phrase.pop()  # "Lisbon in celsius": the unit belongs to another argument
        phrase = " ".join(phrase)
        if words.SAID_BEFORE.search(phrase):  # "the sentence I just gave you": not these words
            earlier = self.said[-1] if self.said else ""
            return (words.quoted(earlier) or [earlier])[0] or None
        if words.SAID_NOW.match(phrase):  # "this sentence": the sentence itself
            return self.text.strip()
        return phrase if words.stems(phrase) or any(c.isdigit() for c in phrase) else None


def kind(name: str, prop: dict) -> str:
    """Which FILLERS entry fills this argument."""
    if "enum" in prop:
        return "enum"
    kinds = prop.get("type")
    if isinstance(kinds, list):  # ["string", "null"]
        kinds = next((k for k in kinds if k != "null"), None)
    about = words.name_stems(name) | words.stems(str(prop.get("description", "")))
    if kinds in (None, "string") and about & EXPRESSION_WORDS:
        return "expression"
    return kinds or "untyped"


def _text(name, prop, clue: Clue, required: bool):
    """A string: the next quoted text, else (if required) the phrase after the key word. A
    path takes the last path named, quoted or not; other text the quotes that are no path
    ("write 'hi' to notes.txt")."""
    paths = [q for q in clue.quoted if PATH_LIKE.fullmatch(q)]
    named = paths or PATH_LIKE.findall(words.unquoted(clue.text))
    if words.name_stems(name) & PATH_WORDS and named:
        clue.quoted = [q for q in clue.quoted if q != named[-1]]
        return named[-1]
    texts = [q for q in clue.quoted if q not in paths] or clue.quoted
    if texts:
        return clue.quoted.pop(clue.quoted.index(texts[0]))
    return clue.phrase_after_key(name) if required else None


def _untyped(name, prop, clue: Clue, required: bool):
    """No stated type (a JSON-line prompt's `name`): quoted text, a number next to the
    argument's name, or (if required) the phrase after the key word."""
    if clue.quoted:
        return clue.quoted.pop(0)
    value = clue.number_near(name, named_only=True)
    if value is not None:
        return value
    return clue.phrase_after_key(name) if required else None


def _expression(name, prop, clue: Clue, required: bool):
    """An arithmetic expression: the longest run of arithmetic in the clause."""
    return words.expression(clue.text)


def _integer(name, prop, clue: Clue, required: bool):
    """A whole number from the clause."""
    value = clue.number_near(name)
    return value if isinstance(value, int) else None


def _number(name, prop, clue: Clue, required: bool):
    """A number from the clause, as it was written (20 or 0.5)."""
    return clue.number_near(name)


def _enum(name, prop, clue: Clue, required: bool):
    """The allowed value the clause names (by word, any case), else None."""
    asked = words.stems(clue.text)
    for value in choices(prop):
        if isinstance(value, str) and words.name_stems(value) and words.name_stems(value) <= asked:
            return value
        if not isinstance(value, str) and any(value == n for n, _ in clue.numbers):
            return value
    return None


def choices(prop: dict) -> list:
    """The allowed values of an argument (none for a malformed `enum`)."""
    choices = prop.get("enum")
    return choices if isinstance(choices, list) else []


def _list(name, prop, clue: Clue, required: bool):
    """A list of strings: every quoted text left in the clause."""
    if (prop.get("items") or {}).get("type", "string") != "string" or not clue.quoted:
        return None
    taken, clue.quoted = clue.quoted, []
    return taken


def _never(name, prop, clue: Clue, required: bool):
    """A kind the model does not guess (booleans, objects): it asks if it must."""
    return None


# the kind of an argument -> how its value is found in the request
FILLERS = {
    "string": _text,
    "untyped": _untyped,
    "expression": _expression,
    "integer": _integer,
    "number": _number,
    "enum": _enum,
    "array": _list,
}
