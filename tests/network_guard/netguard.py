"""Refuse every connection the tests could make beyond this machine.

`install()` wraps the socket routes out of the process: `connect`, `connect_ex`, `sendto`,
`sendmsg` and the name lookups. An address that is not loopback raises `NetworkBlocked`
before the real call runs, so no packet leaves. The test process installs it from
`tests/conftest.py`; every subprocess the tests start gets it from `sitecustomize.py`
beside this file, which `tests/helpers.py: clean_env` (and the conftest) put on
PYTHONPATH. Only `socket` is imported here: a guarded stage starts as fast as a bare one.
"""

from __future__ import annotations

import socket

GUARDED_FAMILIES = (socket.AF_INET, socket.AF_INET6)
LOCAL_NAMES = ("localhost", "localhost.", "")


class NetworkBlocked(RuntimeError):
    """A test tried to reach an address outside this machine."""


def is_loopback(host) -> bool:
    """True for `localhost`, 127.0.0.0/8 and ::1; False for any other name or address."""
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if host is None or host in LOCAL_NAMES:
        return True
    import ipaddress  # only when a socket is used: keeps interpreter start-up unchanged

    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False  # a name other than localhost: resolving it would reach a DNS server


def _refuse_outside(sock, address, route: str) -> None:
    """Raise NetworkBlocked if `address` is an internet address off this machine."""
    if sock.family in GUARDED_FAMILIES and not is_loopback(address[0]):
        raise NetworkBlocked(f"tests must not reach the network: {route} to {address[0]!r}")


def _wrap_address_last(real, route: str):
    """A socket method whose last positional argument is the address, like `connect`."""
    def guarded(self, *args):
        if args:
            _refuse_outside(self, args[-1], route)
        return real(self, *args)
    guarded.__wrapped__ = real
    return guarded


def _wrap_sendmsg(real):
    """sendmsg, whose address is its optional fourth argument."""
    def guarded(self, buffers, ancdata=(), flags=0, address=None):
        if address is not None:
            _refuse_outside(self, address, "sendmsg")
            return real(self, buffers, ancdata, flags, address)
        return real(self, buffers, ancdata, flags)
    guarded.__wrapped__ = real
    return guarded


def _wrap_lookup(real, route: str):
    """A name lookup that resolves only local names."""
    def guarded(host, *args, **kwargs):
        if not is_loopback(host):
            raise NetworkBlocked(f"tests must not reach the network: {route} of {host!r}")
        return real(host, *args, **kwargs)
    guarded.__wrapped__ = real
    return guarded


def install() -> None:
    """Guard this process's sockets; a second call changes nothing."""
    cls = socket.socket
    if getattr(cls.connect, "__wrapped__", None) is not None:
        return
    cls.connect = _wrap_address_last(cls.connect, "connect")
    cls.connect_ex = _wrap_address_last(cls.connect_ex, "connect_ex")
    cls.sendto = _wrap_address_last(cls.sendto, "sendto")
    cls.sendmsg = _wrap_sendmsg(cls.sendmsg)
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        setattr(socket, name, _wrap_lookup(getattr(socket, name), name))
