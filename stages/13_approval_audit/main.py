"""Stage 13: approval and an audit log.

Before a call runs, a table of its risk and the user's mode says allow, deny or ask, and
an approver answers the questions: you at the terminal, a script, or no one. Every call,
the decision, who made it and what it did goes to a hash-chained, append-only log.

    uv run stages/13_approval_audit/main.py --mode auto-edit    # type /mode to change it
    uv run tao audit WORKSPACE/.tao/audit.jsonl --verify        # the log, and its chain
"""

import shell
import workspace
from approval import MODES, Approval, Script, Terminal
from context import CONTEXT_BUDGET
from loop import MAX_ITERATIONS, agent_step, build_agent_system
from tools import RUN, TOOLS
from workspace import open_workspace

from shared.stage_main import at_least_one, open_session, run, stage_parser


def chat(provider, trace, system: str, approval: Approval, budget: int = CONTEXT_BUDGET,
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
        if line.split()[0] == "/mode":  # typed by the user: the one way the mode changes
            trace.note(approval.switch(line.split()[1:]))
            continue
        approval.turn += 1
        try:
            # the whole turn comes back: request, tool calls and results, answer
            turn = agent_step(line, history, provider, system, trace,
                              on_text_delta=trace.stream_delta, budget=budget,
                              max_iterations=max_iterations, approval=approval)
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
    parser.add_argument("--mode", choices=MODES, default="ask",
                        help="what runs without asking (default ask); /mode NAME changes it")
    parser.add_argument("--approver", default="terminal", metavar="terminal|deny|FILE",
                        help="who answers: you (default), no one, or a file of answers, one a line")
    parser.add_argument("--audit", metavar="FILE",
                        help="the audit log (default: .tao/audit.jsonl in the workspace)")
    args = parser.parse_args()
    with open_session(args) as (provider, trace), open_workspace(args.workspace) as (root, fresh):
        trace.note(f"workspace: {root}" + (" (a fresh copy of sample/)" if fresh else ""))
        trace.note(open_shell(args.sandbox, args.unconfined))  # which wall, said once
        log = open_log(args.audit)
        if args.record:  # the recording and the audit log name each other
            provider.session["audit"] = log.path
        log.write(event="session", stage=args.stage, mode=args.mode, record=args.record,
                  wall=shell.WALL.name if shell.WALL else None, workspace=str(root))
        trace.note(f"mode: {args.mode} · audit log: {log.path}")
        approval = Approval(approver(args.approver), args.mode, log)
        chat(provider, trace, build_agent_system(), approval, args.budget,
             args.max_iterations)


def open_log(path: str | None):
    """The audit log: FILE, else .tao/audit.jsonl in the workspace (no way out, no symlink)."""
    from shared.audit import AuditError, AuditLog  # the file's mechanics: not this lesson

    try:
        return AuditLog(path or workspace.inside(".tao") / "audit.jsonl", workspace.inside)
    except (workspace.Refused, AuditError) as exc:
        raise SystemExit(f"error: {exc}") from None


def approver(choice: str):
    """The approver --approver names: you, no one, or a file of answers (one a line)."""
    if choice in ("terminal", "deny"):
        return Terminal() if choice == "terminal" else Script([], "no, because --approver deny")
    try:
        with open(choice, encoding="utf-8") as answers:
            return Script(answers.read().splitlines())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"error: --approver {choice!r}: {exc}") from None


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
