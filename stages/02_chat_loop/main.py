"""Stage 02: the chat loop.

An outer loop reads a line, sends it with the whole history, and streams the reply as
it arrives. (Stage 01 forgot everything after one answer.) An empty line or Ctrl-D ends
the session; Ctrl-C during a reply cancels that reply and leaves the history as it was.

    uv run stages/02_chat_loop/main.py
"""

from shared.providers import ProviderError
from shared.stage_main import open_session, run, stage_parser


def chat(provider, trace) -> None:
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
            reply = trace.stream_answer(provider.stream(messages))
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
        chat(provider, trace)


if __name__ == "__main__":
    run(main)
