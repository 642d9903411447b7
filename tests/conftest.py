"""Every test runs offline: no provider keys, and no connection beyond this machine."""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # tests/ helpers: fake_api

from helpers import REMOVED  # noqa: E402  (tests/ is on sys.path from the line above)


def _is_loopback(host) -> bool:
    if host in ("localhost", "", None):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False


class NetworkBlocked(RuntimeError):
    pass


_real_connect = socket.socket.connect
_real_getaddrinfo = socket.getaddrinfo


def _guarded_connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
        raise NetworkBlocked(f"tests must not reach the internet: connect to {address[0]!r}")
    return _real_connect(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if not _is_loopback(host if not isinstance(host, bytes) else host.decode()):
        raise NetworkBlocked(f"tests must not reach the internet: name lookup of {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def offline_only(monkeypatch):
    """No keys from the developer's shell, and a clear failure on any outside address."""
    for name in REMOVED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    import shared.providers as providers

    monkeypatch.setattr(providers, "_announced", True)  # keep stderr quiet in-process
