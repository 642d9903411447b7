"""The plumbing every stage's `main.py` shares, kept out of the lesson.

    parser = stage_parser(__doc__)       # --provider, --model, --save-trace, --show-wire
    run(main)                            # clean one-line errors, never a traceback

`run` also readies the terminal: line editing (readline) where the platform has it,
undecodable input read with replacement characters instead of crashing, and any
`--save-trace` file written on every way out.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from .providers import PROVIDERS, ProviderError
from .providers.offline import QUIRKS
from .trace import finish_open_traces, visible

TRACE_FORMATS = (".svg", ".html", ".htm")


class StageParser(argparse.ArgumentParser):
    """argparse, saying a mistake in one line, and reading undecodable arguments safely."""

    def error(self, message: str):
        """Exit 2 with one line: what is wrong, and where help is."""
        self.exit(2, f"{self.prog}: error: {visible(message)} (see --help)\n")

    def parse_args(self, args=None, namespace=None):
        """Parse `args` (default: the command line, with undecodable bytes replaced)."""
        if args is None:
            args = [_readable(arg) for arg in sys.argv[1:]]
        return super().parse_args(args, namespace)


def stage_parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser with the options every stage takes."""
    lines = (doc or "").strip().splitlines()
    parser = StageParser(
        description=lines[0] if lines else None,
        epilog="With no key set, the built-in offline model answers.",
    )
    parser.add_argument("--provider", choices=PROVIDERS,
                        help="which model answers (default: TAO_PROVIDER, else a key, "
                             "else offline)")
    parser.add_argument("--model", help="model name (default: TAO_MODEL, else the provider's)")
    parser.add_argument("--save-trace", metavar="FILE.svg|.html", type=trace_path,
                        help="also save what was shown, as SVG or HTML, however the "
                             "session ends")
    parser.add_argument("--show-wire", nargs="?", const="anthropic", metavar="API",
                        choices=("anthropic", "openai"), action=_ShowWireAction,
                        help="print each request body and the response events as they go "
                             "over the wire; with the offline model, as they would go to "
                             "API (anthropic, the default, or openai)")
    parser.add_argument("--quirk", choices=QUIRKS, action=_QuirkAction,
                        help="make the offline model misbehave like a real one (for watching "
                             "the loop cope)")
    return parser


def trace_path(value: str) -> str:
    """`value` if a trace can be saved there; checked before the session, not after it."""
    path = Path(value)
    if path.suffix.lower() not in TRACE_FORMATS:
        raise argparse.ArgumentTypeError(f"{value!r}: name a .svg or .html file")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r} is a folder: name a file in it")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{value!r}: there is no folder {str(folder)!r}")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{value!r}: no permission to write there")
    return value


class _QuirkAction(argparse.Action):
    """--quirk sets TAO_OFFLINE_QUIRK, which the offline model reads when it is built."""

    def __call__(self, parser, namespace, value, option_string=None):
        os.environ["TAO_OFFLINE_QUIRK"] = value
        setattr(namespace, self.dest, value)


class _ShowWireAction(argparse.Action):
    """--show-wire sets TAO_SHOW_WIRE, which get_provider reads to wrap the provider."""

    def __call__(self, parser, namespace, value, option_string=None):
        os.environ["TAO_SHOW_WIRE"] = value
        setattr(namespace, self.dest, value)


def run(main: Callable[[], object]) -> None:
    """Run a stage's main(); turn the failures a learner can fix into one line."""
    prepare_terminal()
    try:
        code = _run(main)
    except BrokenPipeError:  # whatever read the output (`| head`) stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error
        finish_open_traces()
        code = 1
    sys.exit(code)


def _run(main: Callable[[], object]) -> int:
    """main()'s exit code; an error or Ctrl-C said in one line; open traces finished."""
    code, last_words = 0, ""
    try:
        result = main()
        code = result if isinstance(result, int) else 0
    except ProviderError as exc:
        code, last_words = 1, f"error: {visible(str(exc))}"
    except EOFError:  # Ctrl-D where a stage reads one line only: the trace says bye
        pass
    except KeyboardInterrupt:
        code, last_words = 130, "cancelled (Ctrl-C)"
        print(file=sys.stderr)  # leave the line the ^C was typed on
    finally:
        if last_words:
            print(last_words, file=sys.stderr)
        finish_open_traces(last_words)  # whatever happened, what was shown is not lost
    return code


def prepare_terminal() -> None:
    """Any bytes in, any text out; line editing and history where `readline` exists."""
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            # invalid UTF-8 becomes U+FFFD instead of an exception (or of surrogates
            # that crash the SDKs when the text is sent)
            reconfigure(errors="replace")
    for ending in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):  # `kill`, a closed window
        if ending is not None:
            signal.signal(ending, _leave)
    try:
        if sys.stdin is not None and sys.stdin.isatty():
            import readline  # noqa: F401  (importing it is what turns line editing on)
    except ImportError:  # Windows: plain input(), still correct
        pass


def _leave(signum, frame) -> None:
    """A request to stop from outside: leave through run(), so the trace is still saved."""
    raise SystemExit(128 + signum)


def _readable(arg: str) -> str:
    """A command-line argument with undecodable bytes as U+FFFD, not lone surrogates."""
    encoding = sys.getfilesystemencoding()
    return arg.encode(encoding, "surrogateescape").decode(encoding, "replace")
