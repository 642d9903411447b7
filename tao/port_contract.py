"""A stage's contract, as `tao port-test` reads it: what a program of that stage must send
and print. It lives beside the stage, in stages/NN_*/contract.toml:

    about = "..."                        # the stage in one sentence
    history = "native"                   # how the conversation grows: one of HISTORIES
    system = "same"                      # "none", or "same": one system prompt, every request
    system_has = ['"tool"', "now"]       # what that prompt must say (04-06: the protocol)
    tools = ["now", "calculator"]        # advertised natively, schemas valid; [] for none
    stop = ["<tool_result"]              # stop sequences every request asks for (06)
    observation = "<tool_result tool={tool}>\\n{result}\\n</tool_result>"   # 05, 06
    argv = ["--workspace", "{workspace}"]    # added to the command (11)
    [workspace]                          # the files a fresh workspace holds (11)
    [[case]]                             # name, typed, reply, prints, exit, files, absent
    reply = [{text = "...", calls = [{name = "now", args = {}}], results = ["{time}"]}]

Each case is run with values drawn at random from a seed, so no hard-coded answer passes:
{word1}..{word6}, {a}, {b}, {a_times_b}, {a_plus_b}, {file1}..{file3}, {line1}..{line3}
and {model} (what TAO_MODEL says). Two marks match instead of naming: {time}, a UTC time
taken during the run, and {any}, any text. A reply's `results` are what the program must
send back for its calls, in order; `prints`, what its output must show.
"""

from __future__ import annotations

import json
import random
import re
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from .i18n import text
from .repo import CLIError

CONTRACT = "contract.toml"
HISTORIES = {
    "chat": "each request holds the earlier lines and answers, then the new line",
    "fed": "a call line, then its result as a user message (`observation`), until a plain "
           "answer; only the lines and the final answers stay for the next turn",
    "native": "calls in their own slot, each result a tool message with its call's id, "
              "until an answer with no call; only the lines and the answers stay",
    "kept": "as native, and the whole turn (calls and results) stays in the history",
}
WORDS = ("amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo",
         "juniper", "kelp", "lagoon", "maple", "nectar", "onyx", "pebble", "quartz", "raven",
         "saffron", "tundra", "umber", "velvet", "willow", "yarrow", "zephyr")
TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"
SLACK = timedelta(minutes=5)  # a {time} may be this far outside the run: clocks differ
NAMED = re.compile(r"\{(\w+)\}")


@dataclass
class Contract:
    """What a program of one stage must send and print."""

    stage: str
    about: str
    history: str
    system: str = "none"
    system_has: list = field(default_factory=list)
    tools: list = field(default_factory=list)
    stop: list = field(default_factory=list)
    observation: str = ""
    argv: list = field(default_factory=list)
    workspace: dict = field(default_factory=dict)
    cases: list = field(default_factory=list)


def load_contract(folder: Path) -> Contract:
    """The contract beside stage `folder`; CLIError (one line) if it has none or a bad one."""
    path = folder / CONTRACT
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CLIError(text("port.no_contract", stage=folder.name, file=CONTRACT)) from None
    except (OSError, ValueError) as exc:
        raise CLIError(text("port.bad_contract", path=str(path), why=exc)) from None
    known = set(Contract.__dataclass_fields__) - {"stage"}
    wrong = sorted(set(data) - known - {"case"})
    if wrong or data.get("history") not in HISTORIES or not data.get("case"):
        why = f"unknown keys {wrong}" if wrong else "it needs a history and a case"
        raise CLIError(text("port.bad_contract", path=str(path), why=why))
    fields = {key: value for key, value in data.items() if key in known}
    return Contract(folder.name[:2], cases=data["case"], **fields)


def draw(rng: random.Random) -> dict[str, str]:
    """The random values of one case."""
    words = rng.sample(WORDS, 6)
    a, b = rng.randint(11, 99), rng.randint(11, 99)
    values = {f"word{i}": word for i, word in enumerate(words, 1)}
    values.update(a=str(a), b=str(b), a_times_b=str(a * b), a_plus_b=str(a + b))
    names = rng.sample(WORDS, 3)
    values.update({f"file{i}": f"{name}-{rng.randint(100, 999)}.txt"
                   for i, name in enumerate(names, 1)})
    values.update({f"line{i}": " ".join(rng.sample(WORDS, 4)) for i in (1, 2, 3)})
    values["model"] = f"port-test-{rng.choice(WORDS)}-{rng.randint(1000, 9999)}"
    values["id"] = "".join(rng.choices("abcdefghijkmnpqrstuvwxyz23456789", k=10))
    return values


def fill(template, values: dict):
    """`template` (a string, or lists and tables of them) with each {name} filled in; the
    marks {time} and {any} stay, for a Pattern to read."""
    if isinstance(template, dict):
        return {fill(key, values): fill(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(item, values) for item in template]
    if not isinstance(template, str):
        return template

    def named(match: re.Match) -> str:
        name = match.group(1)
        if name in ("time", "any"):
            return match.group(0)
        if name not in values:
            raise CLIError(text("port.unknown_value", name=name))
        return values[name]

    return NAMED.sub(named, template)


class Pattern:
    """Filled text to match: literally, but {time} is a time of the run and {any} any text.
    `loose` lets any run of spaces and line breaks stand for a space (a wrapped screen)."""

    def __init__(self, filled: str, loose: bool = False):
        self.text, regex, times = filled, "", 0
        for i, part in enumerate(re.split(r"\{(time|any)\}", filled.strip())):
            if i % 2 == 0:
                literal = re.escape(" ".join(part.split()) if loose else part)
                regex += literal.replace(r"\ ", r"\s+") if loose else literal
            elif part == "time":
                regex, times = regex + f"(?P<t{times}>{TIME})", times + 1
            else:
                regex += ".*?"
        self.regex = re.compile(regex, re.S)

    def __str__(self) -> str:
        return self.text.replace("{time}", "<a UTC time>").replace("{any}", "…")

    def matches(self, value: str, window: tuple) -> bool:
        """Whether `value` (its edges' spaces aside) is this, times inside `window`."""
        found = self.regex.fullmatch(str(value).strip())
        return found is not None and _timely(found, window)

    def found_in(self, value: str, window: tuple) -> bool:
        """Whether `value` holds this somewhere, times inside `window`."""
        return any(_timely(found, window) for found in self.regex.finditer(value))


def _timely(found: re.Match, window: tuple) -> bool:
    """Whether every time a match holds falls inside `window` (start, end), give or take."""
    for value in found.groupdict().values():
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            return False
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        if not window[0] - SLACK <= when <= window[1] + SLACK:
            return False
    return True


# ---------------------------------------------------------------- what a case scripts


@dataclass
class Scripted:
    """One reply the fake API sends, and what the program must send back for its calls."""

    text: str
    calls: list  # (id, name, args)
    results: list  # a Pattern per call

    def is_call_line(self) -> str | None:
        """The tool a JSON-line reply calls, or None (a plain answer)."""
        try:
            call = json.loads(self.text)
        except ValueError:
            return None
        return call.get("tool") if isinstance(call, dict) else None


def scripted(case: dict, values: dict, kind: str) -> list[Scripted]:
    """The case's replies, filled in, with call ids in the API's own style."""
    prefix = "toolu_" if kind == "anthropic" else "call_"
    replies = []
    for n, reply in enumerate(case.get("reply", []), 1):
        calls = [(f"{prefix}{values['id']}{n}{i}", call["name"], fill(call.get("args", {}),
                                                                      values))
                 for i, call in enumerate(reply.get("calls", []), 1)]
        results = [Pattern(fill(result, values)) for result in reply.get("results", [])]
        replies.append(Scripted(fill(reply.get("text", ""), values), calls, results))
    return replies


def expected_requests(contract: Contract, case: dict, values: dict, kind: str) -> list:
    """The messages each request must hold, in order, as the stage's history prescribes."""
    replies, requests, history = iter(scripted(case, values, kind)), [], []
    for line in fill(case.get("typed", []), values):
        messages, reply = [*history, {"role": "user", "content": Pattern(line)}], None
        for reply in replies:
            requests.append(list(messages))
            if _ends_turn(contract, reply):
                break
            messages += _fed_back(contract, reply)
        if reply is None:
            raise CLIError(text("port.no_reply", case=case.get("name", "?"), line=line))
        answer = {"role": "assistant", "content": Pattern(reply.text)}
        kept = messages if contract.history == "kept" else [*history, messages[len(history)]]
        history = [*kept, answer]
    return requests


def _ends_turn(contract: Contract, reply: Scripted) -> bool:
    """Whether the program must take this reply as the turn's answer."""
    if contract.history == "chat":
        return True
    if contract.history == "fed":
        return reply.is_call_line() is None
    return not reply.calls


def _fed_back(contract: Contract, reply: Scripted) -> list[dict]:
    """The messages a reply with calls adds: the reply, then each call's result."""
    if contract.history == "fed":
        tool = json.dumps(reply.is_call_line())
        result = reply.results[0].text if reply.results else "{any}"
        observed = contract.observation.replace("{tool}", tool).replace("{result}", result)
        return [{"role": "assistant", "content": Pattern(reply.text)},
                {"role": "user", "content": Pattern(observed), "result_of": reply.is_call_line()}]
    added = [{"role": "assistant", "content": Pattern(reply.text), "tool_calls": reply.calls}]
    for (call_id, name, _), result in zip(reply.calls, reply.results or [], strict=False):
        added.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": result})
    return added
