"""Source address checks: the listener's allowed CIDR ranges, and trusted proxies for X-Forwarded-For."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address, ip_network

from accessgov.webhooks.errors import SourceNotAllowedError

Network = IPv4Network | IPv6Network
Address = IPv4Address | IPv6Address


def parse_networks(cidrs: Iterable[str]) -> tuple[Network, ...]:
    """CIDR ranges (a bare address is a /32 or /128); host bits are ignored, so 10.1.2.3/8 is 10.0.0.0/8.

    A range inside ::ffff:0:0/96 is stored as the IPv4 range it maps, because addresses are compared unmapped.
    """
    if isinstance(cidrs, str):  # a lone string would otherwise be read character by character
        raise ValueError(f"expected a list of CIDR ranges, got the string {cidrs!r}")
    networks: list[Network] = []
    for cidr in cidrs:
        try:
            network = ip_network(cidr.strip(), strict=False)
        except (ValueError, AttributeError):
            raise ValueError(f"{cidr!r} is not an IPv4 or IPv6 CIDR range") from None
        mapped = network.network_address.ipv4_mapped if isinstance(network, IPv6Network) else None
        if mapped is not None and network.prefixlen >= 96:
            network = IPv4Network((mapped, network.prefixlen - 96))
        networks.append(network)
    return tuple(networks)


@lru_cache(maxsize=4096)
def _address(text: str | None) -> Address | None:
    # Cached: the same few peers and proxy hops come back on every request (parsing one costs microseconds), and
    # addresses are immutable.
    if not text:
        return None
    text = text.strip()
    if text.startswith("["):  # [v6] or [v6]:port
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # v4:port (some proxies write the port into X-Forwarded-For)
        text = text.partition(":")[0]
    try:
        address = ip_address(text)
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
    X-Forwarded-For entry that is not itself a trusted proxy (left-most if all are).

    Pass every X-Forwarded-For header line joined with "," (proxies may add a line rather than extend one).
    Entries left of the first untrusted hop are written by the client and never looked at.
    """
    address = _address(peer)
    if address is None or not forwarded_for or not _within(address, trusted_proxies):
        return address
    for hop in reversed(forwarded_for.split(",")):
        hop_address = _address(hop)
        if hop_address is None:
            return address  # A garbled chain: fall back to the nearest trusted hop, which is then checked.
        if not _within(hop_address, trusted_proxies):
            return hop_address
        address = hop_address
    return address


def check_source_allowed(address: Address | None, allowed: Sequence[Network]) -> None:
    """No ranges means no restriction; otherwise the address must be inside one of them."""
    if not allowed:
        return
    if address is None or not _within(address, allowed):
        shown = "unknown" if address is None else str(address)
        raise SourceNotAllowedError(
            "SOURCE_NOT_ALLOWED", f"source address {shown} is not in the listener's allowed ranges"
        )
