"""Source address checks: allowed CIDR ranges (IPv4/IPv6/mapped) and X-Forwarded-For from trusted proxies only."""

from __future__ import annotations

from ipaddress import IPv4Network, ip_address, ip_network

import pytest

from accessgov.webhooks.cidr import check_source_allowed, client_address, parse_networks
from accessgov.webhooks.errors import SourceNotAllowedError

ALLOWED = parse_networks(["203.0.113.0/24", "198.51.100.7", "2001:db8:1::/48"])
PROXIES = parse_networks(["10.0.0.0/8", "fd00::/8"])


def allowed(peer: str | None, forwarded_for: str | None = None, trusted: tuple = PROXIES) -> bool:
    try:
        check_source_allowed(client_address(peer, forwarded_for, trusted), ALLOWED)
    except SourceNotAllowedError as error:
        assert (error.code, error.status) == ("SOURCE_NOT_ALLOWED", 403)
        return False
    return True


# --- parse_networks ---------------------------------------------------------------------------------------------


def test_parse_networks_ipv4_ipv6_and_bare_addresses() -> None:
    assert parse_networks(["192.0.2.0/24", " 2001:db8::/32 ", "198.51.100.7", "::1"]) == (
        ip_network("192.0.2.0/24"),
        ip_network("2001:db8::/32"),
        ip_network("198.51.100.7/32"),
        ip_network("::1/128"),
    )
    assert parse_networks([]) == ()


def test_parse_networks_ignores_host_bits() -> None:
    assert parse_networks(["10.1.2.3/8"]) == (ip_network("10.0.0.0/8"),)


def test_parse_networks_unmaps_ipv4_mapped_ranges() -> None:
    assert parse_networks(["::ffff:192.0.2.0/120"]) == (IPv4Network("192.0.2.0/24"),)
    check_source_allowed(client_address("192.0.2.9", None, ()), parse_networks(["::ffff:192.0.2.0/120"]))


@pytest.mark.parametrize("bad", ["10.0.0.0/33", "2001:db8::/129", "example.com", "10.0.0.0/8/8", "", "1.2.3"])
def test_parse_networks_rejects_bad_input_with_a_clear_message(bad: str) -> None:
    with pytest.raises(ValueError, match="is not an IPv4 or IPv6 CIDR range") as excinfo:
        parse_networks(["192.0.2.0/24", bad])
    assert repr(bad) in str(excinfo.value)


def test_parse_networks_refuses_a_lone_string() -> None:
    with pytest.raises(ValueError, match="list of CIDR ranges"):
        parse_networks("10.0.0.0/8")


# --- allowed ranges ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("peer", ["203.0.113.0", "203.0.113.255", "198.51.100.7", "2001:db8:1::1", "2001:db8:1:ffff::"])
def test_inside_the_ranges(peer: str) -> None:
    assert allowed(peer)


@pytest.mark.parametrize(
    "peer", ["203.0.114.1", "198.51.100.8", "127.0.0.1", "2001:db8:2::1", "::1", "::cb00:7101", "64:ff9b::cb00:7101"]
)
def test_outside_the_ranges(peer: str) -> None:
    # ::203.0.113.1 (IPv4-compatible) and 64:ff9b::203.0.113.1 (NAT64) are IPv6 addresses, not mapped ones.
    assert not allowed(peer)


@pytest.mark.parametrize(("peer", "inside"), [("::ffff:203.0.113.9", True), ("::ffff:192.0.2.1", False)])
def test_ipv4_mapped_ipv6_peer_is_checked_as_ipv4(peer: str, inside: bool) -> None:
    assert client_address(peer, None, ()) == ip_address(peer).ipv4_mapped
    assert allowed(peer) is inside


def test_empty_allowed_list_is_no_restriction() -> None:
    for address in (ip_address("192.0.2.1"), ip_address("2001:db8::1"), None):
        check_source_allowed(address, ())


def test_unknown_address_is_rejected_when_ranges_are_set() -> None:
    assert client_address("not-an-address", None, ()) is None
    assert client_address(None, None, ()) is None
    with pytest.raises(SourceNotAllowedError, match="unknown"):
        check_source_allowed(None, ALLOWED)


def test_bracketed_and_ported_peers() -> None:
    assert client_address("[2001:db8:1::5]", None, ()) == ip_address("2001:db8:1::5")
    assert client_address("[2001:db8:1::5]:443", None, ()) == ip_address("2001:db8:1::5")
    assert client_address("203.0.113.4:55000", None, ()) == ip_address("203.0.113.4")


# --- X-Forwarded-For --------------------------------------------------------------------------------------------


def test_forwarded_for_is_ignored_from_an_untrusted_peer() -> None:
    assert client_address("192.0.2.66", "203.0.113.5", PROXIES) == ip_address("192.0.2.66")
    assert not allowed("192.0.2.66", "203.0.113.5")


def test_forwarded_for_is_ignored_without_trusted_proxies() -> None:
    assert client_address("10.0.0.2", "203.0.113.5", ()) == ip_address("10.0.0.2")
    assert not allowed("10.0.0.2", "203.0.113.5", trusted=())


def test_forwarded_for_is_honoured_from_a_trusted_peer() -> None:
    assert client_address("10.0.0.2", "203.0.113.5", PROXIES) == ip_address("203.0.113.5")
    assert allowed("10.0.0.2", "203.0.113.5")
    assert not allowed("10.0.0.2", "192.0.2.66")


def test_right_most_untrusted_entry_is_the_client() -> None:
    # The client wrote "203.0.113.5" itself; the proxies appended its real address 192.0.2.66, then their own.
    chain = "203.0.113.5, 192.0.2.66, 10.1.1.1"
    assert client_address("10.0.0.2", chain, PROXIES) == ip_address("192.0.2.66")
    assert not allowed("10.0.0.2", chain)


def test_only_trusted_entries_gives_the_left_most() -> None:
    assert client_address("10.0.0.2", "10.9.9.9, 10.1.1.1", PROXIES) == ip_address("10.9.9.9")


def test_forwarded_for_with_ipv6_and_mapped_entries() -> None:
    assert client_address("fd00::1", "2001:db8:1::9", PROXIES) == ip_address("2001:db8:1::9")
    assert client_address("::ffff:10.0.0.2", "::ffff:203.0.113.5", PROXIES) == ip_address("203.0.113.5")
    assert client_address("10.0.0.2", "[2001:db8:1::9]:4711", PROXIES) == ip_address("2001:db8:1::9")
    assert allowed("::ffff:10.0.0.2", "::ffff:203.0.113.5")


def test_garbled_forwarded_for_never_yields_an_attacker_chosen_address() -> None:
    address = client_address("10.0.0.2", "203.0.113.5, garbage", PROXIES)
    assert address != ip_address("203.0.113.5")
    assert not allowed("10.0.0.2", "203.0.113.5, garbage")
    assert not allowed("10.0.0.2", "203.0.113.5,,")


def test_empty_forwarded_for_uses_the_peer() -> None:
    assert client_address("10.0.0.2", "", PROXIES) == ip_address("10.0.0.2")
    assert client_address("10.0.0.2", None, PROXIES) == ip_address("10.0.0.2")
