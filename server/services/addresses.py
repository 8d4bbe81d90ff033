"""What limits per address count: one client address, as the SSH layer and the lobby see it."""

from __future__ import annotations

import ipaddress


def address_key(address: str, ipv6_prefix: int = 64) -> str:
    """What per-address limits count: an IPv4 address, or the IPv6 network it lies in.

    IPv4-mapped IPv6 addresses count as their IPv4 address; anything unparsable as itself.
    """
    return network_key(address, 32, ipv6_prefix)


def network_key(address: str, ipv4_prefix: int = 24, ipv6_prefix: int = 64) -> str:
    """What per-network limits count: the IPv4 /`ipv4_prefix` or IPv6 /`ipv6_prefix` network
    `address` lies in (a whole address as itself), as `address_key` reads it."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = ipv4_prefix if ip.version == 4 else ipv6_prefix
    if prefix == ip.max_prefixlen:
        return str(ip)
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))
