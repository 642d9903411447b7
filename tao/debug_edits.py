"""What `tao debug` keeps: the learner's changes to the messages, and the session as a script.

`Changes` is an overlay on what the stage sends. An edit, a drop or an injection is kept as
"the Nth message equal to this one becomes these", and applied to every later request, so
the stage's own history keeps what the stage computed while the model goes on seeing the
learner's version. `Script` keeps each request as the stage made it and the reply it got
(the model's, or the learner's), in the shape `--provider replay:FILE` and `TAO_SCRIPT`
read (shared/providers/replay.py), with the learner's changes said beside each request.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from shared.files import write_whole
from shared.providers import ProviderError, Reply
from shared.providers.base import redact
from shared.providers.replay import reply_record, request_record

from .i18n import text

SAVED_BY = "tao debug"  # what marks a script this verb wrote, and may write again
ROLES = ("user", "assistant", "tool")
LARGEST = 20_000_000  # bytes: a bigger file is no script tao debug saved


class Refused(Exception):
    """What the learner asked for cannot be done; the message says why, in one line."""


@dataclass
class Change:
    """The `nth` message equal to `original` (0: the first) `becomes` these messages."""

    original: dict
    nth: int
    becomes: list[dict]

    def applied(self, messages: list[dict]) -> list[dict]:
        """`messages` with this change made, if the message is there; else as they are."""
        found = [i for i, message in enumerate(messages) if message == self.original]
        if len(found) <= self.nth:
            return messages
        i = found[self.nth]
        return messages[:i] + copy.deepcopy(self.becomes) + messages[i + 1:]


class Changes:
    """The learner's changes to the messages, in the order made."""

    def __init__(self):
        self.made: list[Change] = []

    def apply(self, messages: list[dict]) -> list[dict]:
        """What the model is sent instead of `messages`: every change made, in order."""
        for change in self.made:
            messages = change.applied(messages)
        return list(messages)

    def replace(self, sent: list[dict], index: int, becomes: list[dict]) -> None:
        """From now on, message `index` of `sent` (what the model sees) becomes `becomes`."""
        original = sent[index]
        nth = sum(message == original for message in sent[:index])
        self.made.append(Change(copy.deepcopy(original), nth, copy.deepcopy(becomes)))


def message_number(word: str, sent: list[dict]) -> int:
    """The index of message `word` (counted from 1) in `sent`; Refused if there is none."""
    if not word.isdigit() or not 1 <= int(word) <= len(sent):
        raise Refused(text("debug.no_message", number=word or "?", count=len(sent)))
    return int(word) - 1


def checked_message(value) -> dict:
    """`value` if it reads as a message (an object with a known role); Refused if not."""
    if not isinstance(value, dict) or value.get("role") not in ROLES:
        raise Refused(text("debug.not_a_message", roles=", ".join(ROLES)))
    if not isinstance(value.get("content", ""), str):
        raise Refused(text("debug.content_not_text"))
    return value


def typed_message(line: str, message: dict) -> dict:
    """The message as a line typed inline makes it: a whole message (a JSON object with a
    "role"), or else the new content of this one (a JSON call line stays content)."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, dict) and "role" in value:
        return checked_message(value)
    return dict(message, content=line)


def typed_arguments(line: str) -> dict:
    """A call's arguments typed as a JSON object; Refused if they are not one."""
    try:
        args = json.loads(line)
    except ValueError as exc:
        raise Refused(text("debug.bad_json", why=exc)) from None
    if not isinstance(args, dict):
        raise Refused(text("debug.args_not_object"))
    return args


def in_editor(value, editor: str):
    """`value` as the learner left it after editing it as JSON in `editor` (None: they
    changed nothing); Refused for an editor that failed or JSON that does not parse."""
    handle, path = tempfile.mkstemp(prefix="tao-debug-", suffix=".json")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(json.dumps(value, indent=2, ensure_ascii=False) + "\n")
        try:
            done = subprocess.run([*shlex.split(editor), path], check=False)
        except (OSError, ValueError) as exc:
            raise Refused(text("debug.editor_failed", editor=editor, why=exc)) from None
        if done.returncode != 0:
            raise Refused(text("debug.editor_failed", editor=editor,
                               why=f"exit {done.returncode}"))
        edited = Path(path).read_text(encoding="utf-8", errors="replace")
    finally:
        Path(path).unlink(missing_ok=True)
    try:
        new = json.loads(edited)
    except ValueError as exc:
        raise Refused(text("debug.bad_json", why=exc)) from None
    return None if new == value else new


# ---------------------------------------------------------------- the session as a script


class Script:
    """Each request as the stage made it, and the reply it got; `save` writes them."""

    def __init__(self, session: dict | None):
        self.session = dict(session or {}, saved_by=SAVED_BY)
        self.entries: list[dict] = []
        self.typed: list[str] = []  # lines typed since the last request

    def request(self, call: tuple, model: str, notes: list[str]) -> dict:
        """The entry for one request (`call`: messages, system, tools, options), with who
        answers, the lines typed before it, and what the learner changed."""
        request = request_record(*call)
        request["model"] = model
        if not self.entries:
            request["session"] = self.session
        if self.typed:
            request["typed"], self.typed = self.typed, []
        if notes:
            request["yours"] = notes  # not compared by a replay: said, for the reader
        return {"request": request}

    def answered(self, entry: dict, items: Iterator) -> Iterator:
        """The reply's items, passed on; the reply (or the fault) is kept with `entry`."""
        shown: list[str] = []
        try:
            for item in items:
                if isinstance(item, Reply):
                    entry.update(reply_record(item))
                elif isinstance(item, str):
                    shown.append(item)
                yield item
        except ProviderError as exc:  # replayed as the same fault
            entry.update(error=str(exc), partial=exc.partial or "".join(shown))
            raise
        finally:
            if len(entry) > 1:
                self.entries.append(entry)

    def save(self, where: str, secrets=()) -> Path:
        """Write the session so far to `where`, whole or not at all; Refused (one line) for
        a file this verb did not save, or one it cannot write."""
        path = writable(where)
        if not self.entries:
            raise Refused(text("debug.nothing_to_save"))
        data = json.dumps(self.entries, indent=1, ensure_ascii=False) + "\n"
        try:
            write_whole(path, redact(data, secrets))
        except OSError as exc:
            raise Refused(text("debug.cannot_write", path=where, why=exc.strerror)) from None
        return path


def writable(where: str) -> Path:
    """The path `save` may write to: new, or a script this verb saved; Refused if not."""
    if not where:
        raise Refused(text("debug.save_what"))
    path = Path(where).expanduser()
    if path.is_dir():
        raise Refused(text("debug.save_folder", path=where))
    if not path.parent.is_dir():
        raise Refused(text("debug.save_no_folder", path=where, folder=str(path.parent)))
    if path.exists() and not saved_here(path):
        raise Refused(text("debug.not_ours", path=where))
    return path


def saved_here(path: Path) -> bool:
    """Whether `path` holds a script `tao debug` saved (read as hostile: any bytes)."""
    try:
        if not path.is_file() or path.stat().st_size > LARGEST:
            return False
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    first = entries[0] if isinstance(entries, list) and entries else None
    request = first.get("request") if isinstance(first, dict) else None
    session = request.get("session") if isinstance(request, dict) else None
    return isinstance(session, dict) and session.get("saved_by") == SAVED_BY
