"""`tao compare`: the same tasks through the text protocol and native calls, graded.

    tao compare [--provider P] [--protocols text,examples,native,constrained] [--tasks FILE]
                [--runs N] [--quirk Q] [--json] [--html FILE] [--markdown] [--record FILE]

Each task (compare_tasks.toml) goes through the kit's own loops, imported, never copied:
stage 06's `agent_step` (the JSON-line protocol, near-miss coaching included) for
`text`, stage 07's for `native`. They get the same registry: the stages' three tools
plus stage 10's stand-ins, made instant, and a clock that stands still, so a run can be
recorded (`--record`) and replayed (`--provider replay:FILE`) to the same numbers.
`constrained` is stage 06 again, on the local model held to the grammar `--constrain`
gives it (one call line to a tool of the registry, or plain text): the only model here
that takes a grammar, so it answers that protocol whatever --provider says; where it
cannot run (no `local` extra, no model), one line says so and the others run.
`examples` is stage 06 with `--examples`: each task starts after the worked exchanges
(shared/examples.py), their `now` at EXAMPLE_NOW so a copied answer is graded wrong.
`constrained+examples` is both: the grammar meets the calls the examples bring out.

A grading trace listens to each loop as a screen would (`act`, `observe`, `think`), and
a task says, in data, which tools it needs, what their arguments must hold and what the
answer must say. Each failure kind names the fix the kit teaches for it (FIXES).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import sys
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from shared.files import write_whole
from shared.printable import visible
from shared.providers import ProviderError, Tool, build_provider, choose_provider
from shared.providers.base import NO_OPTIONS, Wrapper
from shared.providers.replay import Divergence, Recorder, kept_options
from shared.stage_main import writable
from shared.trace import Trace

from .i18n import text as message  # "text" is a protocol here
from .repo import CannotWrite, CLIError, load_stage

TASKS = Path(__file__).with_name("compare_tasks.toml")
# in every --html report, near its start: the mark of a file --html may write over
REPORT_MARK = '<meta name="generator" content="tao compare">'
PROTOCOLS = {"text": ("06", "stage 06: one JSON line, parsed"),
             "examples": ("06", "stage 06 with worked examples in front (--examples)"),
             "native": ("07", "stage 07: the API's own tool calls"),
             "constrained": ("06", "stage 06 on the local model, held to a grammar"),
             "constrained+examples": ("06", "both: the grammar, and the examples in front")}
HELD = ("constrained", "constrained+examples")  # answered by the local model, held
WITH_EXAMPLES = ("examples", "constrained+examples")  # history starts with the examples
STAND_INS = ("search", "lookup")  # stage 10's, added to both registries
FROZEN_NOW = "2026-01-02T03:04:05+00:00"  # what `now` says in a comparison: runs replay
# what `now` says in the examples: another moment, so an answer copied from an example
# names a time no task wants, and is graded wrong
EXAMPLE_NOW = "2026-01-01T10:00:00+00:00"

# each failure kind, and the fix the kit teaches for it
FIXES = {kind: f"compare.fix.{kind}" for kind in (  # their words: tao/i18n.py
    "near_miss", "call_as_answer", "broken_args", "unknown_tool", "missing_arg", "tool_error",
    "missed_call", "unneeded_call", "iteration_cap", "cut_off", "provider")}


@dataclass
class Task:
    """One task: the prompt, and what a right run does, in a form a program can check."""

    id: str
    kind: str
    prompt: str
    tools: list[str] = field(default_factory=list)  # needed, in order; [] needs none
    args: dict = field(default_factory=dict)  # tool -> argument -> substrings it must hold
    answer: list[str] = field(default_factory=list)  # the final answer holds each of these


@dataclass
class Result:
    """One task through one protocol: what happened, and how it grades."""

    task: str
    kind: str
    protocol: str
    calls: list[dict] = field(default_factory=list)
    attempts: int = 0  # calls written, well-formed or not
    malformed: int = 0
    right_tool: bool = False
    right_args: bool = False
    answer_ok: bool = False
    unneeded_call: bool = False
    missed_call: bool = False
    iterations: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool = False  # the counts are the model's estimate (the offline model's)
    unreported: bool = False  # a reply came with no counts (some servers send none)
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    answer: str = ""


def report_path(value: str) -> str:
    """`value` if --html can write its report there: a .html file, new or a report of
    tao compare's own (it holds REPORT_MARK); checked before the run, not after it."""
    path = Path(value)
    if path.suffix.lower() not in (".html", ".htm"):
        raise argparse.ArgumentTypeError(f"{value!r}: name a .html file")
    writable(value)
    if path.exists():
        with open(path, "rb") as file:
            head = file.read(4096)
        if REPORT_MARK.encode() not in head:
            raise argparse.ArgumentTypeError(f"{value!r} is there already and is not a tao "
                                             "compare report: tao writes over nothing it "
                                             "did not make")
    return value


def load_tasks(path: Path = TASKS) -> list[Task]:
    """The tasks in `path`; a mistake in the file is a CLIError naming the task."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise CLIError(message("error.tasks_unreadable", path=repr(str(path)),
                               why=f"not UTF-8 text: {exc.reason} at byte {exc.start}")) from None
    except (OSError, ValueError) as exc:  # a TOMLDecodeError is a ValueError
        raise CLIError(message("error.tasks_unreadable", path=repr(str(path)),
                               why=getattr(exc, "strerror", None) or exc)) from None
    try:
        entries = data["task"]
        if not isinstance(entries, list):
            raise TypeError("[[task]] must be a list of tables")
        return [_task(entry) for entry in entries]
    except (KeyError, TypeError) as exc:
        raise CLIError(message("error.tasks_shape", path=repr(str(path)), why=exc)) from None


# each field of a task, and what its value must be (a task file is read, never trusted)
FIELDS = {"id": str, "kind": str, "prompt": str, "tools": list[str], "answer": list[str],
          "args": dict[str, dict[str, list[str]]]}


def _task(entry) -> Task:
    """One [[task]] table as a Task; TypeError naming the first field of the wrong kind."""
    if not isinstance(entry, dict):
        raise TypeError("each [[task]] must be a table")
    for key in ("id", "kind", "prompt"):
        if key not in entry:
            raise KeyError(key)
    for key, value in entry.items():
        if key not in FIELDS:
            raise TypeError(f"unknown field {key!r}")
        if not _fits(value, FIELDS[key]):
            raise TypeError(f"{key} must be {_said(FIELDS[key])}, not {value!r}"[:160])
    return Task(**entry)


def _fits(value, kind) -> bool:
    """True if `value` is of `kind` (str, or list[...] / dict[str, ...] of such)."""
    if kind is str:
        return isinstance(value, str)
    inner = kind.__args__[-1]
    if kind.__origin__ is list:
        return isinstance(value, list) and all(_fits(item, inner) for item in value)
    return isinstance(value, dict) and all(isinstance(key, str) and _fits(item, inner)
                                           for key, item in value.items())


def _said(kind) -> str:
    """`kind` in words: "a string", "a list of a string"..."""
    if kind is str:
        return "a string"
    container = "a list of" if kind.__origin__ is list else "a table of"
    return f"{container} {_said(kind.__args__[-1])}".replace("of a string", "of strings")


# ---------------------------------------------------------------- the loops, as imported


def instant(run):
    """Stage 10's stand-in `run` with no delay, run to its end even if it is async."""
    def quick(args: dict) -> str:
        import asyncio  # only a stand-in's call pays for it
        import inspect

        result = run({**args, "seconds": 0} if isinstance(args, dict) else args)
        return asyncio.run(result) if inspect.iscoroutine(result) else result
    quick.__doc__ = run.__doc__
    return quick


def frozen_now(args: dict) -> str:
    """return the current UTC time. No arguments."""
    return FROZEN_NOW


def example_now(args: dict) -> str:
    """return the current UTC time. No arguments."""
    return EXAMPLE_NOW


def examples_for(protocol: str, loop) -> list[dict]:
    """The history `protocol`'s tasks start with: stage 06's worked examples (built by
    running the registry's tools, the clock at EXAMPLE_NOW), or none."""
    if protocol not in WITH_EXAMPLES:
        return []
    from shared.examples import build_examples  # only a run with examples reads it

    return build_examples({**loop.TOOLS, "now": example_now})


def load_protocol(protocol: str):
    """The stage loop for `protocol`, with the shared registry in place (see the docstring)."""
    stand_ins = [t for t in load_stage("10", "tools").TOOLS if t.name in STAND_INS]
    loop = load_stage(PROTOCOLS[protocol][0], "loop")
    if isinstance(loop.TOOLS, dict):  # stage 06: name -> function, its docstring the prompt
        loop.TOOLS["now"] = frozen_now
        for tool in stand_ins:
            loop.TOOLS[tool.name] = instant(tool.run)
    else:  # stage 07: Tool records, in place, so its own find_tool sees them too
        loop.TOOLS[:] = [Tool(t.name, t.description, t.schema, frozen_now)
                         if t.name == "now" else t for t in loop.TOOLS]
        loop.TOOLS.extend(Tool(t.name, t.description, t.schema, instant(t.run))
                          for t in stand_ins)
    return loop


class ByProtocol(Wrapper):
    """The model for the protocol being run (`protocol`, set by `compare`): the one the
    learner picked, or for HELD's the local model held to stage 06's grammar.
    One object in front of both, so one --record file holds the run in order."""

    def __init__(self, provider, constrained):
        super().__init__(provider)
        self.constrained, self.protocol = constrained, ""

    def turn(self, messages, system, tools, options=NO_OPTIONS):
        """The turn of this protocol's model."""
        model = self.constrained if self.protocol in HELD else self.provider
        yield from model.turn(messages, system, tools, options)

    def describe(self) -> str:
        """Both models, when they are two."""
        mine, held = self.provider.describe(), self.constrained.describe()
        return mine if mine == held else f"{mine}; constrained: {held}"


def held_to_grammar(name: str, model: str | None):
    """The local model held to the grammar `--constrain` builds from stage 06's registry
    (as compare extends it), or None and the one line that says why it cannot run."""
    from shared.providers.local import tool_grammar  # text only: imports no llama.cpp

    grammar = tool_grammar(load_protocol("constrained").TOOLS)
    try:
        return build_provider("local", model if name == "local" else None,
                              grammar=grammar), ""
    except ProviderError as exc:
        return None, str(exc)


class Grader:
    """A trace that keeps what a grader needs, and shows nothing."""

    def __init__(self):
        self.iterations, self.calls, self.results, self.coached = 0, [], [], 0

    def iteration(self, number: int) -> None:
        """Keep the iteration count: one model call each."""
        self.iterations = number

    def act(self, name, args, call_id=None) -> None:
        """Keep a call the loop ran (or tried to: an unknown tool is a call too)."""
        self.calls.append({"name": name, "args": args})

    def observe(self, name, result, call_id=None) -> None:
        """Keep a tool's result, or count a near miss coached."""
        if name is None:  # stage 06's near-miss coaching: a call written wrong
            self.coached += 1
        else:
            self.results.append(str(result))

    def __getattr__(self, name):
        """Trace's other methods (think, stream_delta...): nothing to keep. Like SILENT,
        it answers to Trace's methods only, so a misspelt trace call fails here too."""
        if name.startswith("_") or not callable(getattr(Trace, name, None)):
            raise AttributeError(f"a trace has no method {name!r}")
        return lambda *args, **kwargs: None


def run_task(task: Task, protocol: str, loop, provider, history=()) -> Result:
    """`task` through `loop` (one protocol's stage loop), after `history` (the worked
    examples, for a protocol that has them), graded."""
    grader, usage = Grader(), {"in": 0, "out": 0}
    result = Result(task.id, task.kind, protocol)

    def count(reply):
        usage["in"] += int(reply.usage.get("input_tokens", 0))
        usage["out"] += int(reply.usage.get("output_tokens", 0))
        result.estimated = result.estimated or bool(reply.usage.get("estimated"))
        result.unreported = result.unreported or bool(reply.usage.get("not_reported"))

    provider.on_reply = count
    started = time.perf_counter()
    try:  # a Divergence (a replay that no longer matches) is no ProviderError: it ends the
        # run, since no number after it would be real
        answer = loop.agent_step(task.prompt, list(history), provider,
                                 loop.build_agent_system(), grader)
    except ProviderError as exc:
        answer = ""
        result.errors.append("provider")
        result.answer = f"error: {exc}"
    else:
        result.answer = answer
    result.seconds = time.perf_counter() - started
    result.iterations, result.tokens_in, result.tokens_out = (
        grader.iterations, usage["in"], usage["out"])
    grade(task, result, grader, answer, loop)
    return result


def grade(task: Task, result: Result, grader: Grader, answer: str, loop) -> None:
    """Fill in `result`'s grades from what `grader` saw and the final answer."""
    result.calls = grader.calls
    errors = result.errors
    errors += ["near_miss"] * grader.coached + [_tool_error(text) for text in grader.results
                                                if text.startswith("Error:")]
    # a call written wrong past the coaching: stage 06 takes it as the answer
    near_miss = getattr(loop, "_near_miss", None)
    left_as_answer = bool(answer and near_miss and near_miss(answer))
    if left_as_answer:
        errors.append("call_as_answer")
    result.attempts = len(grader.calls) + grader.coached + left_as_answer
    result.malformed = grader.coached + errors.count("broken_args") + left_as_answer
    called = [c["name"] for c in grader.calls if _is_tool(c["name"], loop)]
    result.unneeded_call = not task.tools and bool(grader.calls)
    result.missed_call = any(name not in called for name in task.tools)
    result.right_tool = (set(called) == set(task.tools)) and not (
        task.tools == [] and grader.calls)
    result.right_args = result.right_tool and all(
        any(c["name"] == tool and _holds(c["args"], wanted) for c in grader.calls)
        for tool, wanted in task.args.items())
    _grade_answer(task, result, answer)


def _tool_error(text: str) -> str:
    """The failure kind of a tool result that starts with "Error:"."""
    if text.startswith("Error: unknown tool"):
        return "unknown_tool"
    if text.startswith("Error: the arguments"):
        return "broken_args"
    if "needs the argument" in text or text.startswith("Error: KeyError"):
        return "missing_arg"
    return "tool_error"


def _grade_answer(task: Task, result: Result, answer: str) -> None:
    """Is the answer right; and the failure kinds the end of the run shows."""
    said, cut_off = answer.lower(), "[the reply was cut off" in answer
    stopped = answer.startswith("Stopped:")
    # an answer built on a call that should not have been made is not a right answer
    result.answer_ok = (bool(answer) and not stopped and not cut_off
                        and not result.unneeded_call
                        and all(part.lower() in said for part in task.answer))
    for kind, happened in (("iteration_cap", stopped), ("cut_off", cut_off),
                           ("unneeded_call", result.unneeded_call),
                           ("missed_call", result.missed_call)):
        if happened:
            result.errors.append(kind)


def _is_tool(name, loop) -> bool:
    """True if `name` is a tool of this loop's registry (a model may send any JSON)."""
    if not isinstance(name, str):
        return False
    names = loop.TOOLS if isinstance(loop.TOOLS, dict) else [t.name for t in loop.TOOLS]
    return name in names


def _holds(args, wanted: dict) -> bool:
    """True if each wanted argument is there and holds each substring (spaces ignored)."""
    if not isinstance(args, dict):
        return False
    return all(key in args and all(_squash(part) in _squash(args[key]) for part in parts)
               for key, parts in wanted.items())


def _squash(text) -> str:
    """`text` without spaces, lower case: `17*23` holds `17 * 23`'s pieces."""
    return "".join(str(text).split()).lower()


# ---------------------------------------------------------------- the summary


def summarise(results: list[Result]) -> dict[str, dict]:
    """Per protocol: the counts a learner compares (each a number of tasks, or a sum)."""
    out: dict[str, dict] = {}
    for protocol in dict.fromkeys(r.protocol for r in results):
        rows = [r for r in results if r.protocol == protocol]
        errors: dict[str, int] = {}
        for row in rows:
            for kind in row.errors:
                errors[kind] = errors.get(kind, 0) + 1
        out[protocol] = {
            "runs": len(rows),
            "calls": sum(r.attempts for r in rows),
            "well_formed": sum(r.attempts - r.malformed for r in rows),
            "right_tool": sum(r.right_tool for r in rows),
            "right_args": sum(r.right_args for r in rows),
            "answer_ok": sum(r.answer_ok for r in rows),
            "unneeded_calls": sum(r.unneeded_call for r in rows),
            "missed_calls": sum(r.missed_call for r in rows),
            "iterations": sum(r.iterations for r in rows),
            "tokens_in": sum(r.tokens_in for r in rows),
            "tokens_out": sum(r.tokens_out for r in rows),
            "tokens_estimated": any(r.estimated for r in rows),
            "tokens_unreported": sum(r.unreported for r in rows),
            "seconds": round(sum(r.seconds for r in rows), 3),
            "errors": dict(sorted(errors.items())),
        }
    return out


# (the label's message id, the cell); `lang` only for the words some cells hold
ROWS = [("compare.well_formed", lambda s, lang: f"{s['well_formed']}/{s['calls']}"),
        ("compare.right_tool", lambda s, lang: f"{s['right_tool']}/{s['runs']}"),
        ("compare.right_args", lambda s, lang: f"{s['right_args']}/{s['runs']}"),
        ("compare.answer_ok", lambda s, lang: f"{s['answer_ok']}/{s['runs']}"),
        ("compare.unneeded", lambda s, lang: str(s["unneeded_calls"])),
        ("compare.missed", lambda s, lang: str(s["missed_calls"])),
        ("compare.iterations", lambda s, lang: str(s["iterations"])),
        ("compare.tokens", lambda s, lang: _tokens(s, lang)),
        ("compare.wall_time", lambda s, lang: message("compare.seconds", lang,
                                                      seconds=f"{s['seconds']:.2f}"))]


def _tokens(s: dict, lang: str | None = None) -> str:
    """The token counts, said to be estimates or missing where they are: a server that
    sends no counts gets no 0 in the table."""
    if s.get("tokens_unreported", 0) == s["runs"]:
        return message("compare.unreported", lang)
    counts = f"{s['tokens_in']} / {s['tokens_out']}"
    if s.get("tokens_unreported"):
        counts += message("compare.not_counted", lang, runs=s["tokens_unreported"])
    return counts + (message("compare.estimated", lang) if s["tokens_estimated"] else "")


def table(summary: dict, title: str, lang: str | None = None) -> Table:
    """The summary as a rich table, one column per protocol, in `lang` (tao's language)."""
    grid = Table(title=Text(title), title_justify="left")  # Text: never read as markup
    grid.add_column("")
    for protocol in summary:
        grid.add_column(protocol, justify="right")
    for label, show in ROWS:
        grid.add_row(message(label, lang), *(show(s, lang) for s in summary.values()))
    kinds = sorted({kind for s in summary.values() for kind in s["errors"]})
    for kind in kinds:
        grid.add_row(message("compare.error_row", lang, kind=kind),
                     *(str(s["errors"].get(kind, 0)) for s in summary.values()))
    return grid


def by_kind(results: list[Result]) -> dict[str, dict[str, str]]:
    """Task kind -> protocol -> "right answers/runs": where each protocol loses its points."""
    out: dict[str, dict[str, str]] = {}
    for result in results:
        cell = out.setdefault(result.kind, {}).setdefault(result.protocol, [0, 0])
        cell[0] += result.answer_ok
        cell[1] += 1
    return {kind: {protocol: f"{right}/{runs}" for protocol, (right, runs) in cells.items()}
            for kind, cells in out.items()}


def kind_table(kinds: dict[str, dict[str, str]], lang: str | None = None) -> Table:
    """Right answers per task kind, one column per protocol."""
    protocols = list(dict.fromkeys(p for cells in kinds.values() for p in cells))
    grid = Table(title=message("compare.by_kind", lang), title_justify="left")
    grid.add_column(message("compare.kind", lang))
    for protocol in protocols:
        grid.add_column(protocol, justify="right")
    for kind, cells in kinds.items():  # a task file's kind: shown as it is, never markup
        grid.add_row(Text(visible(kind)), *(cells.get(p, "–") for p in protocols))
    return grid


def next_steps(summary: dict, lang: str | None = None) -> list[str]:
    """One line per failure kind seen: where it happened, and the fix the kit teaches."""
    kinds = sorted({kind for s in summary.values() for kind in s["errors"]})
    return [f"{kind} ({', '.join(p for p, s in summary.items() if kind in s['errors'])}): "
            f"{message(FIXES[kind], lang)}" for kind in kinds]


def markdown(summary: dict) -> str:
    """The summary as a Markdown table (what the README's tables are). English whatever
    tao's language: stage 07's README and its French twin embed it as it is."""
    lines = ["| | " + " | ".join(summary) + " |", "|---|" + "---:|" * len(summary)]
    for label, show in ROWS[:-1]:  # wall time differs run to run: not in a checked table
        lines.append(f"| {message(label, 'en')} | "
                     + " | ".join(show(s, "en") for s in summary.values()) + " |")
    return "\n".join(lines)


def quirk_summaries(tasks: list[Task], protocols: list[str]) -> dict[str, dict]:
    """The offline model with no quirk, then with each: quirk -> summary. Deterministic."""
    from shared.providers.offline import QUIRKS

    out = {}
    # gullible obeys lines planted in tool results; no task plants one (tao drill does)
    for quirk in ("", *(q for q in QUIRKS if q != "gullible")):
        provider = build_provider("offline", **({"quirk": quirk} if quirk else {}))
        out[quirk or "none"] = summarise(compare(provider, protocols, tasks))
    return out


def quirk_markdown(summaries: dict[str, dict]) -> str:
    """Per quirk and protocol: well-formed calls, right answers, iterations, what broke."""
    protocols = list(next(iter(summaries.values())))
    cells = ["well-formed", "right answers", "iterations", "errors"]
    lines = ["| quirk | " + " | ".join(f"{p}: {c}" for p in protocols for c in cells) + " |",
             "|---|" + "---:|---:|---:|---|" * len(protocols)]
    for quirk, summary in summaries.items():
        row = []
        for protocol in protocols:
            s = summary[protocol]
            broke = ", ".join(f"{kind} {n}" for kind, n in s["errors"].items()
                              if kind not in ("missed_call", "unneeded_call")) or "–"
            row += [f"{s['well_formed']}/{s['calls']}", f"{s['answer_ok']}/{s['runs']}",
                    str(s["iterations"]), broke]
        lines.append(f"| `{quirk}` | " + " | ".join(row) + " |")
    return "\n".join(lines)


def svg_chart(summary: dict) -> str:
    """A bar chart, drawn by hand: per measure, one bar a protocol, the share it got right.
    Sixteen rectangles need no plotting library, and the page needs nothing fetched."""
    measures = [("well-formed", "well_formed", "calls"), ("right tool", "right_tool", "runs"),
                ("right args", "right_args", "runs"), ("answer", "answer_ok", "runs")]
    colours = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759"]
    bar, gap, height, top = 26, 30, 200, 20  # top: room for the label over a full bar
    base = top + height  # the y of 0%
    width = 60 + len(measures) * (len(summary) * bar + gap)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{base + 60}" '
             f'role="img" aria-label="share right, per protocol">']
    for step in range(0, 101, 25):
        y = base - step * height / 100
        parts.append(f'<line x1="40" x2="{width}" y1="{y}" y2="{y}" stroke="#ddd"/>'
                     f'<text x="34" y="{y + 4}" font-size="11" text-anchor="end">{step}%</text>')
    x = 50
    for label, key, of in measures:
        for index, (protocol, s) in enumerate(summary.items()):
            share = s[key] / s[of] if s[of] else 0
            h = share * height
            parts.append(f'<rect x="{x}" y="{base - h}" width="{bar - 2}" height="{h}" '
                         f'fill="{colours[index % len(colours)]}"><title>'
                         f'{html.escape(protocol)}: {s[key]}/{s[of]}</title></rect>'
                         f'<text x="{x + bar / 2 - 1}" y="{base - h - 4}" font-size="9" '
                         f'text-anchor="middle">{share:.0%}</text>')
            x += bar
        parts.append(f'<text x="{x - len(summary) * bar / 2}" y="{base + 18}" font-size="12" '
                     f'text-anchor="middle">{label}</text>')
        x += gap
    for index, protocol in enumerate(summary):
        parts.append(f'<rect x="{50 + index * 90}" y="{base + 32}" width="12" height="12" '
                     f'fill="{colours[index % len(colours)]}"/><text x="{66 + index * 90}" '
                     f'y="{base + 42}" font-size="12">{html.escape(protocol)}</text>')
    return "".join(parts) + "</svg>"


def html_report(summary: dict, results: list[Result], title: str) -> str:
    """A page that opens from file:// with nothing fetched: the chart, the table, the next
    steps, and every task's row."""
    head = "".join(f"<th>{html.escape(p)}</th>" for p in summary)
    body = "".join(f"<tr><td>{message(label, 'en')}</td>" + "".join(  # the page: English
        f"<td>{show(s, 'en')}</td>" for s in summary.values()) + "</tr>" for label, show in ROWS)
    tasks = "".join(
        f"<tr><td>{html.escape(r.task)}</td><td>{r.protocol}</td><td>{html.escape(r.kind)}</td>"
        f"<td>{'✓' if r.right_tool else '✗'}</td><td>{'✓' if r.right_args else '✗'}</td>"
        f"<td>{'✓' if r.answer_ok else '✗'}</td><td>{html.escape(', '.join(r.errors))}</td>"
        f"<td>{html.escape(r.answer[:160])}</td></tr>" for r in results)
    steps = "".join(f"<li>{html.escape(line)}</li>" for line in next_steps(summary, "en"))
    kinds = by_kind(results)
    kind_rows = "".join(f"<tr><td>{html.escape(kind)}</td>" + "".join(
        f"<td>{cells.get(p, '–')}</td>" for p in summary) + "</tr>"
        for kind, cells in kinds.items())
    return (f"<!doctype html><meta charset='utf-8'>{REPORT_MARK}<title>{html.escape(title)}"
            "</title>"
            "<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:"
            "collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}</style>"
            f"<h1>{html.escape(title)}</h1>{svg_chart(summary)}"
            f"<table><tr><th></th>{head}</tr>{body}</table>"
            f"<h2>Right answers, by kind of task</h2><table><tr><th>kind</th>{head}</tr>"
            f"{kind_rows}</table><h2>Next steps</h2><ul>{steps}</ul>"
            "<h2>Every task</h2><table><tr><th>task</th><th>protocol</th><th>kind</th>"
            f"<th>tool</th><th>args</th><th>answer</th><th>errors</th><th>said</th></tr>{tasks}"
            "</table>")


# ---------------------------------------------------------------- the verb


def compare(provider, protocols: list[str], tasks: list[Task], runs: int = 1,
            progress=None, router: ByProtocol | None = None) -> list[Result]:
    """Every task through every protocol, `runs` times, in a fixed order (so a recording
    replays): task by task, protocol by protocol; `router` (behind `provider`, or it)
    is told which protocol runs."""
    loops = {protocol: load_protocol(protocol) for protocol in protocols}
    histories = {protocol: examples_for(protocol, loops[protocol]) for protocol in protocols}
    results = []
    for _ in range(runs):
        for task in tasks:
            for protocol in protocols:
                if router is not None:
                    router.protocol = protocol
                results.append(run_task(task, protocol, loops[protocol], provider,
                                        histories[protocol]))
                if progress is not None:
                    progress()
    return results


def cmd_compare(args, console: Console) -> int:
    """`tao compare`: run, then the table, the next steps, and what was asked for."""
    protocols = chosen_protocols(args.protocols)
    tasks = load_tasks(Path(args.tasks) if args.tasks else TASKS)
    if args.quirk == "all":  # the offline model, once per quirk: the README's quirk table
        if args.provider not in (None, "offline"):
            raise CLIError(message("error.quirk_all"))
        summaries = quirk_summaries(tasks, protocols)
        print(json.dumps(summaries, indent=1) if args.json else quirk_markdown(summaries))
        return 0
    provider, router = answering(args, protocols)
    # the model's name comes from outside (TAO_MODEL, a recording): shown, never obeyed
    run = {"provider": visible(provider.describe()), "tasks": len(tasks), "runs": args.runs}
    try:
        results = _run_with_progress(provider, protocols, tasks, args.runs, console,
                                     args.json, router)
    except Divergence as exc:
        raise CLIError(message("error.divergence", why=exc)) from None
    summary = summarise(results)
    if args.html:
        page = html_report(summary, results, message("compare.title", "en", **run))
        try:  # a file: English, like --markdown; whole or not at all
            write_whole(args.html, page)
        except OSError as exc:
            raise CannotWrite(message("error.cannot_write", file=repr(args.html),
                                      why=exc.strerror or exc)) from None
    show(args, console, run, summary, results)
    return 0


def chosen_protocols(names: str) -> list[str]:
    """The protocols --protocols names, each once, in order; CLIError if one is unknown
    or none is named."""
    protocols = list(dict.fromkeys(p.strip() for p in names.split(",") if p.strip()))
    for protocol in protocols:
        if protocol not in PROTOCOLS:
            raise CLIError(message("error.no_protocol", protocol=repr(protocol),
                                   choices=", ".join(PROTOCOLS)))
    if not protocols:
        raise CLIError(message("error.no_protocols", choices=", ".join(PROTOCOLS)))
    return protocols


def answering(args, protocols: list[str]):
    """(the model the tasks go to, the ByProtocol router in front of it or None): the
    provider asked for, the local model for "constrained" (left out, with a line, where it
    cannot run), and a Recorder around both with --record."""
    name, _ = choose_provider(args.provider)
    router = None
    try:
        model = args.model or os.environ.get("TAO_MODEL") or None  # as a stage reads it
        provider = build_provider(name, model, **({"quirk": args.quirk}
                                                   if args.quirk else {}))
        grammar = [p for p in protocols if p in HELD]
        if grammar and not name.startswith("replay:"):
            held, why = held_to_grammar(name, model)
            if held is None:  # the others still run: one line says what is left out
                protocols[:] = [p for p in protocols if p not in HELD]
                print(visible(message("compare.left_out", protocols=", ".join(grammar),
                                      why=why)), file=sys.stderr)
                if not protocols:
                    raise CLIError(message("error.none_left"))
            else:
                provider = router = ByProtocol(provider, held)
        if args.record:  # with the options that make the same run: `tao replay FILE`
            again = kept_options("compare", {"protocols": ",".join(protocols),
                                             "runs": args.runs, "tasks": args.tasks})
            provider = Recorder(provider, args.record, {"verb": "compare", "argv": again})
    except (ProviderError, TypeError) as exc:
        raise CLIError(str(exc)) from None
    return provider, router


def show(args, console: Console, run: dict, summary: dict, results: list[Result]) -> None:
    """What was asked for: JSON, a Markdown table, or the tables and the next steps."""
    if args.json:
        print(json.dumps({**run, "summary": summary, "by_kind": by_kind(results),
                          "results": [asdict(r) for r in results]}, indent=1))
        return
    if args.markdown:
        print(markdown(summary))
        return
    console.print(table(summary, message("compare.title", **run)))
    console.print(kind_table(by_kind(results)))
    for line in next_steps(summary):
        console.print(f"• {line}", markup=False, highlight=False)
    if args.html:
        console.print(message("compare.report", file=visible(args.html)), markup=False)


def _run_with_progress(provider, protocols, tasks, runs, console, quiet,
                       router=None) -> list[Result]:
    """compare(), with a progress bar on a terminal (none under --json or in a pipe)."""
    if quiet or not console.is_terminal:
        return compare(provider, protocols, tasks, runs, router=router)
    from rich.progress import Progress

    with Progress(console=console, transient=True) as bar:
        job = bar.add_task(message("compare.comparing"), total=len(tasks) * len(protocols) * runs)
        return compare(provider, protocols, tasks, runs, lambda: bar.advance(job), router)
