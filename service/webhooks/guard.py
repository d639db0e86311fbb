"""Players' own webhook endpoints may not turn the service against internal addresses.

A player's endpoint names a host on the operator's allow-list (`webhook_player_hosts`:
names, or `*.domain` for its subdomains), and every address its name resolves to must be
public (`ipaddress`'s `is_global`: not loopback, private, link-local, shared or reserved)
or in a network the operator allows (`webhook_player_networks`). It is checked when the
player sets it and again at every connection: deliveries to players' endpoints go through
an HTTP client whose connections resolve the name themselves, check each address, and
connect to the checked address (so a name that resolves elsewhere later, DNS rebinding,
is refused then); TLS still verifies the certificate for the name.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_URL = 2048


class Refused(Exception):
    """An endpoint the guard refuses; the message says why (a name, never a secret)."""


class AddressGuard:
    def __init__(self, hosts: Iterable[str], networks: Iterable[str]) -> None:
        self.hosts = [h.strip().lower() for h in hosts if h.strip()]
        self.networks: list[Network] = [
            ipaddress.ip_network(n.strip(), strict=False) for n in networks if n.strip()
        ]

    @classmethod
    def from_settings(cls, hosts: str, networks: str) -> AddressGuard:
        return cls(hosts.split(","), networks.split(","))

    @property
    def on(self) -> bool:
        """Whether players may set endpoints at all (some host is allowed)."""
        return bool(self.hosts)

    def check_url(self, url: str) -> str:
        """The URL's host, if the URL is one a player may name (the addresses aside)."""
        if len(url) > MAX_URL:
            raise Refused(f"a webhook URL has at most {MAX_URL} characters")
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise Refused("a webhook URL is an https:// (or http://) URL with a host")
        if parts.username or parts.password:
            raise Refused("a webhook URL has no user or password")
        host = parts.hostname.lower()
        if not any(host == h or (h.startswith("*.") and host.endswith(h[1:])) for h in self.hosts):
            raise Refused(f"{host} is not among the hosts webhooks may be sent to")
        return host

    def allowed(self, address: Address) -> bool:
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if any(address in network for network in self.networks):
            return True
        return address.is_global and not address.is_multicast

    async def resolve(self, host: str, port: int) -> str:
        """The address to connect to for `host`: every address it resolves to must be
        allowed (a name with one internal address is refused whole)."""
        try:
            literal: Address | None = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            found = [literal]
        else:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(
                    host, port, type=socket.SOCK_STREAM
                )
            except OSError:
                raise Refused(f"{host} does not resolve") from None
            found = [ipaddress.ip_address(info[4][0]) for info in infos]
        refused = [str(a) for a in found if not self.allowed(a)]
        if refused or not found:
            raise Refused(f"{host} resolves to an address webhooks may not be sent to")
        return str(found[0])

    async def check(self, url: str) -> None:
        """The whole check of a URL, as at registration."""
        host = self.check_url(url)
        parts = urlsplit(url)
        await self.resolve(host, parts.port or (443 if parts.scheme == "https" else 80))


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, connecting only to addresses the guard allows."""

    def __init__(self, guard: AddressGuard) -> None:
        self.guard = guard
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = await self.guard.resolve(host, port)
        return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise Refused("no Unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guarded_client(guard: AddressGuard, limits: httpx.Limits) -> httpx.AsyncClient:
    """An HTTP client whose every connection goes through the guard (no proxies from the
    environment, TLS verified, no redirects)."""
    transport = httpx.AsyncHTTPTransport(verify=True, trust_env=False, limits=limits)
    # httpx takes no network backend: its pool is made again with ours, its TLS context kept.
    pool = transport._pool
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=pool._ssl_context,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=GuardedBackend(guard),
    )
    return httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False)
