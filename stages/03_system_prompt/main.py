"""Stage 03: the system prompt.

A persona and instructions, sent as the system prompt with every request. They come
from `build_context()` in context.py and live outside the history; the chat loop is
unchanged. Later stages append their tool protocol to the same prompt.

    uv run stages/03_system_prompt/main.py
"""

from context import build_context

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
        messages = history + [{"role": "user", "content": line}]
        try:
            # the reply is printed delta by delta, as it arrives
            reply = trace.stream_answer(provider.stream(messages, system))
        except KeyboardInterrupt:
            trace.note("reply cancelled; the history is unchanged")
            continue
        except ProviderError as exc:
            trace.error(str(exc))
            continue
        # only a finished exchange joins the history
        history = messages + [{"role": "assistant", "content": reply}]


def main() -> None:
    args = stage_parser(__doc__).parse_args()
    with open_session(args) as (provider, trace):
        chat(provider, trace, build_context())


if __name__ == "__main__":
    run(main)
