"""Stage 07: native tool calling.

The same agent on the providers' own tool APIs: tools are sent with JSON Schema, calls
come back in their own slot, several per reply, and the text streams live again.

    uv run stages/07_native_tools/main.py
"""

from loop import agent_step, build_agent_system

from shared.providers import ProviderError
from shared.stage_main import open_session, run, stage_parser


def chat(provider, trace, system: str) -> None:
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
            answer = agent_step(line, history, provider, system, trace,
                                on_text_delta=trace.stream_delta)
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
    args = stage_parser(__doc__).parse_args()
    with open_session(args) as (provider, trace):
        chat(provider, trace, build_agent_system())


if __name__ == "__main__":
    run(main)
