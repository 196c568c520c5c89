"""Source address checks: the listener's allowed CIDR ranges, and trusted proxies for X-Forwarded-For."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

from accessgov.verification.errors import SourceNotAllowedError

Network = IPv4Network | IPv6Network
Address = IPv4Address | IPv6Address


def parse_networks(cidrs: Iterable[str]) -> tuple[Network, ...]:
    networks = []
    for cidr in cidrs:
        try:
            networks.append(ip_network(cidr.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{cidr!r} is not an IPv4 or IPv6 CIDR range") from None
    return tuple(networks)


def _address(text: str | None) -> Address | None:
    if not text:
        return None
    try:
        address = ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    # An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d; compare it as IPv4.
    if isinstance(address, IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _within(address: Address, networks: Sequence[Network]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


def client_address(peer: str | None, forwarded_for: str | None, trusted_proxies: Sequence[Network]) -> Address | None:
    """The client's address: the TCP peer, unless the peer is a trusted proxy — then the right-most
    X-Forwarded-For entry that is not itself a trusted proxy."""
    address = _address(peer)
    if address is None or not forwarded_for or not _within(address, trusted_proxies):
        return address
    for hop in reversed(forwarded_for.split(",")):
        hop_address = _address(hop)
        if hop_address is None:
            return address  # A garbled chain: fall back to the proxy itself, which is then checked.
        if not _within(hop_address, trusted_proxies):
            return hop_address
        address = hop_address
    return address


def check_source_allowed(address: Address | None, allowed: Sequence[Network]) -> None:
    """No ranges means no restriction; otherwise the address must be inside one of them."""
    if not allowed:
        return
    if address is None or not _within(address, allowed):
        raise SourceNotAllowedError(
            "SOURCE_NOT_ALLOWED", f"source address {address} is not in the listener's allowed ranges"
        )
