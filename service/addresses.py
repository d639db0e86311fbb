"""The client's address, for the limits that count per address.

Behind a proxy (a Kubernetes ingress controller, say) every client reaches the worker from
the proxy's address, and the proxy tells the client's in X-Forwarded-For. Anybody can send
that header, so it is believed only from the proxies the operator trusts
(`trusted_proxies`), and only as far as it goes back through them: the client is the
right-most address that is not a trusted proxy. An address that is not an IP address ends
the walk (what lies left of it is anyone's invention).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _ip(text: str) -> IpAddress | None:
    text = text.strip().strip("[]")
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    # An IPv4 client seen through an IPv6 socket is the IPv4 client.
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return mapped or ip


CACHED_PAIRS = 4096
"""Answers kept: a worker sees the same few peers and proxy chains call after call, and
parsing them costs more than a lookup (ipaddress: several µs a call, 2% of a move)."""
CACHED_HEADER_CHARS = 256
"""Longer X-Forwarded-For values are worked out each time: kept, a flood of long made-up
headers would hold CACHED_PAIRS of them in memory."""


class ClientAddresses:
    def __init__(self, trusted_proxies: str) -> None:
        self.trusted = [
            ipaddress.ip_network(cidr.strip(), strict=False)
            for cidr in trusted_proxies.split(",")
            if cidr.strip()
        ]
        self._cached = lru_cache(maxsize=CACHED_PAIRS)(self._client)

    def _is_trusted(self, ip: IpAddress) -> bool:
        return any(ip in network for network in self.trusted)

    def client(self, peer: str | None, forwarded_for: str | None) -> str | None:
        """The client of a connection from `peer` that says `forwarded_for`."""
        if forwarded_for and len(forwarded_for) > CACHED_HEADER_CHARS:
            return self._client(peer, forwarded_for)
        return self._cached(peer, forwarded_for)

    def _client(self, peer: str | None, forwarded_for: str | None) -> str | None:
        ip = _ip(peer) if peer else None
        if ip is None:
            return None
        if forwarded_for and self._is_trusted(ip):
            for hop in reversed(forwarded_for.split(",")):
                forwarded = _ip(hop)
                if forwarded is None:
                    break
                ip = forwarded
                if not self._is_trusted(ip):
                    break
        return str(ip)
