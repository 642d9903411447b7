# Don't change the tests! They tell you when exercises/e20_cancel_on_failure.py is done.
import asyncio

from exercise_support import need

from shared.providers import ToolCall


class Tools:
    """Fake tools: `ok` and `fail` answer after `after` event-loop steps; `hang` never
    answers unless cancelled, and records that it was."""

    def __init__(self):
        self.cancelled = []

    async def run(self, call):
        if call.name == "hang":
            try:
                await asyncio.Event().wait()  # forever, unless cancelled
            except asyncio.CancelledError:
                self.cancelled.append(call.id)
                raise
        for _ in range(call.args.get("after", 0)):
            await asyncio.sleep(0)
        return call.args["says"]


def call(i, name, says="", after=0):
    return ToolCall(str(i), name, {"says": says, "after": after})


def run(ex, todo):
    tools = Tools()
    fn = need(ex, "run_or_cancel", "calls", "run")
    try:
        results = asyncio.run(asyncio.wait_for(fn(todo, tools.run), 5))
    except TimeoutError:
        raise AssertionError("still waiting after 5 s: the hanging call was never "
                             "cancelled after the failure") from None
    return results, tools


def test_when_nothing_fails_every_result_comes_back_in_order(ex):
    results, tools = run(ex, [call(0, "ok", "a", after=3), call(1, "ok", "b"),
                              call(2, "ok", "No Error here", after=1)])
    assert results == ["a", "b", "No Error here"], "only a result *starting* with Error fails"
    assert tools.cancelled == []


def test_a_failure_cancels_what_is_still_running(ex):
    results, tools = run(ex, [call(0, "hang"), call(1, "fail", "Error: boom", after=2),
                              call(2, "hang")])
    assert tools.cancelled == ["0", "2"] or tools.cancelled == ["2", "0"]
    assert results == [ex.CANCELLED.format(name="fail"), "Error: boom",
                       ex.CANCELLED.format(name="fail")], (
        "a cancelled call says which tool failed; the failed call keeps its own error")


def test_calls_that_finished_first_keep_their_results(ex):
    results, _ = run(ex, [call(0, "ok", "early"), call(1, "hang"),
                          call(2, "fail", "Error: late", after=5)])
    assert results == ["early", ex.CANCELLED.format(name="fail"), "Error: late"]
