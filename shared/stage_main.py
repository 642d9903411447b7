"""The plumbing every stage's `main.py` shares, kept out of the lesson.

    parser = stage_parser(__doc__)       # --provider, --model, --save-trace
    run(main)                            # clean one-line errors, never a traceback
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from .providers import PROVIDERS, ProviderError
from .providers.offline import QUIRKS


def stage_parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser with the options every stage takes."""
    lines = (doc or "").strip().splitlines()
    parser = argparse.ArgumentParser(
        description=lines[0] if lines else None,
        epilog="With no key set, the built-in offline model answers.",
    )
    parser.add_argument("--provider", choices=PROVIDERS,
                        help="which model answers (default: TAO_PROVIDER, else a key, "
                             "else offline)")
    parser.add_argument("--model", help="model name (default: TAO_MODEL, else the provider's)")
    parser.add_argument("--save-trace", metavar="FILE.svg|.html",
                        help="also save what was shown, as SVG or HTML")
    parser.add_argument("--quirk", choices=QUIRKS, action=_QuirkAction,
                        help="make the offline model misbehave like a real one (for watching "
                             "the loop cope)")
    return parser


class _QuirkAction(argparse.Action):
    """--quirk sets TAO_OFFLINE_QUIRK, which the offline model reads when it is built."""

    def __call__(self, parser, namespace, value, option_string=None):
        os.environ["TAO_OFFLINE_QUIRK"] = value
        setattr(namespace, self.dest, value)


def run(main: Callable[[], object]) -> None:
    """Run a stage's main(); turn the failures a learner can fix into one line."""
    try:
        code = main()
    except ProviderError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    except (KeyboardInterrupt, EOFError):
        print("\nbye", file=sys.stderr)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
