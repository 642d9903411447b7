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

import asyncio

CANCELLED = "Error: cancelled because {name} failed"


async def run_or_cancel(calls: list, run) -> list[str]:
    """Every call's result in call order; the rest cancelled once one call fails."""
    tasks = [asyncio.create_task(run(call)) for call in calls]
    pending = set(tasks)
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        failed = [i for i, task in enumerate(tasks)
                  if task in done and task.result().startswith("Error")]
        if failed:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)  # let them wind down
            note = CANCELLED.format(name=calls[failed[0]].name)
            return [note if task.cancelled() else task.result() for task in tasks]
    return [task.result() for task in tasks]
