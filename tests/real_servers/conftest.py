"""The real-server tier: servers nobody here wrote, serving a real model on the CPU.

Each server starts from the `local` extra on 127.0.0.1 and a free port, is waited for
with a bound, and is stopped by its pid when the tests that use it are done (servers.py).
Without the extra every test here is skipped, with one line saying how to get it. With
it, the tier still runs only when asked for by path (`uv run pytest tests/real_servers`,
as .ci/run does): it takes minutes, and `uv run pytest` stays the quick loop.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from servers import free_port, needs_the_extra, start, stop

HERE = Path(__file__).resolve().parent
INSIDE = f"{HERE}{os.sep}"  # the start of every path in this folder: a test is here or not
ON_ITS_OWN = "the real-server tier runs on its own: uv run pytest tests/real_servers"


def pytest_collection_modifyitems(config, items):
    """Skip the tier unless the command line named this folder (or a file in it)."""
    asked = any(HERE == path or HERE in path.parents
                for path in (Path(arg.split("::")[0]).resolve() for arg in config.args))
    if not asked:
        for item in items:
            if str(item.path).startswith(INSIDE):
                item.add_marker(pytest.mark.skip(reason=ON_ITS_OWN))


@pytest.fixture(scope="session")
def model_path() -> Path:
    """The default model's file, from the extra (never downloaded)."""
    needs_the_extra()
    from shared.providers.local import model_file

    return model_file(env={})


@pytest.fixture(scope="session")
def llama_cpp_python(model_path, tmp_path_factory):
    """llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`)."""
    port = free_port()
    log = tmp_path_factory.mktemp("llama_cpp_python") / "server.log"
    process, server = start("llama-cpp-python's server", [
        sys.executable, "-m", "llama_cpp.server", "--model", str(model_path),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--seed", "1234",
        "--verbose", "False"], port, log)
    try:
        yield server
    finally:
        stop(process)
