# Don't change the tests! They tell you when exercises/e07_error_flag.py is done.
import copy

import sdk_standin
from exercise_support import need

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


def test_error_flagging_sends_the_flag_in_a_real_turn(ex):
    cls = need(ex, "ErrorFlagging")
    provider = sdk_standin.provider(
        cls, "anthropic",
        sdk_standin.anthropic_events([], tools=[("c1", "calculator", ['{"expression": "1/0"}']),
                                                ("c2", "wordcount", ['{"text": "a b"}'])]),
        sdk_standin.anthropic_events(["Division by zero; 2 words."]))
    loop = load_stage("07", "loop")
    answer = loop.agent_step("1/0 and words in 'a b'", [], provider, "")
    client = provider._client
    assert client.violations == [], f"the API would refuse the request: {client.violations}"
    assert answer == "Division by zero; 2 words."
    results = client.requests[1]["messages"][-1]["content"]
    assert [b.get("is_error") for b in results] == [True, None], (
        "the second request should flag the calculator's failure and only it; the results "
        f"it sent were {results}")
