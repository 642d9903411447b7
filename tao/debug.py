"""`tao debug N [stage options]`: a stage's own loop, paused before each model request and
before each tool call runs, to see what goes through it, change it, or answer by hand.

    uv run tao debug 07                     # stage 07 on the offline model, paused
    uv run tao debug 05 --provider openai   # the stage's own options after its number

The stage runs unchanged, in this process (as `tao replay` runs one). The debugger stands
on three seams every stage already has, and copies no loop:
- the provider: a `Wrapper` (shared/providers/base.py), put around the stage's own through
  `shared.stage_main.AROUND`, sees each request before it goes; it may send the model an
  edited copy, or answer the request itself (`reply`);
- the trace: its `act`, which every stage from 04 calls before a tool call runs, is where
  a call pauses (in the main thread, before stage 10's timeouts start); its `prompt`, a
  new line typed, re-arms the pauses after `continue`;
- the tool registry (stage 04-06's dict of functions, 07 on a list of `Tool`s): each
  tool's callable is wrapped before the session starts, so a call the learner skipped
  does not run. Arguments the learner edits are changed where the stage holds them, so
  the tool, the conversation, and whatever judges a call before it runs (stage 13's
  approver, its audit log) all see the learner's.
An edited message is an overlay (debug_edits.Changes): the stage keeps what it computed,
the model sees the learner's version in every later request. Every change shows on the
trace as the learner's (`Trace.yours`). Ctrl-C or the end of input at a pause ends the
session at once (exit 130, or 0): nothing more is sent, and no call runs unasked.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from shared.providers import Reply
from shared.providers.base import NO_OPTIONS, Options, Tool, Wrapper
from shared.stage_main import AROUND
from shared.trace import shown, visible

from .debug_edits import (
    Changes,
    Refused,
    Script,
    checked_message,
    in_editor,
    message_number,
    typed_arguments,
    typed_message,
)
from .i18n import text
from .replay import run_stage_here
from .repo import find_stage

SKIPPED = "skipped by the user"  # what a skipped call returns: the stage, and the model, read it
PROMPT = "debug> "


@dataclasses.dataclass
class Skip:
    """A call the learner skipped: its tool, and the arguments the stage holds for it (the
    very object the tool would get)."""

    name: str
    given: object


class Debugger(Wrapper):
    """The stage's provider, paused before each request; it also pauses the stage's calls."""

    def __init__(self, provider, trace, session: dict | None, folder: Path):
        super().__init__(provider)
        self.trace, self.stepping, self.requests = trace, True, 0
        self.changes, self.script = Changes(), Script(session)
        self.skips: list[Skip] = []  # calls about to come, that must not run
        self.notes: list[str] = []  # what the learner changed since the last request
        self.lock = threading.Lock()  # stage 10 runs its tools in threads
        self.helped = False
        act, prompt = trace.act, trace.prompt

        def paused_act(name, args, call_id: str = "") -> None:
            act(name, args, call_id)
            if self.stepping:
                self.pause_at_call(name, args, call_id)

        def new_turn() -> str:
            line = prompt()
            self.script.typed.append(line)
            self.stepping = True  # `continue` lasts until the learner types again
            return line

        trace.act, trace.prompt = paused_act, new_turn
        wrap_registry(stage_registry(folder), self.ruled)
        trace.note(text("debug.started", stage=folder.name))

    # ------------------------------------------------------------ the model request

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """Pause before the request; then send what the learner left, or their reply."""
        self.requests += 1
        self.forget_unused_skips()
        by_hand = self.pause_at_request(messages, system, tools) if self.stepping else None
        notes, self.notes = self.notes, []
        entry = self.script.request((messages, system, tools, options),
                                    self.provider.describe(), notes)
        if by_hand is None:
            sent = self.changes.apply(messages)
            yield from self.script.answered(entry, self.provider.turn(sent, system, tools,
                                                                      options))
            return
        yield from self.script.answered(entry, iter((by_hand, Reply(by_hand))))

    def pause_at_request(self, messages, system, tools) -> str | None:
        """The learner's commands until they go on; their reply by hand, or None."""
        sent = self.changes.apply(messages)
        self.header(text("debug.at_request", number=self.requests, count=len(sent)))
        while True:
            word, rest = self.read()
            if word in ("", "step", "continue"):
                self.stepping = word != "continue"
                return None
            if word == "reply" and rest:
                self.mark(text("debug.yours_reply", number=self.requests), rest,
                          f"request {self.requests} answered by the learner")
                return rest
            try:
                self.on_request(word, rest, messages, system, tools)
            except Refused as exc:
                self.trace.note(str(exc))

    def on_request(self, word: str, rest: str, messages, system, tools) -> None:
        """One command at a request's pause (not one that goes on)."""
        sent = self.changes.apply(messages)
        if word == "show":
            self.show_request(rest, sent, system, tools)
        elif word == "edit":
            number, _, content = rest.partition(" ")
            self.edit_message(sent, message_number(number, sent), content.strip())
        elif word == "drop":
            index = message_number(rest, sent)
            self.changes.replace(sent, index, [])
            self.mark(text("debug.yours_dropped", number=index + 1),
                      str(sent[index].get("content") or ""), f"message {index + 1} dropped")
        elif word == "inject":
            self.inject(sent, rest, native=bool(tools))
        elif word == "reply":
            raise Refused(text("debug.reply_what"))
        else:
            self.common(word, rest, "debug.request_commands")

    def edit_message(self, sent: list[dict], index: int, content: str) -> None:
        """Message `index` replaced: by `content`, else as edited in $EDITOR or typed."""
        message = sent[index]
        editor = os.environ.get("EDITOR", "").strip()
        if content:
            new = typed_message(content, message)
        elif editor:
            new = in_editor(message, editor)
            new = None if new is None else checked_message(new)
        else:
            self.trace.note(text("debug.inline_message", content=shown(message)))
            line = self.ask(text("debug.new_content"))
            new = typed_message(line, message) if line.strip() else None
        if new is None or new == message:
            self.trace.note(text("debug.unchanged"))
            return
        self.changes.replace(sent, index, [new])
        body = new["content"] if set(new) == set(message) else json.dumps(new, indent=2)
        self.mark(text("debug.yours_edited", number=index + 1), body,
                  f"message {index + 1} edited")

    def inject(self, sent: list[dict], rest: str, native: bool) -> None:
        """`inject [user] TEXT` or `inject tool NAME TEXT`, after the last message."""
        kind, _, words = rest.partition(" ")
        if kind not in ("user", "tool"):
            kind, words = "user", rest
        name, _, result = words.partition(" ")
        if not words.strip() or (kind == "tool" and not result.strip()):
            raise Refused(text("debug.inject_what"))
        if kind == "user":
            added = [{"role": "user", "content": words}]
        elif native:  # a result must answer a call: the learner's call, with its id
            call_id = f"by_you_{self.requests}_{len(self.changes.made) + 1}"
            added = [{"role": "assistant", "content": "",
                      "tool_calls": [{"id": call_id, "name": name, "args": {}}]},
                     {"role": "tool", "tool_call_id": call_id, "name": name,
                      "content": result}]
        else:  # the JSON-line protocol's observation (stage 05's), as a user message
            added = [{"role": "user", "content": f"<tool_result tool={json.dumps(name)}>\n"
                                                 f"{result}\n</tool_result>"}]
        self.changes.replace(sent, len(sent) - 1, [sent[-1], *added])
        self.mark(text("debug.yours_injected", number=len(sent) + 1),
                  "\n".join(str(m["content"]) for m in added if m["content"]),
                  f"{kind} message injected after message {len(sent)}")

    # ------------------------------------------------------------ a tool call

    def pause_at_call(self, name, args, call_id: str) -> None:
        """The learner's commands at a call about to run, until they go on."""
        self.header(text("debug.at_call", call=shown(name), args=shown(args)))
        while True:
            word, rest = self.read()
            if word in ("", "step", "continue"):
                self.stepping = word != "continue"
                return
            if word == "skip":
                with self.lock:
                    self.skips.append(Skip(name, args))
                self.mark(text("debug.yours_skipped"), SKIPPED, f"the {name} call skipped")
                return
            try:
                self.on_call(word, rest, name, args, call_id)
            except Refused as exc:
                self.trace.note(str(exc))

    def on_call(self, word: str, rest: str, name, args, call_id: str) -> None:
        """One command at a call's pause (not one that goes on)."""
        if word == "show":
            self.trace.note(text("debug.the_call", call=shown(name), id=call_id or "-")
                            + "\n" + json.dumps(args, indent=2, ensure_ascii=False))
        elif word == "edit":
            if not isinstance(args, dict):
                raise Refused(text("debug.args_unusable"))
            editor = os.environ.get("EDITOR", "").strip()
            new = (typed_arguments(rest) if rest else
                   in_editor(args, editor) if editor else self.typed_arguments(args))
            if new is None or new == args:
                self.trace.note(text("debug.unchanged"))
                return
            new = typed_arguments(json.dumps(new))  # an editor may leave any JSON value
            # in place: whatever judges the call next (stage 13's approver), the tool, and
            # the conversation all see the arguments the learner gave
            args.clear()
            args.update(new)
            self.mark(text("debug.yours_args", call=shown(name)),
                      json.dumps(new, indent=2, ensure_ascii=False),
                      f"the arguments of the {name} call edited")
        else:
            self.common(word, rest, "debug.call_commands")

    def typed_arguments(self, args) -> dict | None:
        """New arguments typed inline (None: the learner kept them)."""
        self.trace.note(text("debug.inline_args", args=shown(args)))
        line = self.ask(text("debug.new_args"))
        return typed_arguments(line) if line.strip() else None

    def ruled(self, name: str, run):
        """`run` (a tool's callable) as the stage will call it: not at all, if skipped."""
        if inspect.iscoroutinefunction(run):
            @functools.wraps(run)
            async def tool(args):
                return SKIPPED if self.skipped(name, args) else await run(args)
        else:
            @functools.wraps(run)
            def tool(args):
                return SKIPPED if self.skipped(name, args) else run(args)
        return tool

    def skipped(self, name: str, args) -> bool:
        """Whether the learner skipped this call (each skip is used once)."""
        with self.lock:
            skip = next((s for s in self.skips if s.given is args), None) or next(
                (s for s in self.skips if s.name == name and s.given == args), None)
            if skip is not None:
                self.skips.remove(skip)
            return skip is not None

    def forget_unused_skips(self) -> None:
        """Skips of calls the stage never ran (it refused them first) are said, then gone."""
        with self.lock:
            unused, self.skips = self.skips, []
        for skip in unused:
            self.trace.note(text("debug.rule_unused", call=shown(skip.name)))

    # ------------------------------------------------------------ what both pauses share

    def common(self, word: str, rest: str, commands: str) -> None:
        """`save`, `help`, or a word that is no command here."""
        if word == "save":
            path = self.script.save(rest, getattr(self.provider, "secrets", ()))
            self.trace.note(text("debug.saved", path=str(path),
                                 count=len(self.script.entries)))
        elif word in ("help", "?"):
            self.trace.note(text(commands))
        else:
            raise Refused(text("debug.unknown", word=word, commands=text(commands)))

    def header(self, line: str) -> None:
        """Say where the loop stopped; the first time, what can be typed."""
        self.trace.note(line)
        if not self.helped:
            self.helped = True
            self.trace.note(text("debug.how"))

    def mark(self, title: str, body: str, note: str) -> None:
        """Show a change as the learner's, and keep it for the saved script."""
        self.trace.yours(text("debug.yours", what=title), body)
        self.notes.append(note)

    def show_request(self, rest: str, sent: list[dict], system: str, tools) -> None:
        """The messages about to be sent, numbered; one whole; the system prompt; tools."""
        if rest == "system":
            self.trace.note(system or text("debug.no_system"))
        elif rest:
            self.trace.note(json.dumps(sent[message_number(rest, sent)], indent=2,
                                       ensure_ascii=False))
        else:
            lines = [f"{i:>3} {who(m):<24} {shown(what(m))}" for i, m in enumerate(sent, 1)]
            names = ", ".join(t.name for t in tools) or "-"
            lines.append(text("debug.also_sent", chars=len(system), tools=names))
            self.trace.note("\n".join(lines))

    def read(self) -> tuple[str, str]:
        """The learner's next command, as (word, the rest)."""
        word, _, rest = self.ask(PROMPT).strip().partition(" ")
        return word.lower(), rest.strip()

    def ask(self, prompt: str) -> str:
        """One line typed at a pause; Ctrl-C or the end of input ends the session."""
        main = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, signal.default_int_handler) if main else None
        try:
            return self.trace.ask(prompt)
        except KeyboardInterrupt:
            leave(130, text("debug.left_ctrl_c"))
        except EOFError:
            leave(0, text("debug.left_eof"))
        finally:
            if main:
                signal.signal(signal.SIGINT, previous)


def leave(code: int, line: str):
    """End the session now, through the stage's own way out (its trace is still saved)."""
    print(f"tao debug: {visible(line)}", file=sys.stderr)
    raise SystemExit(code)


def who(message: dict) -> str:
    """A message's role, and for a tool result the call it answers."""
    if message.get("role") == "tool":
        return f"tool {shown(message.get('name', ''))} · {shown(message.get('tool_call_id'))}"
    return str(message.get("role"))


def what(message: dict) -> str:
    """A message's text, and the calls it asks for, on one line."""
    parts = [str(message.get("content") or "")]
    for call in message.get("tool_calls") or ():
        parts.append(f"→ {call.get('name')} {json.dumps(call.get('args'))} [{call.get('id')}]")
    return " ".join(part for part in parts if part)


def stage_registry(folder: Path):
    """The stage's tool registry (TOOLS: a dict of functions, or a list of Tools), from its
    modules already loaded; None for a stage with no tools (01-03)."""
    for name in ("tools", "loop"):
        module = sys.modules.get(name)
        where = getattr(module, "__file__", None)
        if where and Path(where).resolve().parent == folder.resolve() and hasattr(
                module, "TOOLS"):
            return module.TOOLS
    return None


def wrap_registry(registry, ruled) -> None:
    """Each tool's callable in `registry`, wrapped in place by `ruled(name, run)`."""
    if isinstance(registry, dict):
        for name, run in list(registry.items()):
            registry[name] = ruled(name, run)
    elif isinstance(registry, list):
        registry[:] = [dataclasses.replace(tool, run=ruled(tool.name, tool.run))
                       if dataclasses.is_dataclass(tool) else tool for tool in registry]


def cmd_debug(args, console) -> int:
    """`tao debug`: run stage N in this process, its loop paused at every step."""
    folder = find_stage(args.stage)
    argv = args.args[1:] if args.args[:1] == ["--"] else list(args.args)

    def around(provider, trace, session):
        return Debugger(provider, trace, session, folder)

    AROUND.append(around)
    try:
        return run_stage_here(folder, argv, None)
    finally:
        AROUND.remove(around)


__all__ = ["SKIPPED", "Debugger", "cmd_debug"]
