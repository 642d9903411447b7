"""Stage 06: a tool registry.

Several tools (`now`, `wordcount`, `calculator`) live in one registry in tools.py, and
the system prompt's tool list is generated from it. The loop now coaches near misses.

    uv run stages/06_tool_registry/main.py
"""

from loop import TOOLS, agent_step, build_agent_system

from shared.providers import ProviderError
from shared.stage_main import open_session, run, stage_parser, worked_examples


def chat(provider, trace, system: str, history: list[dict]) -> None:
    """Read lines until an empty one (or Ctrl-D); each reply sees the whole history."""
    while True:
        try:
            line = trace.prompt()
        except EOFError:
            break
        if not line.strip():
            break
        try:
            answer = agent_step(line, history, provider, system, trace)
        except KeyboardInterrupt:
            trace.note("reply cancelled; the history is unchanged")
            continue
        except ProviderError as exc:
            trace.error(str(exc))
            continue
        trace.answer(answer)
        # only the final answer joins the history: this turn's tool calls are forgotten
        history = history + [{"role": "user", "content": line},
                             {"role": "assistant", "content": answer}]


def main() -> None:
    args = stage_parser(__doc__, TOOLS).parse_args()  # the registry: for --constrain
    with open_session(args) as (provider, trace):
        chat(provider, trace, build_agent_system(), worked_examples(args, trace))


if __name__ == "__main__":
    run(main)
