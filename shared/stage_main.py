"""The plumbing every stage's `main.py` shares, kept out of the lesson.

    parser = stage_parser(__doc__)       # --provider, --model, --save-trace, --show-wire
    args = parser.parse_args()
    with open_session(args) as (provider, trace):   # the one wiring point
        chat(provider, trace, ...)       # with --examples: worked_examples(args, trace)
    run(main)                            # clean one-line errors, never a traceback

`open_session` is the one place where the model meets the screen: it builds the provider
the options and the environment ask for, says once which model answers, and hands the
provider's hooks (`on_reply`, `on_notice`) to the trace; with `--show-wire` it puts a
`WireTap` between them that prints on the trace's own console. Leaving the `with` block,
however it is left, finishes the trace (and saves it, with `--save-trace`).

`run` readies the terminal (line editing where the platform has it, undecodable input read
with replacement characters instead of crashing) and turns what a learner can fix into one
line.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from .language import say
from .printable import visible
from .providers import (
    PROVIDERS,
    Divergence,
    Provider,
    ProviderError,
    build_provider,
    choose_provider,
)
from .providers.base import RecordError
from .terminal import prepare_terminal
from .trace import Trace

TRACE_FORMATS = (".svg", ".html", ".htm")
WIRE_APIS = ("anthropic", "openai")  # what --show-wire may be followed by
# set by what runs a stage in its process (tao debug), never by a stage: each
# around(provider, trace, session) returns the provider the stage talks to
AROUND: list[Callable] = []


class StageParser(argparse.ArgumentParser):
    """argparse, saying a mistake in one line, reading undecodable arguments safely, and
    taking no abbreviation (`--rec` is not `--record`: a recording keeps options by name)."""

    def __init__(self, **kwargs):
        super().__init__(allow_abbrev=False, **kwargs)

    def error(self, message: str):
        """Exit 2 with one line: what is wrong, and where help is."""
        self.exit(2, f"{self.prog}: error: {visible(message)} (see --help)\n")

    def parse_args(self, args=None, namespace=None):
        """Parse `args` (default: the command line, with undecodable bytes replaced); the
        options given (not left at their defaults) are kept too, as `given`: a recording
        keeps some of them (shared/providers/replay.py, KEPT)."""
        if args is None:
            args = [_readable(arg) for arg in sys.argv[1:]]
        args = _wire_value_only_if_named(list(args))
        parsed = super().parse_args(args, namespace)
        parsed.given = {dest: value for dest, value in vars(parsed).items()
                        if value != self.get_default(dest)}
        return parsed


def _wire_value_only_if_named(argv: list[str]) -> list[str]:
    """`--show-wire "hi"` shows the wire and asks "hi": the flag takes the next word only
    when it names an API (`--show-wire openai`), as argparse alone would not."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--show-wire" and (i + 1 == len(argv) or argv[i + 1] not in WIRE_APIS):
            argv[i] = f"--show-wire={WIRE_APIS[0]}"
    return argv


def stage_parser(doc: str | None, registry: dict | None = None) -> argparse.ArgumentParser:
    """An argument parser with the options every stage takes; a text-protocol stage gives
    its tool `registry`, and gets `--constrain` and `--examples` too."""
    lines = (doc or "").strip().splitlines()
    parser = StageParser(
        description=lines[0] if lines else None,
        epilog=say("With no key set, the built-in offline model answers."),
    )
    number = re.match(r"Stage (\d+)", lines[0]) if lines else None
    parser.set_defaults(stage=number.group(1) if number else None)  # a recording says it
    parser.add_argument("--provider", type=provider_name,
                        metavar="{" + ",".join(PROVIDERS) + ",replay:FILE}",
                        help=say("which model answers (default: TAO_PROVIDER, else a key, "
                                 "else offline); replay:FILE answers from a --record file"))
    parser.add_argument("--model", help=say("model name (default: TAO_MODEL, else the "
                                            "provider's)"))
    parser.add_argument("--save-trace", metavar="FILE.svg|.html", type=trace_path,
                        help=say("also save what was shown, as SVG or HTML, however the "
                                 "session ends"))
    parser.add_argument("--show-wire", nargs="?", const="anthropic", metavar="API",
                        choices=WIRE_APIS,
                        help=say("print each request body and the response events as they "
                                 "go over the wire; with the offline model, as they would go "
                                 "to API (anthropic, the default, or openai)"))
    parser.add_argument("--record", metavar="FILE.json", type=record_path,
                        help=say("write every request and reply to FILE, keys hidden, to "
                                 "replay later with --provider replay:FILE"))
    from .providers.offline.quirks import QUIRKS  # the names only: not the offline model

    parser.add_argument("--quirk", choices=QUIRKS,
                        help=say("make the offline model misbehave like a real one (for "
                                 "watching the loop cope)"))
    if registry is not None:
        parser.add_argument("--constrain", action="store_true",
                            help=say("let the local model write only a well-formed call "
                                     "line for these tools, or plain text (a grammar built "
                                     "from the registry; needs --provider local)"))
        parser.add_argument("--examples", action="store_true",
                            help=say("put worked examples in front of the conversation: "
                                     "one exchange per tool, its result from the tool "
                                     "itself (few-shot; shared/examples.py)"))
        parser.set_defaults(registry=registry)
    return parser


def worked_examples(args: argparse.Namespace, trace: Trace) -> list[dict]:
    """With `--examples`, the worked exchanges for the stage's registry, shown on `trace`
    as examples (shared/examples.py builds them); without it, none."""
    if not getattr(args, "examples", False):
        return []
    from .examples import build_examples  # only a session that asks for them reads it

    return build_examples(args.registry, trace)


def at_least_one(value: str) -> int:
    """A number that counts something (tokens, iterations): a whole number, 1 or more."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} is impossible here: give 1 or more")
    return number


def provider_name(value: str) -> str:
    """`value` if it names a provider, or a recording to replay (replay:FILE)."""
    if value in PROVIDERS or (value.startswith("replay:") and value != "replay:"):
        return value
    raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from "
                                     f"{', '.join(PROVIDERS)}, or replay:FILE)")


def trace_path(value: str) -> str:
    """`value` if a trace can be saved there; checked before the session, not after it."""
    path = Path(value)
    if path.suffix.lower() not in TRACE_FORMATS:
        raise argparse.ArgumentTypeError(f"{value!r}: name a .svg or .html file")
    return writable(value)


def record_path(value: str) -> str:
    """`value` if a recording can be written there: a .json file that is new, or a
    recording (--record's own, from before); nothing else is written over."""
    path = Path(value)
    if path.suffix.lower() != ".json":
        raise argparse.ArgumentTypeError(f"{value!r}: name a .json file")
    writable(value)
    from .providers.replay import is_recording  # read only when recording

    if path.exists() and not is_recording(path):
        raise argparse.ArgumentTypeError(f"{value!r} is there already and is not a "
                                         "recording: tao writes over nothing it did not make")
    return value


def writable(value: str) -> str:
    """`value` if a file can be written there: not a folder, in a folder that exists, with
    permission; ArgumentTypeError saying which, before any work is done."""
    path = Path(value)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is a folder: name a file in it")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r}: there is no folder {str(folder)!r}")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{value!r}: no permission to write there")
    return value


# ---------------------------------------------------------------- the wiring point


class Session:
    """A stage's provider and trace, wired; `with` it, and the trace is finished (and
    saved) however the block is left, with the error that ended it in the saved copy."""

    def __init__(self, provider: Provider, trace: Trace):
        self.provider, self.trace = provider, trace

    def __enter__(self) -> tuple[Provider, Trace]:
        return self.provider, self.trace

    def __exit__(self, kind, exc, traceback) -> None:
        if isinstance(exc, BrokenPipeError):
            _stdout_gone()  # the screen went away: still save what was shown
        self.trace.finish(last_words(exc)[1])


def open_session(args: argparse.Namespace, env=None) -> Session:
    """The provider and the trace a stage talks to, wired together (see the module's
    docstring); `args` from `stage_parser`, the environment read here and only here for
    what the stage options may also set (TAO_PROVIDER, TAO_MODEL, TAO_SHOW_WIRE)."""
    env = os.environ if env is None else env
    name, why = choose_provider(args.provider, env)
    show_wire = wire_flavour(args.show_wire or env.get("TAO_SHOW_WIRE"))
    if args.quirk and name != "offline":
        raise ProviderError(f"--quirk {args.quirk} makes the offline model misbehave, but "
                            f"{name} answers here: add --provider offline")
    extra = {"quirk": args.quirk} if args.quirk else {}
    if getattr(args, "constrain", False):
        extra["grammar"] = constraint(args.registry, name)
    provider = build_provider(name, args.model or env.get("TAO_MODEL") or None, **extra)
    announce(provider, why)
    trace = Trace(save=args.save_trace)
    record = getattr(args, "record", None)
    session = None
    if getattr(args, "stage", None) and (record or AROUND):  # a stage's own parser: its
        from .providers.replay import kept_options  # recording (or tao debug's script) says
        # which stage, and the options it keeps

        session = {"stage": args.stage, "argv": kept_options("stage", args.given)}
    return Session(connect(provider, trace, show_wire, record, session), trace)


def connect(provider: Provider, trace: Trace, show_wire: str | None = None,
            record: str | None = None, session: dict | None = None) -> Provider:
    """Point `provider`'s hooks at `trace`: each reply's numbers and each retry note reach
    the screen, and its secrets are hidden from everything shown. With `show_wire` (an
    API's name), return it wrapped in a WireTap that prints each request and its events
    on the trace's console; with `record` (a path), wrapped in a Recorder that writes
    each request and reply there, keys hidden, with the `session` (which stage, its
    options) and every line the trace reads, so `tao replay` can run it again."""
    provider.on_notice = trace.note
    trace.secrets = tuple(getattr(provider, "secrets", ()))  # hidden, whoever echoes them
    if show_wire:
        from .wire import WireTap  # only a session that shows the wire pays for it

        provider = WireTap(provider, trace.console, show_wire)
    if record:
        from .providers.replay import Recorder

        provider = Recorder(provider, record, session)
        trace.prompt = provider.reading(trace.prompt)
    for around in AROUND:  # outermost: it sees the stage's own requests (tao debug)
        provider = around(provider, trace, session)
    provider.on_reply = trace.model_reply
    return provider


def constraint(registry: dict, provider: str) -> str:
    """The grammar `--constrain` gives the local model: one call line to a tool of
    `registry`, or plain text. Only a model that runs here can be held to a grammar."""
    if provider != "local":
        raise ProviderError(f"--constrain holds the model to a grammar, which only the local "
                            f"model takes, but {provider} answers here: add --provider local")
    from .providers.local import tool_grammar  # builds text: imports no llama.cpp

    return tool_grammar(registry)


def announce(provider: Provider, why: str) -> None:
    """Say once, on stderr, which model answers and why; with none set, how to get one."""
    # a model's name from outside (TAO_MODEL, a recording) is shown, never obeyed
    line = visible(say("model: {model} ({why})", model=provider.describe(), why=say(why)))
    if why == "no API key is set":
        line += "\n       " + say("for a real model set ANTHROPIC_API_KEY or OPENAI_API_KEY, "
                                 "or use --provider ollama")
    print(line, file=sys.stderr)


def wire_flavour(value: str | None) -> str | None:
    """The API a --show-wire / TAO_SHOW_WIRE value asks for; None when it is off."""
    from .wire import wire_flavour as flavour  # imported only when asked about

    return flavour(value) if value else None


# ---------------------------------------------------------------- the way out


def run(main: Callable[[], object]) -> None:
    """Run a stage's main(); turn the failures a learner can fix into one line."""
    prepare_terminal()
    try:
        code, words = _run(main)
    except BrokenPipeError:  # whatever read the output (`| head`) stopped reading
        _stdout_gone()
        code, words = 1, ""
    if words:
        print(words, file=sys.stderr)
    sys.exit(code)


def _run(main: Callable[[], object]) -> tuple[int, str]:
    """main()'s exit code, and the one line that says why it ended, if it failed."""
    try:
        result = main()
    except (ProviderError, Divergence, RecordError, EOFError, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            print(file=sys.stderr)  # leave the line the ^C was typed on
        return last_words(exc)
    return (result if isinstance(result, int) else 0), ""


def last_words(exc: BaseException | None) -> tuple[int, str]:
    """The exit code for a session ended by `exc`, and the line that says so ("" if none).
    Ctrl-D where a stage reads one line only ends it quietly: the trace says bye."""
    if isinstance(exc, (ProviderError, RecordError)):
        return 1, say("error: {message}", message=visible(str(exc)))
    if isinstance(exc, Divergence):  # the session stops: nothing after it would be replayed
        return 1, f"{visible(str(exc))}; the replay stops here"
    if isinstance(exc, KeyboardInterrupt):
        return 130, say("cancelled (Ctrl-C)")
    return 0, ""


def _stdout_gone() -> None:
    """Point stdout at nothing, so no later print or flush fails on a closed pipe."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _readable(arg: str) -> str:
    """A command-line argument with undecodable bytes as U+FFFD, not lone surrogates."""
    encoding = sys.getfilesystemencoding()
    return arg.encode(encoding, "surrogateescape").decode(encoding, "replace")
