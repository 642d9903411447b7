"""Showing the wire on a rich console: the request as JSON, the response as a log.

Long strings are elided in the middle with their full length, so a 4,000-character
tool result stays one readable line or two; everything else is shown as it is. Long
lines wrap at spaces instead of being cropped, so nothing disappears at 80 columns.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.text import Text

from ..providers.base import redact
from .events import Line, preview, usage_text

STRING_LIMIT = 1000  # characters of one string shown whole: a stage's system prompt fits
STYLE = {"rule": "blue", "note": "dim", "kind": "bold cyan", "count": "yellow",
         "detail": "default", "payload": "green", "error": "bold red"}


def elide(text: str, limit: int = STRING_LIMIT) -> str:
    """`text` if it fits in `limit`, else its head and tail around `… [N chars] …`."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[len(text) - limit // 3:]
    return f"{head}… [{len(text):,} chars] …{tail}"


def elided(value, limit: int = STRING_LIMIT, secrets: Iterable[str | None] = ()):
    """A copy of a JSON value with every long string elided and any key hidden."""
    if isinstance(value, str):
        return elide(redact(value, secrets), limit)
    if isinstance(value, dict):
        return {key: elided(item, limit, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [elided(item, limit, secrets) for item in value]
    return value


def show_request(console: Console, body: dict, title: str, note: str,
                 secrets: Iterable[str | None] = ()) -> None:
    """The request body as highlighted JSON, under a rule naming where it goes."""
    console.rule(Text(title, STYLE["rule"]), style=STYLE["rule"], align="left")
    console.print(Text(note, STYLE["note"]))
    text = layout(elided(body, secrets=secrets), console.width)
    shown = JSONHighlighter()(Text(text, no_wrap=False, overflow="fold"))
    console.print(shown, soft_wrap=False)  # long lines wrap at spaces, never cropped


def layout(value, width: int, indent: int = 0, start: int = 0) -> str:
    """Pretty JSON that keeps an object or list on one line when it fits in `width`.

    `indent` is the nesting depth's indent, `start` the column the value begins at."""
    flat = json.dumps(value, ensure_ascii=False, default=str)
    if not isinstance(value, (dict, list)) or not value or start + len(flat) < width:
        return flat  # (one column is kept for a trailing comma)
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            head = f"{pad}{json.dumps(key, ensure_ascii=False)}: "
            items.append(head + layout(item, width, indent + 2, len(head)))
    else:
        items = [pad + layout(item, width, indent + 2, len(pad)) for item in value]
    opening, closing = "{}" if isinstance(value, dict) else "[]"
    return opening + "\n" + ",\n".join(items) + "\n" + " " * indent + closing


def show_response(console: Console, lines: list[Line], title: str, note: str,
                  reply=None, footer: str = "", secrets: Iterable[str | None] = ()) -> None:
    """The response log: event lines (deltas folded), then what the provider assembled."""
    console.rule(Text(title, STYLE["rule"]), style=STYLE["rule"], align="left")
    console.print(Text(note, STYLE["note"]))
    for line in lines:
        console.print(log_line(line, secrets))
    if reply is not None:
        for call in reply.tool_calls:
            text = Text("tool call ", STYLE["kind"]) + Text(f"{call.id} {call.name} ")
            text += Text(redact(json.dumps(call.args, ensure_ascii=False), secrets),
                         STYLE["payload"])
            if call.error:
                text += Text(f"  ({call.error})", STYLE["error"])
            console.print(text)
        console.print(Text("stop_reason ", STYLE["kind"]) + Text(reply.stop_reason)
                      + Text("  usage ", STYLE["kind"]) + Text(usage_text(reply.usage)))
    if footer:
        console.print(Text(footer, STYLE["note"]))


def log_line(line: Line, secrets: Iterable[str | None] = ()) -> Text:
    """`content_block_delta ×37 text_delta "Hello wor…" (212 chars)`, as styled text."""
    text = Text(line.kind, STYLE["kind"])
    if line.count > 1:
        text += Text(f" ×{line.count}", STYLE["count"])
    if line.detail:
        text += Text(" " + redact(line.detail, secrets), STYLE["detail"])
    if line.pieces:
        text += Text(" " + preview(redact("".join(line.pieces), secrets), line.payload),
                     STYLE["payload"])
    return text
