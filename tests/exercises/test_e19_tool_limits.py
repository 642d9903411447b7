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
    return [ToolCall(str(i), name, {"seconds": seconds}) for i, name in enumerate(names)]


def limited(ex, todo, limits):
    server = Server()
    fn = need(ex, "run_limited", "calls", "run", "limits")
    results = asyncio.run(asyncio.wait_for(fn(todo, server.run, limits), 10))
    return results, server


def test_a_limited_tool_never_runs_more_than_its_limit(ex):
    _, server = limited(ex, calls(*["fetch"] * 5), {"fetch": 2})
    assert server.most["fetch"] == 2, (
        f"with a limit of 2, {server.most['fetch']} fetches ran at once")


def test_other_tools_are_not_held_back(ex):
    _, server = limited(ex, calls("fetch", "fetch", "fetch", "search", "search", "search"),
                        {"fetch": 1})
    assert server.most["fetch"] == 1
    assert server.most["search"] == 3, "a tool without a limit runs all its calls at once"
    assert server.most_overall == 4, "calls to different tools never wait for each other"


def test_results_come_back_in_call_order(ex):
    todo = [ToolCall(str(i), "fetch", {"seconds": s})
            for i, s in enumerate([0.04, 0.03, 0.02, 0.01, 0])]
    results, _ = limited(ex, todo, {"fetch": 3})
    assert results == [f"fetch {i}" for i in range(5)]


def test_no_limits_means_everything_at_once(ex):
    results, server = limited(ex, calls("a", "b", "a"), {})
    assert server.most_overall == 3 and results == ["a 0", "b 1", "a 2"]
