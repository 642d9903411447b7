"""What the model is sent (`context.prepare`, stages 08-10), at its edges: the questions
that the surviving mutants of benchmarks/mutation.py asked and no test answered yet.
What happens when the history is exactly the budget? When even the current turn is over
it? Do the counts in the trace add up? Stages 09 and 10 carry the same context.py."""

from __future__ import annotations

import json
import re

import pytest
from helpers import load_stage

STAGES = {number: load_stage(number, "context") for number in ("08", "09", "10")}


@pytest.fixture(params=sorted(STAGES), ids=lambda number: number)
def context(request):
    return STAGES[request.param]


class Notes:
    """A trace that keeps what it is told to note."""

    def __init__(self):
        self.lines = []

    def note(self, text):
        self.lines.append(text)


def user(text):
    return {"role": "user", "content": text}


def answer(text):
    return {"role": "assistant", "content": text}


def asking(*ids):
    return {"role": "assistant", "content": "",
            "tool_calls": [{"id": i, "name": "now", "args": {}} for i in ids]}


def result(call_id, text="noon"):
    return {"role": "tool", "tool_call_id": call_id, "name": "now", "content": text}


def reported(context, messages, budget, overhead=0):
    """(what was sent, the total the trace gives, {what it counted: how many})."""
    notes = Notes()
    sent = context.prepare(messages, budget, overhead, trace=notes)
    (line,) = notes.lines
    total = int(re.search(r"~(\d+)", line).group(1))
    counts = {}
    for part in line.split(" · ")[1:]:
        number, what = part.split(" ", 1)
        counts[what] = int(number)
    return sent, total, counts


def count(counts, word):
    """The count whose label has `word` in it (0 when the trace leaves it out)."""
    return next((n for what, n in counts.items() if word in what), 0)


# ---------------------------------------------------------------- the budget's edges


def test_a_history_that_exactly_fits_the_budget_is_sent_whole(context):
    messages = [user("a" * 200), answer("b" * 40), user("c")]
    exact = context.estimate_tokens(messages)
    assert context.prepare(messages, exact) == messages, "exactly the budget is within it"
    assert context.prepare(messages, exact - 1) == messages[2:], "one token over is not"


def test_the_overhead_counts_against_the_budget_token_for_token(context):
    messages = [user("a" * 200), answer("b" * 40), user("c")]
    exact = context.estimate_tokens(messages)
    assert context.prepare(messages, exact + 7, overhead=7) == messages
    assert context.prepare(messages, exact + 7, overhead=8) == messages[2:]


def test_a_current_turn_over_budget_is_sent_whole_and_alone(context):
    messages = [user("first"), answer("one"), user("second"), answer("two"),
                user("third " * 50), asking("c1"), result("c1", "x" * 400)]
    assert context.snip_oldest_turns(messages, 0) == messages[4:]
    assert context.prepare(messages, 1) == messages[4:]


def test_a_history_with_no_user_message_is_one_turn(context):
    messages = [answer("Hello, I am Tao."), answer("Ask me anything.")]
    assert context.snip_oldest_turns(messages, 10_000) == messages
    assert context.snip_oldest_turns(messages, 0) == messages, "the only turn goes whole"


def test_the_estimate_counts_characters_not_their_escapes(context):
    plain, accented = [user("e" * 400)], [user("é" * 400)]
    assert context.estimate_tokens(accented) == context.estimate_tokens(plain)


# ---------------------------------------------------------------- capping results


def test_a_result_at_the_cap_is_sent_whole_and_one_character_more_is_cut(context):
    cap = context.MAX_OBSERVATION
    at, over = "r" * cap, "r" * (cap + 1)
    sent = context.prepare([user("q"), asking("c1"), result("c1", at)], 10**6)
    assert sent[2]["content"] == at
    sent = context.prepare([user("q"), asking("c1"), result("c1", over)], 10**6)
    assert sent[2]["content"].startswith(at) and sent[2]["content"] != over


def test_the_cut_says_how_many_characters_it_took_and_they_add_up(context):
    cap, long = context.MAX_OBSERVATION, "0123456789" * (context.MAX_OBSERVATION // 4)
    sent = context.prepare([user("q"), asking("c1"), result("c1", long)], 10**6)
    kept, marker = sent[2]["content"][:cap], sent[2]["content"][cap:]
    assert kept == long[:cap]
    assert int(re.search(r"\d+", marker).group()) == len(long) - cap


def test_only_tool_results_are_capped(context):
    long = "w " * context.MAX_OBSERVATION
    messages = [user(long), answer(long), user("and?")]
    assert context.prepare(messages, 10**6) == messages


# ---------------------------------------------------------------- repairs


def test_a_call_left_unanswered_gets_its_stand_in_before_the_next_reply(context):
    # strict APIs want a call's result right after it, before anything else is said
    messages = [user("q"), asking("c1"), answer("sorry, that was cut off"), user("next")]
    sent = context.prepare(messages, 10**6)
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "assistant", "user"]
    assert sent[2]["tool_call_id"] == "c1" and sent[2]["content"] == context.MISSING_RESULT


def mixed_history(context):
    """A history with every repair in it, and turns enough to snip."""
    return [user("old " * 100), asking("k1"), result("k1", "z" * (context.MAX_OBSERVATION + 5)),
            answer("ok"),
            user("q"), result("ghost"), asking("c1", "c2"), result("c1"), answer("half"),
            user("now")]


def test_a_history_read_back_from_json_is_sent_as_the_original(context):
    # a saved session comes back as new strings: roles must be compared by value
    history = mixed_history(context)
    again = json.loads(json.dumps(history))
    for budget in (10**6, 60):
        assert context.prepare(again, budget) == context.prepare(history, budget)
    sent = context.prepare(again, 10**6)
    assert [m.get("tool_call_id") for m in sent if m["role"] == "tool"] == ["k1", "c1", "c2"]
    assert sent[2]["content"] != history[2]["content"], "the long result is capped"
    assert context.prepare(again, 60) == context.prepare(history, 60)[-1:] == history[-1:]


# ---------------------------------------------------------------- what the trace counts


def test_the_trace_counts_each_repair_and_they_add_up(context):
    messages = [user("q"), *(result(f"ghost{i}") for i in range(5)), asking("c1", "c2", "c3")]
    sent, _, counts = reported(context, messages, 10**6)
    assert count(counts, "orphan") == 5
    assert count(counts, "missing") == 3
    assert count(counts, "capped") == 0 and count(counts, "snipped") == 0
    assert len(sent) == len(messages) - 5 + 3


def test_the_trace_counts_what_was_capped_and_snipped_and_the_total(context):
    long = "x" * (context.MAX_OBSERVATION + 1000)
    messages = [user("a"), asking("k1"), result("k1", long), asking("k2"), result("k2"),
                answer("ok"), user("b"), answer("fine"), user("c")]
    sent, total, counts = reported(context, messages, budget=140, overhead=40)
    assert sent == messages[6:]
    assert count(counts, "capped") == 1
    assert count(counts, "snipped") == len(messages) - len(sent)
    assert count(counts, "orphan") == 0 and count(counts, "missing") == 0
    assert total == context.estimate_tokens(sent) + 40
