# Don't change the tests! They tell you when exercises/e07_error_flag.py is done.
import copy

import sdk_standin
from exercise_support import need

from shared.providers.anthropic_provider import AnthropicProvider
from tao.repo import load_stage

FAILED = "Error: ZeroDivisionError: division by zero"


def result(call_id, content):
    return {"type": "tool_result", "tool_use_id": call_id, "content": content}


def test_only_failed_results_are_flagged(ex):
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Error-checking first."},
            {"type": "tool_use", "id": "a", "name": "calculator", "input": {}},
            {"type": "tool_use", "id": "b", "name": "wordcount", "input": {}},
            {"type": "tool_use", "id": "c", "name": "search", "input": {}}]},
        {"role": "user", "content": [result("a", FAILED), result("b", "2"),
                                     result("c", "No errors found; Error rates are low.")]},
    ]
    before = copy.deepcopy(messages)
    flagged = need(ex, "flag_errors", "messages")(messages)
    assert messages == before, "flag_errors must not change the messages it was given"
    blocks = flagged[2]["content"]
    assert blocks[0] == {**result("a", FAILED), "is_error": True}, (
        f"a result starting with 'Error' gets \"is_error\": True (the boolean); got {blocks[0]}")
    assert blocks[1] == result("b", "2"), f"a working result stays as it was; got {blocks[1]}"
    assert "is_error" not in blocks[2], (
        "only a result that *starts* with 'Error' failed; this one merely mentions errors")
    assert flagged[:2] == before[:2], "messages without tool results stay as they were"


def test_every_failed_result_is_flagged_in_every_turn(ex):
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": i, "name": "calculator", "input": {}} for i in "abc"]},
        {"role": "user", "content": [result("a", FAILED), result("b", "4"),
                                     result("c", "Error: unknown tool 'calc'")]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "d", "name": "fetch", "input": {}}]},
        {"role": "user", "content": [result("d", "Error: example.org did not answer")]},
    ]
    flagged = need(ex, "flag_errors", "messages")(messages)
    flags = [b.get("is_error") for m in flagged[2::2] for b in m["content"]]
    assert flags == [True, None, True, True], (
        "every result that starts with 'Error' is flagged, the second of one message and "
        f"those of an older turn too; the flags came out as {flags} for the results "
        "a (failed), b (4), c (failed), d (failed)")
    assert flagged is not messages and len(flagged) == len(messages)


def test_only_error_as_written_is_a_failure(ex):
    messages = [{"role": "user", "content": [
        result("a", "error: lowercase is not how run_tool reports a failure"),
        result("b", "ERROR: nor is this"), result("c", "Error"),
        result("d", "  Error: indented, so it does not start with Error")]}]
    blocks = need(ex, "flag_errors", "messages")(messages)[0]["content"]
    flags = [b.get("is_error") for b in blocks]
    assert flags == [None, None, True, None], (
        "a result fails when its content starts with 'Error', exactly as written: "
        "'error: ...', 'ERROR: ...' and '  Error: ...' do not, 'Error' alone does; got the "
        f"flags {flags}")


def test_error_flagging_keeps_the_rest_of_the_request(ex):
    history = [
        {"role": "user", "content": "1/0?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "name": "calculator", "args": {"expression": "1/0"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "calculator", "content": FAILED}]
    tools = load_stage("07", "tools").TOOLS
    plain = sdk_standin.provider(AnthropicProvider, "anthropic")
    flagging = sdk_standin.provider(need(ex, "ErrorFlagging"), "anthropic")
    expected = plain.request(history, "Be brief.", tools)
    got = flagging.request(history, "Be brief.", tools)
    flags = [b.get("is_error") for b in got["messages"][-1]["content"]]
    assert flags == [True], f"the failed calculator result should be flagged; got {flags}"
    got["messages"] = expected["messages"] = None
    assert got == expected, (
        "ErrorFlagging.request should send what AnthropicProvider.request sends (the system "
        "prompt, the tools, the model, max_tokens), only with failed results flagged; keys "
        f"that differ: {sorted(k for k in {*got, *expected} if got.get(k) != expected.get(k))}")


def test_error_flagging_sends_the_flag_in_a_real_turn(ex):
    cls = need(ex, "ErrorFlagging")
    provider = sdk_standin.provider(
        cls, "anthropic",
        sdk_standin.anthropic_events([], tools=[("c1", "calculator", ['{"expression": "1/0"}']),
                                                ("c2", "wordcount", ['{"text": "a b"}'])]),
        sdk_standin.anthropic_events(["Division by zero; 2 words."]))
    loop = load_stage("07", "loop")
    answer = loop.agent_step("1/0 and words in 'a b'", [], provider, "")
    # private on purpose: the stand-in SDK client keeps every request it was sent
    client = provider._client
    assert client.violations == [], f"the API would refuse the request: {client.violations}"
    assert answer == "Division by zero; 2 words."
    results = client.requests[1]["messages"][-1]["content"]
    assert [b.get("is_error") for b in results] == [True, None], (
        "the second request should flag the calculator's failure and only it; the results "
        f"it sent were {results}")
