"""What the offline model reads before it answers: the situation a conversation is in.

It reads what a real model reads, worked examples aside (shared/examples.py): the system prompt,
the native `tools`, and the messages. Tool results come in two shapes: `role: tool` messages
(native calls) and `<tool_result tool="NAME">` user messages (the JSON-line protocol of stages
04-06; the name is a JSON string there, and bare in stage 09/10's wrap-up).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from . import words
from .planning import Need, ToolSpec, catalogue_from_prompt, catalogue_from_tools, plan

TOOL_RESULT = re.compile(  # the name: a JSON string, or a bare word
    r'^<tool_result tool=("(?:[^"\\]|\\.)*"|[^\s>]+)>\n?(.*?)\n?</tool_result>\s*$', re.S)
# a question about what a tool said before: "what did the now tool return?", "qu'a
# répondu l'outil now ?"
ASKS_WHAT_IT_SAID = re.compile(r"\b(did|was|were)\b.*\b(tool\b.*\b(return|say|said|give|gave|show)"
                               r"|result|output)|\bqu['’](a|avait|ont)\b.*\b(dit|répondu|renvoyé|"
                               r"donné|rendu|affiché)(?!\w)|\b(quel|quels) (était|étaient|a été) "
                               r"(le|les) (résultat|sortie)", re.I)
ASKS_FOR_SUMMARY = re.compile(
    r"\b(summar(y|ies|i[sz]e|i[sz]ing)|recap|what (was|has been|you) (done|did|have done)|"
    r"résum(é|e|er|ez)|récap|qu['’](as-tu|avez-vous) fait)(?!\w)", re.I)
RETRIES = 1  # a failed call is tried once more, as a real model would


@dataclass
class Observation:
    """One tool result the model has read, with the call that asked for it if known."""

    tool: str
    args: dict | None
    result: str

    @property
    def failed(self) -> bool:
        """Whether the result reports an error (the stages start those with `Error`)."""
        return self.result.strip().startswith("Error")

    def answers(self, need: Need) -> bool:
        """Whether this result came from the call `need` describes."""
        return self.tool == need.tool and (self.args is None or self.args == need.args)


@dataclass
class Situation:
    """Everything a rule may look at to decide the reply."""

    system: str
    native: bool  # tools came in the request's `tools` field, not in the prompt
    catalogue: dict[str, ToolSpec]
    request: str = ""  # the latest thing the user asked
    earlier: list[str] = field(default_factory=list)  # what the user asked before
    turn: list[Observation] = field(default_factory=list)  # results since the request
    # the latest earlier request that used tools, and its results; and all of them
    last_turn: tuple[str, list[Observation]] = ("", [])
    past_turns: list[tuple[str, list[Observation]]] = field(default_factory=list)
    unanswered: list[str] = field(default_factory=list)  # calls with no result (names)
    summary_asked: bool = False
    forced: bool = False  # tool_choice says this reply must call a tool
    calls_so_far: int = 0
    plan: list[Need] = field(default_factory=list)
    lang: str = "en"  # the language of the latest user message that told one ("en", "fr")

    def results(self) -> tuple[str, list[Observation]]:
        """(request, its tool results): this turn's, else the latest turn that had some."""
        return (self.request, self.turn) if self.turn else self.last_turn

    def result_of(self, need: Need) -> str | None:
        """The latest good result of `need` in this turn, if it is a number, else None."""
        good = [o.result.strip() for o in self.turn if o.answers(need) and not o.failed]
        return good[-1] if good and words.NUMBER.fullmatch(good[-1]) else None

    def pending(self) -> list[Need]:
        """Planned calls with every argument, no good result, and a retry left."""
        ready = []
        for need in self.plan:
            results = [o for o in self.turn if o.answers(need)]
            failures = sum(o.failed for o in results)
            if not need.missing and len(results) == failures and failures <= RETRIES:
                ready.append(need)
        return ready


def read_situation(messages: list[dict], system: str, tools, forced: bool = False) -> Situation:
    """Read the conversation the way the rules need it."""
    native = bool(tools)
    catalogue = catalogue_from_tools(tools) if native else catalogue_from_prompt(system)
    situation = Situation(system or "", native, catalogue, forced=forced and bool(catalogue))
    calls: dict[str, tuple[str, dict]] = {}  # call id -> (name, args)
    last_text = ""
    for message in (m for m in messages if not m.get("example")):  # examples: not this talk
        content = str(message.get("content") or "")
        role = message.get("role")
        if role == "assistant":
            last_text = content
            for call in message.get("tool_calls") or []:
                calls[call.get("id", "")] = (call.get("name", ""), call.get("args"))
        elif role == "tool":
            name, args = calls.pop(message.get("tool_call_id", ""), (message.get("name", ""), None))
            situation.turn.append(Observation(message.get("name") or name or "unnamed", args,
                                              content))
        elif role == "user":
            _read_user(situation, content, last_text)
    situation.unanswered = [name for name, _ in calls.values()]
    situation.calls_so_far = sum(len(m.get("tool_calls") or []) for m in messages)
    situation.plan = plan(situation.request, catalogue, situation.result_of,
                          tuple(situation.earlier))
    return situation


def _read_user(situation: Situation, content: str, last_text: str) -> None:
    """A user message: a JSON-line tool result, a request for a summary, or a new request."""
    result = TOOL_RESULT.match(content)
    if result:
        tool = _tool_name(result.group(1))
        name, args = _json_line_call(last_text)
        args = args if name == tool else None
        situation.turn.append(Observation(tool, args, result.group(2)))
        return
    situation.lang = words.language(content) or situation.lang  # the reply's language
    if ASKS_FOR_SUMMARY.search(content) and situation.results()[1]:
        situation.summary_asked = True  # about the results so far: they stay in view
        return
    if situation.request:
        situation.earlier.append(situation.request)
    if situation.turn:
        situation.last_turn = (situation.request, situation.turn)
        situation.past_turns.append(situation.last_turn)
    situation.request = content
    situation.turn = []


def _tool_name(written: str) -> str:
    """The tool name of a result's opening tag: a JSON string, or a bare word."""
    try:
        name = json.loads(written) if written.startswith('"') else written
    except ValueError:
        return written
    return name if isinstance(name, str) else written


def _json_line_call(text: str) -> tuple[str, dict | None]:
    """(tool, args) of the JSON line in a reply, even fenced or after prose; ("", None)."""
    start, end = text.find("{"), text.rfind("}")
    try:
        call = json.loads(text[start: end + 1]) if start >= 0 else None
    except (ValueError, RecursionError):
        return "", None
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        return "", None
    args = call.get("args", {})
    return call["tool"], args if isinstance(args, dict) else None


def tools_named(s: Situation) -> list[str]:
    """The tools the request names ("what did the wordcount tool return?")."""
    return [n for n in s.catalogue if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", s.request)]


def asks_what_it_said(s: Situation) -> bool:
    """The user asks what a tool said before, brings nothing new, and a result is in view
    or a tool is named (its result may be gone: snipped, or never kept)."""
    asked = s.request
    for name in s.catalogue:  # "what did wordcount return?" names its tool
        asked = asked.replace(name, "tool")
    return ((bool(s.last_turn[1]) or bool(tools_named(s))) and not s.turn and not s.forced
            and bool(ASKS_WHAT_IT_SAID.search(asked)) and not words.quoted(asked)
            and not words.numbers(asked))


def wants_summary(situation: Situation) -> bool:
    """Tool results are in view, and no tool is offered or a summary is asked for."""
    if not situation.results()[1]:
        return False
    asked = situation.summary_asked or bool(ASKS_FOR_SUMMARY.search(situation.system))
    return asked or not situation.catalogue
