"""Stage 11: workspace files.

The agent works on real files in one folder, the workspace, and checks every path once
it is resolved. It lists, reads, searches, writes and edits files; nothing outside the
workspace is read or changed.

    uv run stages/11_workspace_files/main.py                   # a fresh copy of sample/
    uv run stages/11_workspace_files/main.py --workspace DIR   # your own folder
"""

from context import CONTEXT_BUDGET
from loop import MAX_ITERATIONS, agent_step, build_agent_system
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
    args = parser.parse_args()
    with open_session(args) as (provider, trace), open_workspace(args.workspace) as (root, fresh):
        trace.note(f"workspace: {root}" + (" (a fresh copy of sample/)" if fresh else ""))
        chat(provider, trace, build_agent_system(), args.budget, args.max_iterations)


if __name__ == "__main__":
    run(main)
