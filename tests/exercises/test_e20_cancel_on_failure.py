# Don't change the tests! They tell you when exercises/e20_cancel_on_failure.py is done.
import asyncio

from exercise_support import need

from shared.providers import ToolCall


class Tools:
    """Fake stage-10 tools. A call answers `says` after `after` event-loop steps; a call
    with `says` None never answers unless cancelled, and records when its clean-up ran."""

    def __init__(self):
        self.cancelled = []
        self.running = self.most = 0  # how many calls run at once, and the most at once

    async def run(self, call):
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            return await self._answer(call)
        finally:
            self.running -= 1

    async def _answer(self, call):
        if call.args["says"] is None:
            try:
                await asyncio.Event().wait()  # forever, unless cancelled
            except asyncio.CancelledError:
                await asyncio.sleep(0)  # clean-up takes a step, as closing a connection does
                self.cancelled.append(call.id)
                raise
        for _ in range(call.args["after"]):
            await asyncio.sleep(0)
        return call.args["says"]


class LastFirst(asyncio.Task):
    """A task that a set lists after the tasks made after it. The order of a set (such as
    the `done` that asyncio.wait returns) is arbitrary; here it is the reverse of the call
    order, every time, so an answer that takes it for the call order fails every time."""

    made = 0

    def __init__(self, *args, **kwargs):
        LastFirst.made += 1
        self.rank = (1 << 20) - LastFirst.made  # smaller for later tasks: earlier in a set
        super().__init__(*args, **kwargs)  # which files the task in a set: rank comes first

    def __hash__(self):
        return self.rank


def last_first(loop, coro, **kwargs):
    """The event loop's task factory: every task created is a LastFirst."""
    return LastFirst(coro, loop=loop, **kwargs)


def call(n, name, says=None, after=0):
    """A call of one reply, as the offline model numbers them; says=None: it hangs."""
    return ToolCall(f"offline_call_{n}", name, {"says": says, "after": after})


def run(ex, todo):
    """(results, the ids whose clean-up had run when the results came back, tools)."""
    tools = Tools()
    fn = need(ex, "run_or_cancel", "calls", "run")

    async def main():
        asyncio.get_running_loop().set_task_factory(last_first)
        async with asyncio.timeout(2):  # the reference takes milliseconds
            results = await fn(todo, tools.run)
        return results, list(tools.cancelled)

    try:
        results, wound_down = asyncio.run(main())
    except TimeoutError:
        raise AssertionError("still waiting after 2 s: a call that was still running was "
                             "never cancelled after the failure") from None
    return results, wound_down, tools


def cancelled(ex, name):
    return ex.CANCELLED.format(name=name)


def test_when_nothing_fails_every_result_comes_back_in_call_order(ex):
    results, _, tools = run(ex, [call(1, "fetch", "<html>example.org</html>", after=3),
                                 call(2, "now", "2026-12-01T12:00:00+00:00"),
                                 call(3, "search", "No Error here: 3 results", after=1)])
    expected = ["<html>example.org</html>", "2026-12-01T12:00:00+00:00",
                "No Error here: 3 results"]
    assert results == expected, (
        f"nothing failed (a result fails only if it *starts* with Error), so every result "
        f"comes back, in call order, not in the order they finished: expected {expected}, "
        f"got {results}")
    assert tools.cancelled == [], f"nothing failed, yet {tools.cancelled} were cancelled"


def test_a_failure_cancels_what_is_still_running(ex):
    results, _, tools = run(ex, [call(1, "search"),
                                 call(2, "fetch", "Error: example.org did not answer", after=2),
                                 call(3, "now")])
    assert sorted(tools.cancelled) == ["offline_call_1", "offline_call_3"], (
        "the two calls still running when fetch failed should be cancelled, and awaited so "
        f"that their clean-up runs; it ran for {tools.cancelled or 'none of them'}")
    expected = [cancelled(ex, "fetch"), "Error: example.org did not answer",
                cancelled(ex, "fetch")]
    assert results == expected, (
        "a cancelled call says which tool failed (fetch, not its own name); the failed call "
        f"keeps its own error: expected {expected}, got {results}")


def test_the_cancelled_calls_have_wound_down_before_the_results_come_back(ex):
    results, wound_down, _ = run(ex, [call(1, "search"),
                                      call(2, "fetch", "Error: timed out", after=1)])
    assert wound_down == ["offline_call_1"], (
        "when run_or_cancel returned, the cancelled search had not finished its clean-up: "
        "after task.cancel(), await the cancelled tasks (asyncio.gather(..., "
        "return_exceptions=True)) so they wind down first")
    assert results == [cancelled(ex, "fetch"), "Error: timed out"], f"got {results}"


def test_calls_that_finished_first_keep_their_results(ex):
    results, _, _ = run(ex, [call(1, "now", "12:00"), call(2, "search"),
                             call(3, "fetch", "Error: late", after=5)])
    expected = ["12:00", cancelled(ex, "fetch"), "Error: late"]
    assert results == expected, (
        f"now finished before fetch failed, so it keeps its result; only the search still "
        f"running is cancelled: expected {expected}, got {results}")


def test_any_result_starting_with_error_is_a_failure(ex):
    results, _, _ = run(ex, [call(1, "fetch", "Error 404: no such page"),
                             call(2, "search", "3 results", after=3)])
    expected = ["Error 404: no such page", cancelled(ex, "fetch")]
    assert results == expected, (
        f"'Error 404: ...' starts with Error, so it is a failure and the search still "
        f"running is cancelled: expected {expected}, got {results}")


def test_failures_at_the_same_moment_are_all_seen_and_the_first_names_it(ex):
    results, _, _ = run(ex, [call(1, "now", "12:00", after=1),
                             call(2, "fetch", "Error: example.org did not answer", after=1),
                             call(3, "search", "Error: quota used up", after=1),
                             call(4, "now")])
    expected = ["12:00", "Error: example.org did not answer", "Error: quota used up",
                cancelled(ex, "fetch")]
    assert results == expected, (
        "now, fetch and search finish in the same step; fetch, the first failure in call "
        "order, names the failure, each failed call keeps its own error: expected "
        f"{expected}, got {results}")


def test_the_calls_run_at_once(ex):
    results, _, tools = run(ex, [call(1, "fetch", "page", after=2), call(2, "search", "3 hits",
                                                                         after=2),
                                 call(3, "now", "12:00", after=2)])
    assert results == ["page", "3 hits", "12:00"] and tools.most == 3, (
        f"the three calls should run at once (3 running together, not {tools.most}), and "
        f"give {['page', '3 hits', '12:00']}, not {results}")


def test_a_single_failing_call_keeps_its_error_and_no_calls_give_no_results(ex):
    results, _, _ = run(ex, [call(1, "fetch", "Error: example.org did not answer")])
    assert results == ["Error: example.org did not answer"], (
        f"one call that fails: its own error, and nothing to cancel; got {results}")
    results, _, _ = run(ex, [])
    assert results == [], f"no calls, no results; got {results}"


def test_only_error_as_written_is_a_failure(ex):
    results, _, tools = run(ex, [call(1, "search", "error: 0 matches is not a failure"),
                                 call(2, "fetch", "page", after=3)])
    assert results == ["error: 0 matches is not a failure", "page"] and not tools.cancelled, (
        "a failure is a result that starts with 'Error', as written; 'error: ...' does not, "
        f"so nothing is cancelled: got {results}, cancelled {tools.cancelled}")


def test_every_call_that_finishes_together_is_looked_at(ex):
    results, _, _ = run(ex, [call(1, "fetch", "Error: example.org did not answer", after=1),
                             call(2, "now", "12:00", after=1), call(3, "now", "12:00", after=1),
                             call(4, "search")])
    assert results == ["Error: example.org did not answer", "12:00", "12:00",
                       cancelled(ex, "fetch")], (
        "three calls finish in the same step, the first of them failing: every call done at "
        "that moment must be looked at, so the failure is seen and the search still running "
        f"is cancelled; got {results}")


def test_the_first_failure_in_call_order_names_it_whatever_the_sets_order(ex):
    results, _, _ = run(ex, [call(1, "fetch", "Error: fetch failed", after=1),
                             call(2, "search", "Error: search failed", after=1),
                             call(3, "now")])
    assert results[-1] == cancelled(ex, "fetch"), (
        "fetch and search fail in the same step: fetch, first in call order, names the "
        "failure; the set of finished tasks that asyncio.wait returns has no order (here it "
        f"lists search first), so walk the calls in their order; got {results[-1]!r}")
