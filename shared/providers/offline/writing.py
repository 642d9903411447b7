"""The sentences the offline model writes: answers, questions, summaries, small talk.

Each function takes the Situation and returns plain text. How a result is told depends
on the words of its tool (TOLD_AS); any other tool's result is quoted as it came.
"""

from __future__ import annotations

import re
from collections import Counter

from . import words
from .conversation import Observation, Situation
from .planning import Need, ToolSpec, choices, kind

RESULT_LIMIT = 300  # characters of one result quoted in an answer
PERSONA = re.compile(r"\bYou are ([A-Z][\w-]*)")

# words all found in a tool's name or description -> how its result is told
TOLD_AS = (
    ("current utc time", "It is {result} (UTC), according to the {tool} tool."),
    ("current time", "It is {result}, according to the {tool} tool."),
    ("count word", "That text has {result} words."),
    ("arithmetic", "The answer is {result}."),
)
TOLD_PLAINLY = "The {tool} tool{args} says: {result}"
TOLD_FAILED = "The {tool} tool{args} failed ({result}), so I can't answer that part."
RECALLED = "the {tool} tool{args} returned {result}"


def answer(s: Situation) -> str:
    """The answer from the latest result of each planned call, then any questions."""
    told = [_latest(s.turn, need) for need in s.plan]
    told = [o for o in told if o is not None] or _latest_per_call(s.turn)
    sentences = [tell(o, s.catalogue.get(o.tool)) for o in told]
    return " ".join([*sentences, ask(s)]).strip()


def recall(s: Situation) -> str:
    """What the tools said in an earlier turn, told again from the results in view."""
    request, observed = s.last_turn
    named = [o for o in observed if o.tool.lower() in s.request.lower()]
    told = "; ".join(RECALLED.format(**_said(o)) for o in _latest_per_call(named or observed))
    return f'Earlier, for "{_short(request)}", {told}.'


def tell(observation: Observation, spec: ToolSpec | None) -> str:
    """One sentence that passes a tool result on."""
    said = _said(observation)
    if observation.failed:
        return TOLD_FAILED.format(**said)
    tool_words = (spec.name_words | spec.other_words) if spec else set()
    for needed, sentence in TOLD_AS:
        if words.stems(needed) <= tool_words:
            return sentence.format(**said)
    return TOLD_PLAINLY.format(**said)


def _said(observation: Observation) -> dict:
    """The pieces a sentence about one result is made of: tool, (arguments), result."""
    result = _cut(observation.result.strip()) or "(nothing)"
    args = ", ".join(f"{k}={v}" for k, v in (observation.args or {}).items())
    return {"tool": observation.tool, "result": result, "args": f" ({args})" if args else ""}


def question(need: Need, spec: ToolSpec) -> str:
    """Asking the user for the arguments a call still lacks, as a model would."""
    wanted = []
    for name in need.missing:
        prop = spec.properties().get(name, {})
        about = str(prop.get("description", "")).strip().rstrip(".")
        label = f"the {name}" + (f" ({about})" if about else "")
        if kind(name, prop) == "enum":
            label += ": one of " + ", ".join(str(v) for v in choices(prop))
        wanted.append(label)
    which = "it" if len(wanted) == 1 else "they"
    return f"To use {spec.name} I need {' and '.join(wanted)}. What should {which} be?"


def ask(s: Situation) -> str:
    """Questions for every planned call that lacks an argument."""
    return " ".join(dict.fromkeys(question(n, s.catalogue[n.tool]) for n in s.plan if n.missing))


def summary(s: Situation) -> str:
    """An honest summary of the tool results: what was done, what failed, what is missing."""
    request, observed = s.results()
    counts = Counter(o.tool for o in observed)
    done, missing = [], []
    for o in _latest_per_tool(observed):
        times = f" ({counts[o.tool]} calls)" if counts[o.tool] > 1 else ""
        line = f"{o.tool}{times} → {_cut(o.result.strip())}"
        if o.failed:
            missing.append(f"failed: {line}")
        else:
            done.append(line)
    missing += [f"{name} was called but no result came back" for name in s.unanswered]
    text = (f"Summary, written by rules (tao's offline model): {len(observed)} tool "
            f"result(s) so far. Done: {'; '.join(done) or 'nothing succeeded'}.")
    if missing:
        return f"{text} Missing: {'; '.join(missing)}."
    asked = f' "{_short(request)}"' if request.strip() else ""
    return f"{text} Nothing failed, but I cannot tell whether that covers everything{asked}."


def chat(s: Situation) -> str:
    """A plain answer when no tool is needed: honest about what this model is."""
    persona = PERSONA.search(s.system)
    me = "I'm tao's offline model"
    if persona:
        me = f"I'm {persona.group(1)}, played by tao's offline model"
    parts = [f"{me}: rules, not a language model."]
    if s.request.strip():
        parts.append(f'You said "{_short(s.request)}".')
    if s.earlier:
        parts.append(f'Earlier you said "{_short(s.earlier[-1])}".')
    if s.last_turn[1]:
        last = s.last_turn[1][-1]
        parts.append(f'Earlier the {last.tool} tool said "{_short(last.result)}".')
    parts.append(_what_i_can_do(s.catalogue))
    return " ".join(parts)


def _what_i_can_do(catalogue: dict[str, ToolSpec]) -> str:
    """One sentence naming the tools and what each does."""
    if not catalogue:
        return "No tools here yet, so all I can do is talk back."
    tools = [f"{spec.name} ({_first_sentence(spec.description)})" if spec.description.strip()
             else spec.name for spec in catalogue.values()]
    if len(tools) == 1:
        return f"Here I can use {tools[0]}: ask for something it does."
    listed = ", ".join(tools[:-1]) + " and " + tools[-1]
    return f"Here I can use {listed}: ask for something one of them does."


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
