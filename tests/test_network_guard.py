"""The network guard refuses every route out of the machine, here and in subprocesses.

Each route is tried against 192.0.2.1 (TEST-NET-1, reserved for documentation: never a
real host) with a short timeout. The guard must refuse before the real call, so no
packet leaves; without the guard a route would fail differently (a timeout, "network is
unreachable") or succeed, and the test says which. Loopback must keep working: the fake
API servers the provider tests use live there.

Run as a script, this file prints one `route: outcome` line per route: the subprocess
tests run it that way.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import netguard
import pytest
from helpers import ROOT, clean_env

OUTSIDE = "192.0.2.1"
TIMEOUT = 0.2


def _tcp() -> socket.socket:
    """A TCP socket that gives up quickly."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(TIMEOUT)
    return sock


def _udp() -> socket.socket:
    """A UDP socket."""
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)


def try_connect(host, port):
    """connect() to (host, port)."""
    with _tcp() as sock:
        return sock.connect((host, port))


def try_connect_ex(host, port):
    """connect_ex() to (host, port): an error number, not an exception."""
    with _tcp() as sock:
        return sock.connect_ex((host, port))


def try_sendto(host, port):
    """One UDP datagram with sendto(data, address)."""
    with _udp() as sock:
        return sock.sendto(b"x", (host, port))


def try_sendto_with_flags(host, port):
    """One UDP datagram with sendto(data, flags, address)."""
    with _udp() as sock:
        return sock.sendto(b"x", 0, (host, port))


def try_sendmsg(host, port):
    """One UDP datagram with sendmsg(..., address)."""
    with _udp() as sock:
        return sock.sendmsg([b"x"], [], 0, (host, port))


def try_create_connection(host, port):
    """socket.create_connection(): a name lookup, then connect()."""
    with socket.create_connection((host, port), timeout=TIMEOUT):
        return "connected"


ROUTES = {"connect": try_connect, "connect_ex": try_connect_ex, "sendto": try_sendto,
          "sendto+flags": try_sendto_with_flags, "sendmsg": try_sendmsg,
          "create_connection": try_create_connection}
LOOKUPS = {"getaddrinfo": lambda: socket.getaddrinfo("example.invalid", 80),
           "gethostbyname": lambda: socket.gethostbyname("example.invalid")}


def outcome(attempt) -> str:
    """`blocked` if the guard refused the attempt, else what happened instead."""
    try:
        result = attempt()
    except Exception as exc:  # the guard's own class, whichever copy of the module raised it
        if type(exc).__name__ == "NetworkBlocked":
            return "blocked"
        return f"NOT blocked: {type(exc).__name__}: {exc}"
    return f"NOT blocked: returned {result!r}"


def outcomes() -> dict[str, str]:
    """Every route out of the machine, and what the guard made of it."""
    tried = {name: outcome(lambda fn=fn: fn(OUTSIDE, 9)) for name, fn in ROUTES.items()}
    tried.update({name: outcome(fn) for name, fn in LOOKUPS.items()})
    return tried


def run_probe(env) -> subprocess.CompletedProcess:
    """This file run as a script in a subprocess with `env`."""
    return subprocess.run([sys.executable, str(Path(__file__).resolve())], env=env,
                          capture_output=True, text=True, encoding="utf-8", cwd=ROOT,
                          timeout=20)


def parse(stdout: str) -> dict[str, str]:
    """The probe's `route: outcome` lines as a dict."""
    return dict(line.split(": ", 1) for line in stdout.splitlines() if ": " in line)


# ---------------------------------------------------------------- the test process


@pytest.mark.parametrize("route", [*ROUTES, *LOOKUPS])
def test_every_route_out_is_refused_in_process(route):
    attempt = ROUTES.get(route)
    result = outcome(lambda: attempt(OUTSIDE, 9)) if attempt else outcome(LOOKUPS[route])
    assert result == "blocked", f"{route} to {OUTSIDE} was not refused by the guard: {result}"


def test_loopback_still_works_in_process():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert try_connect_ex("127.0.0.1", port) == 0, "the guard refused a loopback connect_ex"
        try_connect("localhost", port)
    with _udp() as receiver:
        receiver.bind(("127.0.0.1", 0))
        receiver.settimeout(2)
        address = receiver.getsockname()
        try_sendto(*address)
        try_sendmsg(*address)
        assert receiver.recv(8) == b"x" and receiver.recv(8) == b"x"
    assert socket.getaddrinfo("localhost", 80)


# ---------------------------------------------------------------- subprocesses


def test_every_route_out_is_refused_in_a_subprocess_with_the_test_env():
    done = run_probe(clean_env())
    assert done.returncode == 0, done.stderr
    seen = parse(done.stdout)
    assert set(seen) == {*ROUTES, *LOOKUPS}, f"the probe did not try every route: {done.stdout}"
    leaks = {route: result for route, result in seen.items() if result != "blocked"}
    assert not leaks, f"a subprocess started with clean_env() can reach the network: {leaks}"


def test_a_subprocess_that_inherits_the_environment_is_guarded_too():
    done = run_probe(None)  # as subprocess.run(...) without env= does
    assert done.returncode == 0, done.stderr
    leaks = {route: result for route, result in parse(done.stdout).items()
             if result != "blocked"}
    assert parse(done.stdout) and not leaks, f"an inheriting subprocess is unguarded: {leaks}"


def test_the_probe_reports_anything_but_the_guards_refusal_as_a_leak():
    # the subprocess verdicts above mean something only if `outcome` tells them apart
    def refused():
        raise netguard.NetworkBlocked("no")

    def unreachable():
        raise OSError(101, "Network is unreachable")

    assert outcome(refused) == "blocked"
    assert outcome(unreachable).startswith("NOT blocked: OSError")
    assert outcome(lambda: 0) == "NOT blocked: returned 0"


@pytest.mark.parametrize(("host", "real_calls"), [(OUTSIDE, 0), ("127.0.0.1", 1)])
def test_the_guard_refuses_before_the_real_call(host, real_calls):
    calls = []
    # private on purpose: the guard's wrapper, tested without a socket
    guarded = netguard._wrap_address_last(lambda sock, *args: calls.append(args), "connect")
    sock = SimpleNamespace(family=socket.AF_INET)
    if real_calls:
        guarded(sock, (host, 9))
    else:
        with pytest.raises(netguard.NetworkBlocked, match="connect to '192.0.2.1'"):
            guarded(sock, (host, 9))
    assert len(calls) == real_calls, "the real socket call ran for an outside address"


if __name__ == "__main__":
    for name, result in outcomes().items():
        print(f"{name}: {result}")
