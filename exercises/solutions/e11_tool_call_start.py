"""Exercise 11: know a tool call is coming before its arguments have arrived.

A user interface wants to show "calling wordcount…" the moment the model starts a
call, not after its (possibly long) arguments have streamed in. Write
`tool_call_starts(kind, event, seen)`: given one event of a provider's stream, return
the names of the tool calls that *start* in it (usually none, sometimes one).

    anthropic: an event of type "content_block_start" whose content_block is a tool_use
    openai:    a chunk whose choices[0].delta.tool_calls has an index not seen before
               (only the first fragment of a call carries its name; later ones only
               carry argument text)

`seen` is a set you may use to remember indexes between events of one stream.
"""


def tool_call_starts(kind: str, event, seen: set) -> list[str]:
    """Names of the tool calls that start in this stream event."""
    if kind == "anthropic":
        block = getattr(event, "content_block", None)
        if event.type == "content_block_start" and block.type == "tool_use":
            return [block.name]
        return []
    if not event.choices:  # the usage-only chunk at the end
        return []
    started = []
    for fragment in event.choices[0].delta.tool_calls or ():
        # the index ties fragments together; its first appearance is the start
        if fragment.index not in seen:
            seen.add(fragment.index)
            started.append(fragment.function.name)
    return started
