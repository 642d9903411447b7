"""Stage 12: a confined shell.

The agent gets a shell, and every command runs inside a wall the operating system holds.
`run` starts it in the workspace, behind bubblewrap or else Landlock: no network, no keys
in its environment, resource limits, and a timeout that kills all it started.

    uv run stages/12_confined_shell/main.py                        # the first wall that works
    uv run stages/12_confined_shell/main.py --sandbox landlock     # or bwrap
"""

import shell
from context import CONTEXT_BUDGET
from loop import MAX_ITERATIONS, agent_step, build_agent_system
from tools import RUN, TOOLS
from workspace import open_workspace

from shared.stage_main import at_least_one, open_session, run, stage_parser


def chat(provider, trace, system: str, budget: int = CONTEXT_BUDGET,
         max_iterations: int = MAX_ITERATIONS) -> None:
    """Read lines until an empty one (or Ctrl-D); each reply sees the whole history."""
    history: list[dict] = []
    while True:
        try:
            line = trace.prompt()
        except EOFError:
            break
        if not line.strip():
            break
        try:
            # the whole turn comes back: request, tool calls and results, answer
            turn = agent_step(line, history, provider, system, trace,
                              on_text_delta=trace.stream_delta, budget=budget,
                              max_iterations=max_iterations)
        except KeyboardInterrupt:
            trace.note("reply cancelled; the history is unchanged")
            continue
        finally:
            shell.stop_all()  # a cancelled turn leaves no command running
        if turn.stop_reason == "error":
            trace.error(turn.answer)
        else:
            trace.answer(turn.answer)
        trace.note(f"turn ended: {turn.stop_reason}")  # the reason, as data the code can use
        history = turn.messages


def main() -> None:
    parser = stage_parser(__doc__)
    parser.add_argument("--budget", type=at_least_one, default=CONTEXT_BUDGET,
                        help=f"tokens one request may take (default {CONTEXT_BUDGET})")
    parser.add_argument("--max-iterations", type=at_least_one, default=MAX_ITERATIONS,
                        help=f"model calls one turn may make (default {MAX_ITERATIONS})")
    parser.add_argument("--workspace", metavar="DIR",
                        help="the folder the agent works on (default: a fresh copy of the "
                             "sample project, removed when the session ends)")
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "landlock"), default="auto",
                        help="the wall around `run` (default: the first that works here)")
    parser.add_argument("--unconfined", action="store_true",
                        help="offer `run` even where no wall works: commands run unconfined")
    args = parser.parse_args()
    with open_session(args) as (provider, trace), open_workspace(args.workspace) as (root, fresh):
        trace.note(f"workspace: {root}" + (" (a fresh copy of sample/)" if fresh else ""))
        trace.note(open_shell(args.sandbox, args.unconfined))  # which wall, said once
        chat(provider, trace, build_agent_system(), args.budget, args.max_iterations)


def open_shell(choice: str, unconfined: bool) -> str:
    """Offer `run` inside the wall `choice` asks for; without one, only if `unconfined`.
    Returns the line that says which wall applies."""
    from shared.sandbox import find_wall  # the mechanics: not part of this lesson

    shell.WALL, why = find_wall(choice)
    if shell.WALL is None and not unconfined:
        return f"shell: not offered, no wall works here ({why}); --unconfined offers it"
    TOOLS.append(RUN)
    return f"shell: {shell.WALL.name}" if shell.WALL else "shell: NOT CONFINED"


if __name__ == "__main__":
    run(main)
