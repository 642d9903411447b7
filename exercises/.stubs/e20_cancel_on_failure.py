"""Exercise 20 (stage 10): stop the other calls when one fails.

Some replies ask for calls that only make sense together: once one has failed, waiting
for the others wastes time. `run_or_cancel` runs the calls at once; as soon as one
returns a result that starts with "Error", every call still running is cancelled and its
result becomes CANCELLED.format(name=<the tool of the call that failed>) (if several
fail at the same moment, the first of them in call order). The cancelled calls are
awaited, so their clean-up has run before the results come back. Calls that finished
before keep their results, each failed call keeps its own error, and the results come
back in call order. `run` is an async function: `await run(call)` returns a string.
"""

import asyncio  # noqa: F401  (you will need it)

CANCELLED = "Error: cancelled because {name} failed"  # Don't change this line


async def run_or_cancel(calls: list, run) -> list[str]:
    """Every call's result in call order; the rest cancelled once one call fails."""
    # TODO: asyncio.create_task per call; asyncio.wait(..., return_when=FIRST_COMPLETED)
    #       in a loop; on a failure, task.cancel() what is pending, then await it
    raise NotImplementedError("exercise 20: run_or_cancel")
