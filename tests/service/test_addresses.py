"""The client's address behind trusted proxies, worked out once per peer and header."""

from __future__ import annotations

from genial.service.addresses import CACHED_HEADER_CHARS, ClientAddresses


def test_the_walk_stops_at_the_first_untrusted_hop_cached_or_not() -> None:
    addresses = ClientAddresses("10.0.0.0/8")
    chain = "198.51.100.9, 203.0.113.7, 10.1.1.1"
    for _ in range(2):  # the second answer comes from the cache
        assert addresses.client("10.0.0.1", chain) == "203.0.113.7"
        assert addresses.client("192.0.2.1", chain) == "192.0.2.1"  # an untrusted peer
        assert addresses.client("[::ffff:10.0.0.1]", chain) == "203.0.113.7"  # IPv4 as IPv6
        assert addresses.client("not an address", None) is None


def test_long_headers_are_worked_out_but_not_kept() -> None:
    addresses = ClientAddresses("10.0.0.0/8")
    hops = ", ".join(["10.2.2.2"] * (CACHED_HEADER_CHARS // 8))
    long_chain = f"203.0.113.7, {hops}"
    assert len(long_chain) > CACHED_HEADER_CHARS
    assert addresses.client("10.0.0.1", long_chain) == "203.0.113.7"
    addresses.client("10.0.0.1", "203.0.113.8")
    assert addresses._cached.cache_info().currsize == 1
