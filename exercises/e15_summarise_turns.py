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

SUMMARY_HEADER = "Summary of earlier turns (details left out for room):"  # Don't change this line


def summary_line(turn: list[dict]) -> str:
    """One turn as `- asked: ... → answered: ...`, plus the tools it called."""
    # TODO: the first message is the request; the last assistant message is the answer;
    #       collect the names from every message's "tool_calls"
    raise NotImplementedError("exercise 15: summary_line")


def summarise_turns(messages: list[dict], budget: int) -> list[dict]:
    """`messages` with the oldest turns that do not fit replaced by one summary message."""
    # TODO: split into turns at user messages; if all fits, return a copy; else summarise
    #       the fewest oldest turns that make the summary plus the rest fit
    raise NotImplementedError("exercise 15: summarise_turns")
