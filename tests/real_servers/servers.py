"""Starting and stopping a real server for the tier: on 127.0.0.1 and a free port,
waited for with a bound, stopped by its pid."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

READY_WITHIN = 60.0  # seconds a server may take to load the model and answer
STOP_WITHIN = 10.0  # seconds it gets to exit after SIGTERM, before SIGKILL
NEEDS = "the real-server tier needs the extra: uv sync --extra local"


def needs_the_extra() -> None:
    """Skip the calling module, with one line, when llama-cpp-python is absent."""
    pytest.importorskip("llama_cpp", reason=NEEDS)


@dataclass
class Server:
    """A running server: where it listens, its pid, and the file its log goes to."""

    name: str
    base_url: str  # what an OpenAI SDK takes: http://127.0.0.1:<port>/v1
    pid: int
    log: Path

    def posts(self) -> int:
        """How many chat requests the server has logged so far (its access log line
        may follow the answer by a moment: wait until the count holds still)."""
        count, settled = -1, time.monotonic() + 0.3
        while time.monotonic() < settled or count < 0:
            latest = self.log.read_text(errors="replace").count('"POST /v1/chat/completions HTTP')
            if latest != count:
                count, settled = latest, time.monotonic() + 0.3
            time.sleep(0.05)
        return count

    def post(self, body: dict) -> tuple[int, dict]:
        """Send one raw chat request (no SDK, no retry): (status, JSON answer)."""
        request = urllib.request.Request(f"{self.base_url}/chat/completions",
                                         json.dumps(body).encode(),
                                         {"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read() or b"{}")


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 now (the server binds it a moment later)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(name: str, command: list[str], port: int, log: Path) -> tuple[subprocess.Popen,
                                                                         Server]:
    """Start `command`, then wait (bounded) until GET /v1/models answers."""
    with log.open("wb") as out:
        # unbuffered, so the log (which `posts` counts) is written as things happen
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    server = Server(name, f"http://127.0.0.1:{port}/v1", process.pid, log)
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stop(process)
            pytest.fail(f"{name} exited with {process.returncode} before it was ready: "
                        f"{log.read_text(errors='replace')[-800:]}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=2):
                return process, server
        except OSError:
            time.sleep(0.25)
    stop(process)
    pytest.fail(f"{name} did not answer within {READY_WITHIN:g} s: "
                f"{log.read_text(errors='replace')[-800:]}")


def stop(process: subprocess.Popen) -> None:
    """Stop the server by its pid: SIGTERM, then SIGKILL if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_WITHIN)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(STOP_WITHIN)
