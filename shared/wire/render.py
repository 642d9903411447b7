"""Showing the wire on a rich console: the request as JSON, the response as a log.

Long strings are elided in the middle with their full length, so a 4,000-character
tool result stays one readable line or two; a value nested deeper than MAX_DEPTH is
shown as its elided JSON text; everything else is shown as it is. Long lines wrap at
spaces instead of being cropped, so nothing disappears at 80 columns. Whatever a server
sent goes through the trace's `visible()` and `redact()` on its way to the screen:
escape sequences and control characters show as the escapes that name them, keys as
`[key hidden]`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.text import Text

from ..printable import visible
from ..providers.base import redact
from .events import Line, preview, usage_text

STRING_LIMIT = 1000  # characters of one string shown whole: a stage's system prompt fits
MAX_DEPTH = 32  # levels of nesting laid out; deeper values are shown as their JSON text
STYLE = {"rule": "blue", "note": "dim", "kind": "bold cyan", "count": "yellow",
         "detail": "default", "payload": "green", "error": "bold red"}


def elide(text: str, limit: int = STRING_LIMIT) -> str:
    """`text` if it fits in `limit`, else its head and tail around `… [N chars] …`."""
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[len(text) - limit // 3:]
    return f"{head}… [{len(text):,} chars] …{tail}"


def elided(value, limit: int = STRING_LIMIT, secrets: Iterable[str | None] = (),
           depth: int = 0):
    """A copy of a JSON value with every long string elided and any key hidden; past
    MAX_DEPTH levels, the rest is one string: its JSON text, elided."""
    if isinstance(value, str):
        return elide(redact(value, secrets), limit)
    if isinstance(value, (dict, list)) and depth >= MAX_DEPTH:
        return f"[nested deeper than {MAX_DEPTH} levels: {flat_json(value, 200)}]"
    if isinstance(value, dict):
        return {key: elided(item, limit, secrets, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [elided(item, limit, secrets, depth + 1) for item in value]
    return value


def flat_json(value, limit: int = STRING_LIMIT) -> str:
    """`value` as one line of JSON, elided past `limit` characters; never raises."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__} that cannot be shown as JSON>"
    return elide(text, limit)


def on_screen(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Server text made safe to print: keys hidden, control characters shown as escapes."""
    return visible(redact(text, secrets))


def show_request(console: Console, body: dict, title: str, note: str,
                 secrets: Iterable[str | None] = ()) -> None:
    """The request body as highlighted JSON, under a rule naming where it goes."""
    console.rule(Text(on_screen(title, secrets), STYLE["rule"]), style=STYLE["rule"],
                 align="left")
    console.print(Text(note, STYLE["note"]))
    text = visible(layout(elided(body, secrets=secrets), console.width))
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
            text = Text("tool call ", STYLE["kind"])
            label = f"{elide(str(call.id), 200)} {elide(str(call.name), 200)} "
            text += Text(on_screen(label, secrets))
            text += Text(on_screen(flat_json(call.args), secrets), STYLE["payload"])
            if call.error:
                text += Text(on_screen(f"  ({call.error})", secrets), STYLE["error"])
            console.print(text)
        console.print(Text("stop_reason ", STYLE["kind"])
                      + Text(on_screen(str(reply.stop_reason), secrets))
                      + Text("  usage ", STYLE["kind"])
                      + Text(on_screen(usage_text(reply.usage), secrets)))
    if footer:
        console.print(Text(on_screen(footer, secrets), STYLE["note"]))


def log_line(line: Line, secrets: Iterable[str | None] = ()) -> Text:
    """`content_block_delta ×37 text_delta "Hello wor…" (212 chars)`, as styled text."""
    text = Text(on_screen(line.kind), STYLE["kind"])
    if line.count > 1:
        text += Text(f" ×{line.count}", STYLE["count"])
    if line.detail:
        text += Text(" " + on_screen(elide(line.detail), secrets), STYLE["detail"])
    if line.pieces:
        joined = "".join(line.pieces)
        text += Text(" " + on_screen(preview(redact(joined, secrets), line.payload)),
                     STYLE["payload"])
    return text
