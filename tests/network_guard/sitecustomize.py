"""Run at the start of every Python subprocess the tests start: guard its sockets."""

import netguard

netguard.install()
