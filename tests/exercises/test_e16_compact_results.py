# Don't change the tests! They tell you when exercises/e16_compact_results.py is done.
import copy

from exercise_support import need


def call(i, name):
    return {"role": "assistant", "content": "",
            "tool_calls": [{"id": f"c{i}", "name": name, "args": {}}]}


def result(i, name, size):
    return {"role": "tool", "tool_call_id": f"c{i}", "name": name, "content": "x" * size}


# five calls, oldest first; sizes chosen around the 500-character threshold
SIZES = [("fetch", 2000), ("now", 30), ("fetch", 501), ("search", 500), ("fetch", 3000)]
HISTORY = [{"role": "user", "content": "go"}]
for n, (tool, size) in enumerate(SIZES):
    HISTORY += [call(n, tool), result(n, tool, size)]
HISTORY.append({"role": "assistant", "content": "done"})


def compact(ex, messages, **kwargs):
    return need(ex, "compact_results", "messages", "keep", "min_chars")(messages, **kwargs)


def contents(messages):
    return [m["content"] for m in messages if m["role"] == "tool"]


def test_old_long_results_become_a_note_and_the_newest_stay(ex):
    out = compact(ex, HISTORY, keep=2, min_chars=500)
    note = ex.OMITTED.format
    assert contents(out) == [
        note(name="fetch", chars=2000),  # old and long
        "x" * 30,  # old but short
        note(name="fetch", chars=501),  # old, one character over the limit
        "x" * 500,  # one of the 2 newest (and exactly at the limit anyway)
        "x" * 3000,  # the newest: kept whole, however long
    ]


def test_a_result_of_exactly_min_chars_is_kept(ex):
    out = compact(ex, HISTORY, keep=0, min_chars=500)
    assert contents(out)[3] == "x" * 500, "only results *longer* than min_chars are compacted"
    assert contents(out)[4] == ex.OMITTED.format(name="fetch", chars=3000), (
        "keep=0: even the newest long result goes")


def test_nothing_but_tool_contents_changes(ex):
    out = compact(ex, HISTORY, keep=1, min_chars=100)
    assert len(out) == len(HISTORY)
    for before, after in zip(HISTORY, out, strict=True):
        assert {k: v for k, v in before.items() if k != "content"} == {
            k: v for k, v in after.items() if k != "content"}, "roles, ids and names stay"
        if before["role"] != "tool":
            assert after == before


def test_keep_counts_the_newest_results(ex):
    out = compact(ex, HISTORY, keep=3, min_chars=10)
    assert contents(out)[2:] == ["x" * 501, "x" * 500, "x" * 3000]
    assert contents(out)[0].startswith("[fetch result of 2000 characters")


def test_the_defaults_keep_three_and_compact_over_500(ex):
    fn = need(ex, "compact_results", "messages")
    out = fn(HISTORY)
    assert contents(out)[:2] == [ex.OMITTED.format(name="fetch", chars=2000), "x" * 30]
    assert contents(out)[2:] == ["x" * 501, "x" * 500, "x" * 3000]


def test_the_input_is_not_changed(ex):
    history = copy.deepcopy(HISTORY)
    compact(ex, history, keep=0, min_chars=0)
    assert history == HISTORY, "build new messages; the history is the record"
