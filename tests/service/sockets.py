"""This machine's TCP sockets on a port, as the kernel lists them (/proc/net/tcp, tcp6)."""

from __future__ import annotations

LISTEN = "0A"
ESTABLISHED = "01"


def sockets(port: int, state: str) -> int:
    """Sockets whose local port is `port`, in `state` (a server's side of its connections,
    or its listeners; grpc listens on IPv6 sockets that take IPv4 too)."""
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            rows += [line.split() for line in lines.readlines()[1:]]
    return sum(1 for row in rows if int(row[1].split(":")[1], 16) == port and row[3] == state)
