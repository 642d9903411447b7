"""The sentences the offline model writes: answers, questions, summaries, small talk.

Each function takes the Situation and returns plain text, in the language the user wrote
in (`Situation.lang`: TEXT has every sentence in English and in French). How a result is
told depends on the words of its tool (TOLD_AS); any other tool's result is quoted as it
came.
"""

from __future__ import annotations

import re
from collections import Counter

from . import words
from .conversation import Observation, Situation, tools_named
from .planning import Need, ToolSpec, choices, kind

RESULT_LIMIT = 300  # characters of one result quoted in an answer
PERSONA = re.compile(r"\bYou are ([A-Z][\w-]*)")

# words all found in a tool's name or description -> which TEXT sentence tells its result
TOLD_AS = (("current utc time", "utc_time"), ("current time", "time"),
           ("count word", "count"), ("arithmetic", "arithmetic"))
TEXT = {
    "en": {
        "utc_time": "It is {result} (UTC), according to the {tool} tool.",
        "time": "It is {result}, according to the {tool} tool.",
        "count": "That text has {result} words.",
        "arithmetic": "The answer is {result}.",
        "plainly": "The {tool} tool{args} says: {result}",
        "failed": "The {tool} tool{args} failed ({result}), so I can't answer that part.",
        "recalled": "the {tool} tool{args} returned {result}",
        "recall": 'Earlier, for "{request}", {told}.',
        "forgotten": "I no longer have the {tool} tool's result: it is not in what I was sent.",
        "label": "the {name}", "one_of": ": one of ", "and": " and ",
        "question": "To use {tool} I need {wanted}. What should it be?",
        "questions": "To use {tool} I need {wanted}. What should they be?",
        "calls": "{tool} ({n} calls)", "failed_line": "failed: {line}",
        "no_result": "{name} was called but no result came back",
        "summary": "Summary, written by rules (tao's offline model): {n} tool result(s) so far. "
                   "Done: {done}.", "nothing_done": "nothing succeeded",
        "missing": "{text} Missing: {missing}.",
        "covers": "{text} Nothing failed, but I cannot tell whether that covers everything"
                  "{asked}.", "asked": ' "{request}"',
        "me": "I'm tao's offline model", "me_as": "I'm {persona}, played by tao's offline model",
        "not_llm": "{me}: rules, not a language model.", "you_said": 'You said "{text}".',
        "earlier_said": 'Earlier you said "{text}".',
        "earlier_tool": 'Earlier the {tool} tool said "{text}".',
        "no_tools": "No tools here yet, so all I can do is talk back.",
        "one_tool": "Here I can use {tools}: ask for something it does.",
        "many_tools": "Here I can use {tools}: ask for something one of them does.",
        "will_use": "I'll use {tools}.",
    },
    "fr": {
        "utc_time": "Il est {result} (UTC), d'après l'outil {tool}.",
        "time": "Il est {result}, d'après l'outil {tool}.",
        "count": "Ce texte compte {result} mots.",
        "arithmetic": "Le résultat est {result}.",
        "plainly": "L'outil {tool}{args} répond : {result}",
        "failed": "L'outil {tool}{args} a échoué ({result}) : je ne peux pas répondre à "
                  "cette partie.",
        "recalled": "l'outil {tool}{args} a renvoyé {result}",
        "recall": "Tout à l'heure, pour « {request} », {told}.",
        "forgotten": "Je n'ai plus le résultat de l'outil {tool} : il manque à ce qu'on m'envoie.",
        "label": "l'argument {name}", "one_of": " : l'une des valeurs ", "and": " et ",
        "question": "Pour utiliser {tool}, il me faut {wanted}. Que dois-je y mettre ?",
        "questions": "Pour utiliser {tool}, il me faut {wanted}. Que dois-je y mettre ?",
        "calls": "{tool} ({n} appels)", "failed_line": "échec : {line}",
        "no_result": "{name} a été appelé, mais aucun résultat n'est revenu",
        "summary": "Résumé, écrit par des règles (le modèle hors ligne de tao) : {n} résultat(s) "
                   "d'outil jusqu'ici. Fait : {done}.", "nothing_done": "rien n'a réussi",
        "missing": "{text} Manque : {missing}.",
        "covers": "{text} Rien n'a échoué, mais je ne sais pas dire si cela couvre tout"
                  "{asked}.", "asked": " ce que demandait « {request} »",
        "me": "Je suis le modèle hors ligne de tao",
        "me_as": "Je suis {persona}, joué par le modèle hors ligne de tao",
        "not_llm": "{me} : des règles, pas un modèle de langage.",
        "you_said": "Vous avez dit « {text} ».",
        "earlier_said": "Plus tôt, vous avez dit « {text} ».",
        "earlier_tool": "Plus tôt, l'outil {tool} a répondu « {text} ».",
        "no_tools": "Je n'ai pas encore d'outil ici : je ne peux que vous répondre.",
        "one_tool": "Ici, je peux utiliser {tools} : demandez-moi quelque chose qu'il sait faire.",
        "many_tools": "Ici, je peux utiliser {tools} : demandez-moi quelque chose que l'un "
                      "d'eux sait faire.",
        "will_use": "Je vais utiliser {tools}.",
    },
}


def say(lang: str, key: str, **parts) -> str:
    """The sentence `key` in `lang` (English for a language TEXT does not have)."""
    return TEXT.get(lang, TEXT["en"])[key].format(**parts)


def answer(s: Situation) -> str:
    """The answer from the latest result of each planned call, then any questions."""
    told = [_latest(s.turn, need) for need in s.plan]
    told = [o for o in told if o is not None] or _latest_per_call(s.turn)
    sentences = [tell(o, s.catalogue.get(o.tool), s.lang) for o in told]
    return " ".join([*sentences, ask(s)]).strip()


def recall(s: Situation) -> str:
    """What the tools said in an earlier turn, told again from the results in view; the
    latest turn of a tool the request names, or saying its result is no longer in view."""
    named = tools_named(s)
    turns = [t for t in s.past_turns if any(o.tool in named for o in t[1])] or [s.last_turn]
    if named and not any(o.tool in named for o in turns[-1][1]):
        return say(s.lang, "forgotten", tool=named[0])
    request, observed = turns[-1]
    told = "; ".join(say(s.lang, "recalled", **_said(o)) for o in
                     _latest_per_call([o for o in observed if o.tool in named] or observed))
    return say(s.lang, "recall", request=_short(request), told=told)


def tell(observation: Observation, spec: ToolSpec | None, lang: str = "en") -> str:
    """One sentence that passes a tool result on."""
    said = _said(observation)
    if observation.failed:
        return say(lang, "failed", **said)
    tool_words = (spec.name_words | spec.other_words) if spec else set()
    for needed, sentence in TOLD_AS:
        if words.stems(needed) <= tool_words:
            return say(lang, sentence, **said)
    return say(lang, "plainly", **said)


def _said(observation: Observation) -> dict:
    """The pieces a sentence about one result is made of: tool, (arguments), result."""
    result = _cut(observation.result.strip()) or "(nothing)"
    args = ", ".join(f"{k}={v}" for k, v in (observation.args or {}).items())
    return {"tool": observation.tool, "result": result, "args": f" ({args})" if args else ""}


def question(need: Need, spec: ToolSpec, lang: str = "en") -> str:
    """Asking the user for the arguments a call still lacks, as a model would."""
    wanted = []
    for name in need.missing:
        prop = spec.properties().get(name, {})
        about = str(prop.get("description", "")).strip().rstrip(".")
        label = say(lang, "label", name=name) + (f" ({about})" if about else "")
        if kind(name, prop) == "enum":
            label += say(lang, "one_of") + ", ".join(str(v) for v in choices(prop))
        wanted.append(label)
    return say(lang, "question" if len(wanted) == 1 else "questions", tool=spec.name,
               wanted=say(lang, "and").join(wanted))


def ask(s: Situation) -> str:
    """Questions for every planned call that lacks an argument."""
    return " ".join(dict.fromkeys(question(n, s.catalogue[n.tool], s.lang)
                                  for n in s.plan if n.missing))


def summary(s: Situation) -> str:
    """An honest summary of the tool results: what was done, what failed, what is missing."""
    request, observed = s.results()
    counts = Counter(o.tool for o in observed)
    done, missing = [], []
    for o in _latest_per_tool(observed):
        tool = say(s.lang, "calls", tool=o.tool, n=counts[o.tool]) if counts[o.tool] > 1 else o.tool
        line = f"{tool} → {_cut(o.result.strip())}"
        if o.failed:
            missing.append(say(s.lang, "failed_line", line=line))
        else:
            done.append(line)
    missing += [say(s.lang, "no_result", name=name) for name in s.unanswered]
    text = say(s.lang, "summary", n=len(observed),
               done="; ".join(done) or say(s.lang, "nothing_done"))
    if missing:
        return say(s.lang, "missing", text=text, missing="; ".join(missing))
    asked = say(s.lang, "asked", request=_short(request)) if request.strip() else ""
    return say(s.lang, "covers", text=text, asked=asked)


def chat(s: Situation) -> str:
    """A plain answer when no tool is needed: honest about what this model is."""
    persona = PERSONA.search(s.system)
    me = say(s.lang, "me_as", persona=persona.group(1)) if persona else say(s.lang, "me")
    parts = [say(s.lang, "not_llm", me=me)]
    if s.request.strip():
        parts.append(say(s.lang, "you_said", text=_short(s.request)))
    if s.earlier:
        parts.append(say(s.lang, "earlier_said", text=_short(s.earlier[-1])))
    if s.last_turn[1]:
        last = s.last_turn[1][-1]
        parts.append(say(s.lang, "earlier_tool", tool=last.tool, text=_short(last.result)))
    parts.append(_what_i_can_do(s.catalogue, s.lang))
    return " ".join(parts)


def _what_i_can_do(catalogue: dict[str, ToolSpec], lang: str = "en") -> str:
    """One sentence naming the tools and what each does."""
    if not catalogue:
        return say(lang, "no_tools")
    tools = [f"{spec.name} ({_first_sentence(spec.description)})" if spec.description.strip()
             else spec.name for spec in catalogue.values()]
    if len(tools) == 1:
        return say(lang, "one_tool", tools=tools[0])
    return say(lang, "many_tools", tools=", ".join(tools[:-1]) + say(lang, "and") + tools[-1])


def _latest(observed: list[Observation], need: Need) -> Observation | None:
    """The last result of the call `need` describes, or None."""
    matching = [o for o in observed if o.answers(need)]
    return matching[-1] if matching else None


def _latest_per_call(observed: list[Observation]) -> list[Observation]:
    """The last result of each distinct call, in the order the calls were first made."""
    latest = {}
    for o in observed:
        latest[(o.tool, repr(o.args))] = o
    return list(latest.values())


def _latest_per_tool(observed: list[Observation]) -> list[Observation]:
    """The last result of each tool, in the order the tools were first used."""
    latest = {}
    for o in observed:
        latest[o.tool] = o
    return list(latest.values())


def _first_sentence(description: str) -> str:
    """A description's first sentence, lower-cased, without backticks or the full stop."""
    first = description.replace("`", "").strip().split(". ")[0].rstrip(".")
    return _short(first[:1].lower() + first[1:], 50)


def _cut(text: str) -> str:
    """A result short enough to quote, saying how much was left out."""
    if len(text) <= RESULT_LIMIT:
        return text
    return f"{text[:RESULT_LIMIT]}… ({len(text) - RESULT_LIMIT} more characters)"


def _short(text: str, limit: int = 60) -> str:
    """One line of at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
