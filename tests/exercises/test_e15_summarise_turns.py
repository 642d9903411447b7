# Don't change the tests! They tell you when exercises/e15_summarise_turns.py is done.
import copy

from exercise_support import need
from fake_api import check_anthropic, check_openai

from shared.cli.repo import load_stage
from shared.providers.anthropic_provider import to_anthropic
from shared.providers.openai_provider import to_openai

estimate_tokens = load_stage("08", "context").estimate_tokens


def turn(n, tools=(), size=200):
    """One turn: a request, optional tool calls and results, then the answer."""
    messages = [{"role": "user", "content": f"question {n} " + "q" * size}]
    if tools:
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{n}{i}", "name": name, "args": {}} for i, name in enumerate(tools)]})
        messages += [{"role": "tool", "tool_call_id": f"c{n}{i}", "name": name,
                      "content": "r" * size} for i, name in enumerate(tools)]
    messages.append({"role": "assistant", "content": f"answer {n}"})
    return messages


HISTORY = turn(1, ["now", "wordcount"]) + turn(2) + turn(3, ["calculator"]) + turn(4)


def accepted(messages):
    return (check_openai({"model": "m", "stream": True, "messages": to_openai(messages)},
                         {"authorization": "Bearer k"})
            or check_anthropic({"model": "m", "max_tokens": 5, "stream": True,
                                "tools": [{"name": "now", "input_schema": {"type": "object"}}],
                                "messages": to_anthropic(messages)},
                               {"x-api-key": "k", "anthropic-version": "1"}))


def summarise(ex, messages, budget):
    return need(ex, "summarise_turns", "messages", "budget")(messages, budget)


def test_a_history_that_fits_comes_back_unchanged(ex):
    assert summarise(ex, HISTORY, 10_000) == HISTORY


def test_old_turns_become_one_summary_line_each_with_their_tools(ex):
    line1 = (f"- asked: {HISTORY[0]['content']} → answered: answer 1 "
             "(tools: now, wordcount)")
    line2 = f"- asked: {turn(2)[0]['content']} → answered: answer 2"  # no tools: no (tools:)
    summary = {"role": "user", "content": f"{ex.SUMMARY_HEADER}\n{line1}\n{line2}"}
    tail = turn(3, ["calculator"]) + turn(4)
    out = summarise(ex, HISTORY, estimate_tokens([summary, *tail]))
    assert out[1:] == tail, "the newest turns stay whole"
    assert out[0] == summary, f"the summary should read:\n{summary['content']}"
    assert accepted(out) is None


def test_as_many_newest_turns_as_fit_are_kept(ex):
    # room for the summary and the last three turns (but not all four)
    budget = estimate_tokens(HISTORY) - 40
    out = summarise(ex, HISTORY, budget)
    assert out[1:] == HISTORY[5:], "only the first turn (5 messages) had to be summed up"
    assert len(out[0]["content"].splitlines()) == 2


def test_the_summary_counts_against_the_budget(ex):
    # the last two turns alone fit this budget exactly, but not with a summary in front
    budget = estimate_tokens(turn(3, ["calculator"]) + turn(4))
    out = summarise(ex, HISTORY, budget)
    assert out[1:] == turn(4), "with the summary added only the last turn fits"
    assert len(out[0]["content"].splitlines()) == 4 and accepted(out) is None


def test_the_last_turn_is_kept_even_over_budget(ex):
    out = summarise(ex, HISTORY, 10)
    assert out[1:] == turn(4) and len(out[0]["content"].splitlines()) == 4


def test_the_input_is_not_changed(ex):
    history = copy.deepcopy(HISTORY)
    summarise(ex, history, 100)
    assert history == HISTORY
