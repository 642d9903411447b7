# Don't change the tests! They tell you when exercises/e19_tool_limits.py is done.
import asyncio
from collections import Counter

from exercise_support import need

from shared.providers import ToolCall


class Server:
    """A fake tool runner that records how many calls of each tool run at once."""

    def __init__(self):
        self.running, self.most = Counter(), Counter()
        self.most_overall = 0

    async def run(self, call):
        self.running[call.name] += 1
        self.most[call.name] = max(self.most[call.name], self.running[call.name])
        self.most_overall = max(self.most_overall, sum(self.running.values()))
        await asyncio.sleep(call.args["seconds"])  # a short, bounded wait
        self.running[call.name] -= 1
        return f"{call.name} {call.id}"


def calls(*names, seconds=0.02):
    """One reply's calls, as stage 10's offline model sends them (ids offline_call_N)."""
    return [ToolCall(f"offline_call_{i}", name, {"seconds": seconds})
            for i, name in enumerate(names, start=1)]


def limited(ex, todo, limits):
    server = Server()
    fn = need(ex, "run_limited", "calls", "run", "limits")
    try:
        results = asyncio.run(asyncio.wait_for(fn(todo, server.run, limits), 5))
    except TimeoutError:
        raise AssertionError("still waiting after 5 s: some call waits for a gate that never "
                             "opens") from None
    return results, server


def test_a_limited_tool_never_runs_more_than_its_limit(ex):
    _, server = limited(ex, calls(*["fetch"] * 5), {"fetch": 2})
    assert server.most["fetch"] == 2, (
        f"five fetches with a limit of 2 should run two at a time, but {server.most['fetch']}"
        " ran at once")


def test_the_limits_are_not_changed(ex):
    given = {"fetch": 2}
    limited(ex, calls("fetch", "search", "now"), given)
    assert given == {"fetch": 2}, (
        f"run_limited changed the limits it was given to {given}: a tool with no entry has "
        "no limit, and the caller's dict is theirs")


def test_each_limited_tool_has_a_gate_of_its_own(ex):
    _, server = limited(ex, calls(*["fetch", "search"] * 4), {"fetch": 2, "search": 2})
    assert (server.most["fetch"], server.most["search"]) == (2, 2), (
        "four fetches and four searches, each limited to 2, should run two of each at "
        f"once; at most {server.most['fetch']} fetches and {server.most['search']} searches "
        "ran together")
    assert server.most_overall == 4, (
        f"two fetches and two searches run together: 4 calls at once, not "
        f"{server.most_overall} (one gate shared by both tools?)")


def test_a_limit_on_any_tool_holds(ex):
    _, server = limited(ex, calls("search", "fetch", "search", "fetch", "search"),
                        {"search": 1})
    assert server.most["search"] == 1, (
        f"searches are limited to 1, but {server.most['search']} ran at once")
    assert server.most["fetch"] == 2, "fetch has no limit here: both fetches run at once"


def test_other_tools_are_not_held_back(ex):
    _, server = limited(ex, calls("fetch", "fetch", "fetch", "search", "search", "search"),
                        {"fetch": 1})
    assert server.most["fetch"] == 1, f"fetch is limited to 1, {server.most['fetch']} ran"
    assert server.most["search"] == 3, (
        f"a tool without a limit runs all its calls at once: 3 searches, not "
        f"{server.most['search']}")
    assert server.most_overall == 4, (
        f"calls to different tools never wait for each other: one fetch and three searches "
        f"run together, 4 at once, not {server.most_overall}")


def test_results_come_back_in_call_order(ex):
    todo = [ToolCall(f"offline_call_{i}", "fetch", {"seconds": s})
            for i, s in enumerate([0.04, 0.03, 0.02, 0.01, 0], start=1)]
    results, _ = limited(ex, todo, {"fetch": 3})
    expected = [f"fetch offline_call_{i}" for i in range(1, 6)]
    assert results == expected, (
        f"results in the order of the calls, whichever finishes first: expected {expected}, "
        f"got {results}")


def test_no_limits_means_everything_at_once(ex):
    results, server = limited(ex, calls("now", "fetch", "now"), {})
    assert server.most_overall == 3, f"no limits: all 3 at once, not {server.most_overall}"
    assert results == ["now offline_call_1", "fetch offline_call_2", "now offline_call_3"], (
        f"results in call order, got {results}")


def test_the_calls_are_not_changed(ex):
    todo = calls("search", "fetch", "now", "fetch")
    before = list(todo)
    results, _ = limited(ex, todo, {"fetch": 1})
    assert todo == before, (
        f"run_limited changed the list of calls it was given (now {[c.id for c in todo]}): "
        "the calls are the reply's, keep them as they came")
    assert results == [f"{c.name} {c.id}" for c in before]


def test_a_limit_as_large_as_the_calls_holds_nothing_back(ex):
    _, server = limited(ex, calls("fetch", "fetch", "fetch"), {"fetch": 3})
    assert server.most["fetch"] == 3, (
        f"three fetches with a limit of 3 all run at once, not {server.most['fetch']}")


def test_each_run_has_gates_of_its_own(ex):
    _, first = limited(ex, calls("fetch", "fetch", "fetch"), {"fetch": 1})
    _, second = limited(ex, calls("fetch", "fetch", "fetch"), {"fetch": 3})
    assert (first.most["fetch"], second.most["fetch"]) == (1, 3), (
        "a run with {'fetch': 1}, then one with {'fetch': 3}: each keeps its own limit, so 1 "
        f"then 3 fetches at once, not {first.most['fetch']} then {second.most['fetch']} "
        "(gates kept in the module from one run to the next?)")


def test_no_calls_no_results(ex):
    results, _ = limited(ex, [], {"fetch": 2})
    assert results == [], f"no calls, no results; got {results}"
