"""Stage 01: one request, one reply.

The smallest useful program against a model: send one user message, print the answer.
No history, no system prompt, no tools yet; each of those is a later stage.

    uv run stages/01_single_call/main.py "What is an agent loop?"
"""

from shared.stage_main import open_session, run, stage_parser


def ask(provider, question: str) -> str:
    """Send one question; return the whole reply."""
    messages = [{"role": "user", "content": question}]
    return "".join(provider.stream(messages))  # the reply arrives in pieces: join them


def main() -> None:
    parser = stage_parser(__doc__)
    parser.add_argument("question", nargs="*", help="what to ask (default: read one line)")
    args = parser.parse_args()
    with open_session(args) as (provider, trace):
        if args.question:
            question = " ".join(args.question)
            trace.request(question)
        else:
            question = trace.prompt()
        trace.answer(ask(provider, question))


if __name__ == "__main__":
    run(main)
