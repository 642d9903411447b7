"""Exercise 17 (stage 09): which replies may run their tool calls.

A reply's tool calls should run only when the reply ended in order to call them.
Gateways have passed tool calls along with a refusal or a content filter, and a reply
cut off at the token limit holds calls whose arguments are not whole. `next_step` says
what the loop does with a reply, as one word:

    "refuse"     stop_reason "refusal" or "content_filter", whatever else the reply holds
    "retry"      cut off ("max_tokens", or OpenAI's raw "length") inside tool calls,
                 the first time (`retried` is False)
    "truncated"  cut off with no tool calls, or cut off again after a retry
    "run"        tool calls with an ordinary end: "tool_use", "tool_calls", "end_turn", "stop"
    "answer"     anything else: no tool calls, or calls under a reason not listed here
                 ("stop_sequence" too: a reply cut where a stop sequence began did not
                 end in order to call tools)

Stage 09's `GATES` table makes the same choices, in tao's names for the stop reasons.
"""

REFUSALS = {"refusal", "content_filter"}  # Anthropic's stop_reason, OpenAI's finish_reason
CUT_OFF = {"max_tokens", "length"}
RUNNABLE = {"tool_use", "tool_calls", "end_turn", "stop"}


def next_step(reply, retried: bool = False) -> str:
    """What to do with `reply`: "refuse", "retry", "truncated", "run" or "answer"."""
    # TODO: check the stop reason against the three sets above, refusals first
    raise NotImplementedError("exercise 17: next_step")
