"""The browser tier: the book (`tao book`) opened from file:// in a real browser, Debian's
Chromium, driven by Playwright's Python package (never `playwright install`: it would
download a browser of its own).

Without Playwright or /usr/bin/chromium each module here is skipped with one line saying
how to get them. With them, the tier still runs only when asked for by path
(`uv run --group browser pytest tests/browser`, as .ci/run does): it opens every page
twice, and `uv run pytest` stays the quick loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ON_ITS_OWN = "the browser tier runs on its own: uv run --group browser pytest tests/browser"


def pytest_collection_modifyitems(config, items):
    """Skip the tier unless the command line named this folder (or a file in it)."""
    asked = any(HERE == path or HERE in path.parents
                for path in (Path(arg.split("::")[0]).resolve() for arg in config.args))
    if not asked:
        for item in items:
            if HERE in Path(item.fspath).parents:
                item.add_marker(pytest.mark.skip(reason=ON_ITS_OWN))
