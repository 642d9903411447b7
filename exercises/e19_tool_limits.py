"""Exercise 19 (stage 10): a limit per tool on calls running at once.

A server may take only two requests from you at a time. `run_limited` runs the calls
of one reply together, as stage 10's `run_calls` does, but never more than
`limits[name]` calls of one tool at the same time; a tool with no entry has no limit,
and calls to different tools never wait for each other. Results come back in call
order; `calls` and `limits` are not changed. `run` is an async function: `await
run(call)` returns that call's result.

    await run_limited(calls, run, {"fetch": 2})   # five fetches: two at a time
"""

import asyncio  # noqa: F401  (you will need it)


async def run_limited(calls: list, run, limits: dict[str, int]) -> list[str]:
    """Every call's result, in call order; at most limits[name] calls of a tool at once."""
    # TODO: one asyncio.Semaphore(n) per limited tool; `async with` it around run(call);
    #       asyncio.gather keeps the call order
    raise NotImplementedError("exercise 19: run_limited")
