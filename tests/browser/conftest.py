"""The browser tier: the book (`tao book`) opened from file:// in a real browser, Debian's
Chromium, driven by Playwright's Python package (never `playwright install`: it would
download a browser of its own).

Without Playwright or /usr/bin/chromium each module here is skipped with one line saying
how to get them. With them, the tier still runs only when asked for by path
(`uv run --group browser pytest tests/browser`, as .ci/run does): it opens every page
twice, and `uv run pytest` stays the quick loop.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
INSIDE = f"{HERE}{os.sep}"  # the start of every path in this folder: a test is here or not
ON_ITS_OWN = "the browser tier runs on its own: uv run --group browser pytest tests/browser"


def pytest_collection_modifyitems(config, items):
    """Unless the command line named this folder (or a file in it): one test skipped with
    the reason, the others deselected, so a plain run says it once."""
    asked = any(HERE == path or HERE in path.parents
                for path in (Path(arg.split("::")[0]).resolve() for arg in config.args))
    mine = [item for item in items if str(item.path).startswith(INSIDE)]
    if asked or not mine:
        return
    mine[0].add_marker(pytest.mark.skip(reason=ON_ITS_OWN))
    config.hook.pytest_deselected(items=mine[1:])
    items[:] = [item for item in items if item not in mine[1:]]
