"""The offline model: a few rules standing in for a language model, so every stage runs
with no key and no network.

It reads what a real model reads: the system prompt (which tools exist, whether the
JSON-line protocol is asked for), the native `tools` list, and the conversation. It picks
a tool by matching the request against tool names and descriptions, emits the call in the
format asked for, and after an observation writes an answer that uses it. It is not
clever and says so. `quirk=` makes it misbehave the way real models do, on purpose.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from .base import Provider, ProviderError, Reply, Tool, ToolCall
from .defaults import DEFAULT_MODELS

QUIRKS = {
    "blank_lines": "blank lines before the JSON line (what .strip() is for)",
    "fenced": "the JSON wrapped in a ```json fence",
    "prose": "a sentence of prose before the JSON",
    "broken_json": "the first tool call cut off mid-JSON",
    "unknown_tool": "the first tool call names a tool that does not exist",
}

# (words in the request that ask for it, words in a tool's name/description that offer it)
SKILLS = {
    "time": (r"\b(time|date|today|clock|what day)\b", r"\b(time|clock|date|now)\b"),
    "words": (r"\b(how many words|count (the )?words|word ?count)\b", r"\bwords?\b"),
    "math": (r"(\d\s*(\*\*|[-+*/%^])\s*\(?\s*\d)|\b(calculate|compute|arithmetic)\b",
             r"\b(arithmetic|calculat\w*|math\w*|expression)\b"),
}
ASK_FOR = {"time": "the time", "words": "how many words are in 'some text'",
           "math": "some arithmetic"}
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"|“([^”]*)”")
_EXPRESSION = re.compile(r"[-+*/%().\d\s^]*\d[-+*/%().\d\s^]*")
_LISTED_TOOL = re.compile(r"^\s*[-*]\s*`(\w+)`\s*(?:—|-|:)\s*(.*)$", re.M)
_TOOL_RESULT = re.compile(r"^<tool_result tool=([\w.-]+)>\n?(.*?)\n?</tool_result>\s*$", re.S)
_PERSONA = re.compile(r"\bYou are ([A-Z][\w-]*)")


@dataclass
class _Need:
    """One tool the request needs, with the arguments the model would send."""

    tool: str
    skill: str
    args: dict


class OfflineProvider(Provider):
    name = "offline"

    def __init__(self, model: str | None = None, *, quirk: str | None = None,
                 delay: float | None = None):
        quirk = quirk if quirk is not None else os.environ.get("TAO_OFFLINE_QUIRK") or None
        if quirk and quirk not in QUIRKS:
            raise ProviderError(
                f"offline: unknown quirk {quirk!r}: choose one of {', '.join(QUIRKS)}"
            )
        self.model = model or DEFAULT_MODELS["offline"]
        self.quirk = quirk
        self.delay = float(os.environ.get("TAO_OFFLINE_DELAY", 0)) if delay is None else delay
        self._calls = 0

    def describe(self) -> str:
        extra = f" with the {self.quirk} quirk" if self.quirk else ""
        return f"offline, the built-in rule-based model{extra}"

    def turn(self, messages, system, tools: tuple[Tool, ...]) -> Iterator[str | Reply]:
        text, calls = self.respond(messages, system, tools)
        for piece in re.findall(r"\s*\S+\s*|\s+", text):  # word-sized deltas
            if self.delay:
                time.sleep(self.delay)
            yield piece
        words_in = sum(len(str(m.get("content") or "").split()) for m in messages)
        usage = {"input_tokens": words_in + len(system.split()),
                 "output_tokens": len(text.split()) + 5 * len(calls)}
        yield Reply(text, calls, "tool_use" if calls else "end_turn", usage)

    def respond(self, messages, system, tools) -> tuple[str, list[ToolCall]]:
        """Decide the whole reply: (text, native tool calls)."""
        native = bool(tools)
        catalogue = (
            {t.name: (t.description, t.schema) for t in tools}
            if native else _catalogue_from_prompt(system)
        )
        request, earlier, observed = _read_conversation(messages)
        needs = _plan(request, catalogue)
        pending = _pending(needs, observed)
        first_try = not observed
        if pending and native:
            calls = [self._native_call(n, first_try and i == 0) for i, n in enumerate(pending)]
            names = " and ".join(c.name for c in calls)
            return f"I'll use {names}.", calls
        if pending:
            return self._json_line(pending[0], first_try), []
        if observed:
            return _answer(observed, needs), []
        return _chat(request, earlier, system, catalogue), []

    def _native_call(self, need: _Need, quirky: bool) -> ToolCall:
        self._calls += 1
        call = ToolCall(f"offline_call_{self._calls}", need.tool, need.args)
        if quirky and self.quirk == "unknown_tool":
            call.name = "clock"
        if quirky and self.quirk == "broken_json":
            call.args, call.error = {}, "the arguments were not valid JSON: '{\"tex'"
        return call

    def _json_line(self, need: _Need, first_try: bool) -> str:
        line = json.dumps({"tool": need.tool, "args": need.args}, ensure_ascii=False)
        quirk = self.quirk
        if quirk == "blank_lines":
            return "\n\n" + line
        if quirk == "fenced":
            return f"```json\n{line}\n```"
        if quirk == "prose":
            return f"Let me check that with a tool.\n{line}"
        if first_try and quirk == "broken_json":
            return line[: len(line) // 2]
        if first_try and quirk == "unknown_tool":
            return json.dumps({"tool": "clock", "args": need.args})
        return line


def _catalogue_from_prompt(system: str) -> dict[str, tuple[str, dict]]:
    """Tools listed in a JSON-line protocol prompt (`- `name` — what it does`)."""
    if '"tool"' not in system or '"args"' not in system:
        return {}
    return {name: (desc, {}) for name, desc in _LISTED_TOOL.findall(system)}


def _read_conversation(messages):
    """(the latest request, earlier requests, [(tool, observation)] since the request)."""
    requests, observed = [], []
    for m in messages:
        content = str(m.get("content") or "")
        result = _TOOL_RESULT.match(content) if m["role"] == "user" else None
        if m["role"] == "tool":
            observed.append((m.get("name", ""), content))
        elif result:
            observed.append((result.group(1), result.group(2)))
        elif m["role"] == "user":
            requests.append(content)
            observed = []
    if not requests:
        return "", [], observed
    return requests[-1], requests[:-1], observed


def _plan(request: str, catalogue) -> list[_Need]:
    """Which tools the request needs, in the order it mentions them."""
    needs = []
    lowered = request.lower()
    for skill, (asks, offers) in SKILLS.items():
        asked = re.search(asks, lowered)
        tool = next((name for name, (desc, _) in catalogue.items()
                     if re.search(offers, f"{name} {desc}".lower())), None)
        if asked and tool:
            needs.append((asked.start(), _Need(tool, skill, _args(skill, request,
                                                                  catalogue[tool]))))
    for name, (desc, schema) in catalogue.items():  # a tool named outright
        taken = {n.tool for _, n in needs}
        if name not in taken and re.search(rf"\b{re.escape(name)}\b", request):
            needs.append((request.index(name), _Need(name, "", _args("", request,
                                                                      (desc, schema)))))
    return [need for _, need in sorted(needs, key=lambda pair: pair[0])]


def _args(skill: str, request: str, tool: tuple[str, dict]) -> dict:
    """Arguments for a tool, from its schema (or the names its description mentions)."""
    description, schema = tool
    properties = schema.get("properties") or {
        name: {"type": "string"} for name in re.findall(r"`(\w+)`", description)
    }
    quoted = next((next(g for g in m.groups() if g is not None)
                   for m in _QUOTED.finditer(request)), None)
    numbers = [int(n) for n in re.findall(r"-?\d+", request)]
    args = {}
    for name, spec in properties.items():
        if spec.get("type") in ("integer", "number"):
            args[name] = numbers.pop(0) if numbers else spec.get("minimum", 0)
        elif skill == "math" or name in ("expression", "expr"):
            found = max(_EXPRESSION.findall(request), key=len, default=request)
            args[name] = found.strip().rstrip("?.")
        else:
            args[name] = quoted if quoted is not None else request
    if skill == "words" and not properties:
        args["text"] = quoted if quoted is not None else request
    if skill == "math" and not properties:
        args["expression"] = max(_EXPRESSION.findall(request), key=len).strip()
    return args


def _failed(result: str) -> bool:
    return result.strip().startswith("Error")


def _pending(needs, observed) -> list[_Need]:
    """The needed tools with no good result yet; a tool that failed twice is given up."""
    done = {tool for tool, result in observed if not _failed(result)}
    failures = Counter(tool for tool, result in observed if _failed(result))
    return [n for n in needs if n.tool not in done and failures[n.tool] < 2]


def _answer(observed, needs) -> str:
    """A final answer from the latest result of each needed tool (detours left out)."""
    skills = {n.tool: n.skill for n in needs}
    latest = dict(observed)  # the last result of each tool wins
    relevant = [(n.tool, latest[n.tool]) for n in needs if n.tool in latest] or observed
    sentences = []
    for tool, result in relevant:
        result = result.strip()
        skill = skills.get(tool, "")
        if _failed(result):
            sentences.append(f"The {tool} tool failed ({result}), so I can't answer that part.")
        elif skill == "time":
            sentences.append(f"It is {result} (UTC), according to the {tool} tool.")
        elif skill == "words":
            sentences.append(f"That text has {result} words.")
        elif skill == "math":
            sentences.append(f"The answer is {result}.")
        else:
            sentences.append(f"The {tool} tool says: {result}")
    return " ".join(sentences)


def _chat(request, earlier, system, catalogue) -> str:
    """A plain answer when no tool is needed: honest about what this model is."""
    persona = _PERSONA.search(system or "")
    me = f"I'm {persona.group(1)}, played by tao's offline model" if persona else (
        "I'm tao's offline model")
    examples = [ASK_FOR[skill] for skill, (_, offers) in SKILLS.items()
                if any(re.search(offers, f"{n} {d}".lower()) for n, (d, _) in catalogue.items())]
    can = (
        f"Here I can use {', '.join(catalogue)}: ask me " + " or ".join(examples) + "."
        if examples else f"Here I have {', '.join(catalogue)}; name one and I'll call it."
        if catalogue else "No tools here yet, so all I can do is talk back."
    )
    said = f' You said "{_short(request)}".' if request.strip() else ""
    memory = f' Earlier you said "{_short(earlier[-1])}".' if earlier else ""
    return f"{me}: rules, not a language model.{said}{memory} {can}"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
