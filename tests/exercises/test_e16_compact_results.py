# Don't change the tests! They tell you when exercises/e16_compact_results.py is done.
from exercise_support import need

NOW = "2026-12-01T09:00:00+00:00"
PASTED = "Words, words, words — " * 150  # a long text the user pasted (3300 characters)


def page(size, text="Agent loops — think, act, observe. "):
    """`size` characters of a fetched page or a search result."""
    return (text * (size // len(text) + 1))[:size]


def turn(question, preamble, calls, answer):
    """One turn as stage 10 keeps it with the offline model: a sentence before the calls,
    every call of the reply in one message, then each result, then the answer."""
    return [{"role": "user", "content": question},
            {"role": "assistant", "content": preamble, "tool_calls": [
                {"id": id, "name": name, "args": {}} for id, name, _ in calls]},
            *({"role": "tool", "tool_call_id": id, "name": name, "content": content}
              for id, name, content in calls),
            {"role": "assistant", "content": answer}]


def history():
    """Seven tool results, oldest first (see RESULTS). A new copy on every call."""
    return [
        *turn("Fetch 'example.org' and search the web for 'agent loops'.",
              "I'll use fetch and search.",
              [("c1", "fetch", page(2000)), ("c2", "search", page(1200, "Results: "))],
              "The page and the search both describe agent loops."),
        *turn(f"How many words are in this? {PASTED}", "I'll use wordcount.",
              [("c3", "wordcount", "450")], "That text has 450 words."),
        *turn("What time is it?", "I'll use now.", [("c4", "now", NOW)], f"It is {NOW}."),
        *turn("Fetch 'example.com'.", "I'll use fetch.", [("c5", "fetch", page(501))],
              "Here is what example.com says."),
        *turn("Search the web for 'café crème'.", "I'll use search.",
              [("c6", "search", page(500, "Café crème à emporter. "))],  # 500 characters,
              "Two cafés came up."),  # but more bytes: é and à take two each in UTF-8
        *turn("Fetch 'example.net'.", "I'll use fetch.", [("c7", "fetch", page(3000))],
              "Here is what example.net says."),
    ]


# (id, tool, characters) of each tool result in history(), oldest first
RESULTS = [("c1", "fetch", 2000), ("c2", "search", 1200), ("c3", "wordcount", 3),
           ("c4", "now", len(NOW)), ("c5", "fetch", 501), ("c6", "search", 500),
           ("c7", "fetch", 3000)]


def compact(ex, messages, **kwargs):
    return need(ex, "compact_results", "messages", "keep", "min_chars")(messages, **kwargs)


def contents(messages):
    return [m.get("content") for m in messages if m.get("role") == "tool"]


def expect_results(ex, out, kept_ids, how):
    """Every tool result of `out` is whole if its id is in `kept_ids`, else a note."""
    originals = contents(history())
    got = contents(out)
    assert len(got) == len(RESULTS), (
        f"{how}: expected {len(RESULTS)} tool results, one for each call, got {len(got)}")
    for (id, name, chars), original, shown in zip(RESULTS, originals, got, strict=True):
        want = original if id in kept_ids else ex.OMITTED.format(name=name, chars=chars)
        assert shown == want, (
            f"{how}: the {name} result {id} ({chars} characters) should be "
            f"{'kept whole' if id in kept_ids else repr(want)}, got {shown[:90]!r}"
            + ("…" if len(shown) > 90 else ""))


def test_old_long_results_become_a_note_and_the_newest_stay(ex):
    out = compact(ex, history(), keep=2, min_chars=500)
    # c3 and c4 are short, c6 and c7 are the two newest: the rest become notes
    expect_results(ex, out, {"c3", "c4", "c6", "c7"}, "keep=2, min_chars=500")


def test_the_input_is_not_changed(ex):
    given = history()
    compact(ex, given, keep=0, min_chars=0)
    assert given == history(), (
        "compact_results changed the messages it was given: build new ones "
        '({**message, "content": ...}); the history is the record of what was said')


def test_only_tool_results_are_compacted(ex):
    out = compact(ex, history(), keep=0, min_chars=100)
    others = [m for m in out if m.get("role") != "tool"]
    assert others == [m for m in history() if m["role"] != "tool"], (
        "only tool results are compacted: the user's own long message (the pasted text) "
        "and the assistant's messages stay as they are")


def test_a_result_of_exactly_min_chars_is_kept(ex):
    out = compact(ex, history(), keep=0, min_chars=500)
    # keep=0: even the newest long result goes; c6 is 500 characters (566 bytes): kept
    expect_results(ex, out, {"c3", "c4", "c6"}, "keep=0, min_chars=500 (c6 is exactly 500 "
                   "characters long, 566 bytes in UTF-8: only *longer* results are compacted)")


def test_keep_counts_the_newest_results(ex):
    out = compact(ex, history(), keep=3, min_chars=10)
    expect_results(ex, out, {"c3", "c5", "c6", "c7"}, "keep=3, min_chars=10 (the 3 newest "
                   "are c5, c6 and c7; c3 is 3 characters)")


def test_with_keep_results_or_fewer_nothing_is_old(ex):
    for keep in (7, 8, 20):
        out = compact(ex, history(), keep=keep, min_chars=0)
        assert out == history(), (
            f"there are 7 tool results and keep={keep}: every one is among the newest "
            f"{keep}, so nothing should change, but the results became {contents(out)[:2]}…")


def test_nothing_but_tool_contents_changes(ex):
    out = compact(ex, history(), keep=1, min_chars=100)
    assert len(out) == len(history()), (
        f"every message stays, so every call keeps its result: expected {len(history())} "
        f"messages, got {len(out)}")
    for before, after in zip(history(), out, strict=True):
        assert {k: v for k, v in before.items() if k != "content"} == {
            k: v for k, v in after.items() if k != "content"}, (
            f"roles, ids and names stay: {before.get('tool_call_id', before['role'])} "
            f"changed to {after}")


def test_the_defaults_keep_three_and_compact_over_500(ex):
    out = need(ex, "compact_results", "messages")(history())
    expect_results(ex, out, {"c3", "c4", "c5", "c6", "c7"}, "the defaults (keep=3, "
                   "min_chars=500)")



def test_an_empty_history_stays_empty(ex):
    assert compact(ex, [], keep=0, min_chars=0) == [], "nothing to compact in no messages"


def test_the_note_names_the_tool_of_its_own_message(ex):
    # some servers number calls afresh in every reply: call_0 is fetch, then search
    given = [*turn("Fetch 'example.org'.", "I'll use fetch.", [("call_0", "fetch", page(900))],
                   "Here it is."),
             *turn("Search for 'agent loops'.", "I'll use search.",
                   [("call_0", "search", page(700, "Results: "))], "Two results."),
             *turn("What time is it?", "I'll use now.", [("call_0", "now", NOW)], "Noon.")]
    out = compact(ex, given, keep=1, min_chars=500)
    notes = contents(out)[:2]
    expected = [ex.OMITTED.format(name="fetch", chars=900),
                ex.OMITTED.format(name="search", chars=700)]
    assert notes == expected, (
        "each note names the tool of the tool message it replaces (its `name`), even where "
        f"two calls share an id; expected {expected}, got {notes}")


def test_the_length_is_the_whole_contents(ex):
    padded = "\n" * 20 + page(490)  # 510 characters, 490 of them after the blank lines
    given = [*turn("Fetch 'example.org'.", "I'll use fetch.", [("c1", "fetch", padded)],
                   "Here it is."),
             *turn("What time is it?", "I'll use now.", [("c2", "now", NOW)], "Noon.")]
    out = compact(ex, given, keep=1, min_chars=500)
    expected = ex.OMITTED.format(name="fetch", chars=510)
    assert contents(out)[0] == expected, (
        "the old content is 510 characters long, blank lines included: longer than 500, so "
        f"it becomes {expected!r}; got {contents(out)[0][:60]!r}…")
