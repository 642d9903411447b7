# Don't change the tests! They tell you when exercises/e15_summarise_turns.py is done.

from exercise_support import need
from fake_api import check_anthropic, check_openai

from shared.providers.anthropic_provider import to_anthropic
from shared.providers.openai_provider import to_openai
from tao.repo import load_stage

estimate_tokens = load_stage("08", "context").estimate_tokens
NOW = "2026-12-01T09:00:00+00:00"


def call(n, name, args):
    return {"id": f"offline_call_{n}", "name": name, "args": args}


def result(n, name, content):
    return {"role": "tool", "tool_call_id": f"offline_call_{n}", "name": name,
            "content": content}


def turns():
    """Five turns as stage 08 keeps them with the offline model: a sentence before the
    calls, several calls in one message, a turn of two iterations, one without tools.
    A new copy on every call: no test sees what another test did to its data."""
    return [
        [{"role": "user", "content": "What time is it, and how many words are in 'the "
                                     "quick brown fox'?"},
         {"role": "assistant", "content": "I'll use wordcount and now.", "tool_calls": [
             call(1, "wordcount", {"text": "the quick brown fox"}), call(2, "now", {})]},
         result(1, "wordcount", "4"), result(2, "now", NOW),
         {"role": "assistant", "content": f"That text has 4 words. It is {NOW} (UTC)."}],
        [{"role": "user", "content": "What is 12 * (3 + 4), and how many words is that?"},
         {"role": "assistant", "content": "I'll use calculator.", "tool_calls": [
             call(3, "calculator", {"expression": "12 * (3 + 4)"})]},
         result(3, "calculator", "84"),
         {"role": "assistant", "content": "I'll use wordcount.", "tool_calls": [
             call(4, "wordcount", {"text": "84"})]},
         result(4, "wordcount", "1"),
         {"role": "assistant", "content": "The answer is 84, which is 1 word."}],
        [{"role": "user", "content": "How many words are in 'to be or not to be' and in "
                                     "'let it be'?"},
         {"role": "assistant", "content": "I'll use wordcount twice.", "tool_calls": [
             call(5, "wordcount", {"text": "to be or not to be"}),
             call(6, "wordcount", {"text": "let it be"})]},
         result(5, "wordcount", "6"), result(6, "wordcount", "3"),
         {"role": "assistant", "content": "The first has 6 words, the second 3."}],
        [{"role": "user", "content": "Who are you?"},
         {"role": "assistant", "content": "I am the offline model: a few rules, no network."}],
        [{"role": "user", "content": "How many words are in 'hello world'?"},
         {"role": "assistant", "content": "I'll use wordcount.", "tool_calls": [
             call(7, "wordcount", {"text": "hello world"})]},
         result(7, "wordcount", "2"),
         {"role": "assistant", "content": "That text has 2 words."}],
    ]


def flat(some_turns):
    return [m for t in some_turns for m in t]


def history():
    return flat(turns())


# what each of the first four turns sums up to, in order
LINES = [
    "- asked: What time is it, and how many words are in 'the quick brown fox'? → answered: "
    f"That text has 4 words. It is {NOW} (UTC). (tools: wordcount, now)",
    "- asked: What is 12 * (3 + 4), and how many words is that? → answered: The answer is "
    "84, which is 1 word. (tools: calculator, wordcount)",
    "- asked: How many words are in 'to be or not to be' and in 'let it be'? → answered: The "
    "first has 6 words, the second 3. (tools: wordcount, wordcount)",
    "- asked: Who are you? → answered: I am the offline model: a few rules, no network.",
]


def summary(ex, old):
    """The summary message for the `old` oldest turns."""
    return {"role": "user", "content": "\n".join([ex.SUMMARY_HEADER, *LINES[:old]])}


def accepted(messages):
    tools = [{"name": name, "input_schema": {"type": "object"}}
             for name in ("now", "wordcount", "calculator")]
    return (check_openai({"model": "m", "stream": True, "messages": to_openai(messages)},
                         {"authorization": "Bearer k"})
            or check_anthropic({"model": "m", "max_tokens": 5, "stream": True,
                                "tools": tools, "messages": to_anthropic(messages)},
                               {"x-api-key": "k", "anthropic-version": "1"}))


def summarise(ex, messages, budget):
    return need(ex, "summarise_turns", "messages", "budget")(messages, budget)


def kept_turns(out, all_turns):
    """How many of the newest turns `out` keeps whole after its summary, or None."""
    for n in range(len(all_turns) + 1):
        if out[1:] == flat(all_turns[len(all_turns) - n:]):
            return n
    return None


def kept(out, budget):
    """What `out` keeps after its summary, in words, for a failure message."""
    n = kept_turns(out, turns())
    if n is None:
        first = out[1]["role"] if len(out) > 1 else "nothing"
        return ("after the summary comes a part that is not whole turns (it starts at a "
                f"message of role {first!r}; a turn starts at a user message)")
    return (f"it keeps {n} whole turns, a request of {estimate_tokens(out)} tokens for a "
            f"budget of {budget}")


def test_a_history_that_fits_comes_back_unchanged(ex):
    for budget in (10_000, estimate_tokens(history())):  # roomy, and exactly the size
        out = summarise(ex, history(), budget)
        assert out == history(), (
            f"with a budget of {budget} tokens and a history of {estimate_tokens(history())}, "
            f"everything fits: expected the {len(history())} messages as they are, got "
            f"{len(out)} messages starting {out[:1]}")


def test_the_input_is_not_changed(ex):
    given = history()
    summarise(ex, given, estimate_tokens(flat(turns()[-2:])))
    assert given == history(), (
        "summarise_turns changed the list it was given: build a new summary message and a "
        "new list; the history is the record of what was said")


def test_each_summary_line_names_the_request_the_answer_and_every_tool(ex):
    expected = summary(ex, 4)
    budget = estimate_tokens([expected, *turns()[-1]])
    out = summarise(ex, history(), budget)
    got = out[0].get("content", "").split("\n") if out else []
    assert got[:1] == [ex.SUMMARY_HEADER], (
        f"the summary should start with SUMMARY_HEADER, it starts with {got[:1]}")
    for n, line in enumerate(LINES[: len(got) - 1], start=1):
        assert got[n] == line, (
            f"summary line {n} should be\n  {line}\nbut it is\n  {got[n]}\n(the answer is the "
            "turn's last assistant message, not the sentence before its calls; the tools are "
            "every call of the turn, from every message, in the order they were called)")
    assert kept_turns(out, turns()) == 1, (
        f"with room for the summary and the last turn only, {kept(out, budget)}")
    assert out[0]["role"] == "user" and len(got) == 5, (
        f"one user message: the header and 4 lines, got {len(got)} lines as {out[0]['role']}")


def test_as_many_newest_turns_as_fit_are_kept(ex):
    all_turns = turns()
    expected = [summary(ex, 2), *flat(all_turns[2:])]
    budget = estimate_tokens(expected)  # exactly enough room: a request that fits
    out = summarise(ex, history(), budget)
    assert kept_turns(out, all_turns) == 3, (
        "a budget of exactly the summary of 2 turns plus the 3 newest turns keeps those 3 "
        f"whole, but {kept(out, budget)}")
    assert out == expected, f"the summary should read:\n{expected[0]['content']}"
    assert accepted(out) is None, f"both APIs should accept the result: {accepted(out)}"


def test_the_summary_counts_against_the_budget(ex):
    all_turns = turns()
    budget = estimate_tokens(flat(all_turns[-2:]))  # the last two turns alone, exactly
    out = summarise(ex, history(), budget)
    assert kept_turns(out, all_turns) == 1, (
        f"the last two turns fill the budget of {budget} on their own, so with a summary in "
        f"front only the last one fits, but {kept(out, budget)}")
    assert out[0] == summary(ex, 4), (
        "the four older turns are summed up; the summary should read:\n"
        + summary(ex, 4)["content"])
    assert accepted(out) is None, f"both APIs should accept the result: {accepted(out)}"


def test_the_last_turn_is_kept_even_over_budget(ex):
    all_turns = turns()
    out = summarise(ex, history(), 10)
    assert out[1:] == all_turns[-1], (
        "however small the budget, the current turn goes whole: the model needs the question")
    assert out[0] == summary(ex, 4), "and every older turn is summed up"


def test_the_docstrings_example_line(ex):
    turn = [{"role": "user", "content": "What time is it?"},
            {"role": "assistant", "content": "I'll use now.", "tool_calls": [call(1, "now", {})]},
            result(1, "now", NOW),
            {"role": "assistant", "content": "It is noon."}]
    line = need(ex, "summary_line", "turn")(turn)
    assert line == "- asked: What time is it? → answered: It is noon. (tools: now)", (
        f"the docstring's example turn should sum up to\n  - asked: What time is it? → "
        f"answered: It is noon. (tools: now)\nnot\n  {line}")
    plain = need(ex, "summary_line", "turn")(turns()[3])
    assert plain == LINES[3], f"a turn without tools has no (tools: ...) part: {plain!r}"


def test_a_single_turn_over_budget_comes_back_as_it_is(ex):
    only = turns()[0]
    out = summarise(ex, list(only), 10)
    assert out == only, (
        "one turn is the last turn, always kept whole, and there is nothing older to sum up: "
        f"expected the {len(only)} messages as they are, got {len(out)} messages starting "
        f"{out[:1]}")
