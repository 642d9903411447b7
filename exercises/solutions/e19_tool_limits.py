"""Exercise 19 (stage 10): a limit per tool on calls running at once.

A server may take only two requests from you at a time. `run_limited` runs the calls
of one reply together, as stage 10's `run_calls` does, but never more than
`limits[name]` calls of one tool at the same time; a tool with no entry has no limit,
and calls to different tools never wait for each other. Results come back in call
order; `calls` and `limits` are not changed. `run` is an async function: `await
run(call)` returns that call's result.

    await run_limited(calls, run, {"fetch": 2})   # five fetches: two at a time
"""

import asyncio


async def run_limited(calls: list, run, limits: dict[str, int]) -> list[str]:
    """Every call's result, in call order; at most limits[name] calls of a tool at once."""
    gates = {name: asyncio.Semaphore(n) for name, n in limits.items()}  # one per tool

    async def one(call):
        if call.name not in gates:
            return await run(call)
        async with gates[call.name]:  # waits here while `n` calls of this tool are running
            return await run(call)

    return list(await asyncio.gather(*(one(call) for call in calls)))
