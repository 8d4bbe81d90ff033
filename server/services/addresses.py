"""What limits per address count: one client address, as the SSH layer and the lobby see it."""

from __future__ import annotations

import ipaddress


def address_key(address: str, ipv6_prefix: int = 64) -> str:
    """What per-address limits count: an IPv4 address, or the IPv6 network it lies in.

    IPv4-mapped IPv6 addresses count as their IPv4 address; anything unparsable as itself.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/{ipv6_prefix}", strict=False))
