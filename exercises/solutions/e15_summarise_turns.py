"""Exercise 15 (stage 08): summarise old turns instead of snipping them.

Stage 08's `snip_oldest_turns` drops the oldest whole turns until the rest fits the
budget, and what they said is gone. Here the turns that do not fit are replaced by one
user message that sums them up by rule, so the model still knows what was asked:

    SUMMARY_HEADER
    - asked: What time is it? → answered: It is noon. (tools: now)

One line per summarised turn, oldest first; `(tools: a, b)` lists the tools the turn
called, in order (a tool called twice is named twice), and is left out when it called
none; the answer is the content of the turn's last assistant message. A turn starts at
each user message. Keep as many of the newest turns whole as fit `budget` (stage 08's
`estimate_tokens`) together with the summary; the last turn is always kept. If
everything fits, return the messages as they are, with no summary. The input list is
not changed.
"""

from tao.repo import load_stage

stage = load_stage("08", "context")  # estimate_tokens

SUMMARY_HEADER = "Summary of earlier turns (details left out for room):"


def summary_line(turn: list[dict]) -> str:
    """One turn as `- asked: ... → answered: ...`, plus the tools it called."""
    answers = [m["content"] for m in turn if m["role"] == "assistant"]
    tools = [c["name"] for m in turn for c in m.get("tool_calls") or ()]
    line = f"- asked: {turn[0]['content']} → answered: {answers[-1] if answers else ''}"
    return line + (f" (tools: {', '.join(tools)})" if tools else "")


def summarise_turns(messages: list[dict], budget: int) -> list[dict]:
    """`messages` with the oldest turns that do not fit replaced by one summary message."""
    starts = [i for i, m in enumerate(messages) if m["role"] == "user"]
    turns = [messages[a:b] for a, b in zip(starts, [*starts[1:], len(messages)], strict=True)]
    if len(turns) < 2 or stage.estimate_tokens(messages) <= budget:
        return list(messages)  # it fits, or there is nothing older to sum up
    # try keeping more and more of the newest turns; the first that fits is the most
    for old in range(1, len(turns)):
        summary = {"role": "user", "content": "\n".join(
            [SUMMARY_HEADER] + [summary_line(t) for t in turns[:old]])}
        kept = [m for t in turns[old:] for m in t]
        if stage.estimate_tokens([summary, *kept]) <= budget:
            return [summary, *kept]
    return [summary, *turns[-1]]  # only the last turn left: it goes whole, over budget or not
