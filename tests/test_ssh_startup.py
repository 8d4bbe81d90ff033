"""Start-up floods (issue 34): under pressure, connections that have sent no SSH version string
go first, and logins in progress are capped per network as well as per address. Real SSH
clients against the real server on loopback; each attacker from its own /24 (127.0.N.1)
unless the test says otherwise, real players from 127.1.0.0/24."""

from __future__ import annotations

import contextlib
import logging
from pathlib import Path

import pytest
from sshclient import LoginRefused, SSHTerminal
from test_ops_limits import serving
from test_ssh_hostile import STALLED, FakeConn, closed_by_server, half_open, refusals, signed_in

from server.ops.logs import EVENTS
from server.services.addresses import network_key
from server.ssh.limits import EARLY_DROP, ConnectionGate, SSHLimits


@pytest.fixture
def events(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger=EVENTS)
    return caplog


def attacker(number: int) -> str:
    """The address of attacker `number`, in a /24 of its own."""
    return f"127.0.{number}.1"


async def test_silent_connections_from_many_networks_do_not_lock_real_players_out(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with serving(tmp_path) as server, contextlib.AsyncExitStack() as stack:
        attackers = [attacker(number) for number in range(1, 41)]  # twice concurrent_logins
        for source in attackers:
            await stack.enter_async_context(half_open(server.port, source))
        for number in range(3):
            await signed_in(server.port, f"real{number}", source=f"127.1.0.{2 + number}")
        dropped = refusals(events, "silent")
        assert len(dropped) >= 21  # the 20 over the cap, then room for the first player
        assert set(dropped) <= set(attackers)
        assert server.refusals("silent") == len(dropped)


async def test_a_connection_that_sent_its_version_is_not_dropped_ahead_of_silent_ones(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    settings = {"concurrent_logins": 4, "early_drop_start": 2, "early_drop_rate": 1.0}
    async with (
        serving(tmp_path, **settings) as server,
        half_open(server.port, attacker(1), STALLED) as spoke,  # the oldest, and it spoke
        half_open(server.port, attacker(2)) as silent,
        half_open(server.port, attacker(3)),
        half_open(server.port, attacker(4)),
    ):
        await signed_in(server.port, "real", source="127.1.0.2")  # no early drop: 1 spoke
        assert await closed_by_server(silent)  # the longest silent made room
        assert not spoke.at_eof()
        assert attacker(1) not in refusals(events, "silent")
        assert refusals(events, "early_drop") == []


def test_under_pressure_a_connection_silent_for_a_second_is_dropped_first() -> None:
    now, dropped = [0.0], []
    limits = SSHLimits(early_drop_start=2, early_drop_rate=1.0, version_timeout=1.0)
    gate = ConnectionGate(limits, chance=lambda: 0.5, clock=lambda: now[0], dropped=dropped.append)
    quiet, spoke, young = FakeConn(version=None), FakeConn(), FakeConn(version=None)
    assert gate.admit("192.0.2.1", quiet) is None
    now[0] = 5.0
    assert gate.admit("198.51.100.1", spoke) is None  # 1 in progress: no pressure, quiet stays
    assert dropped == []
    assert gate.admit("203.0.113.1", young) is None  # 2: under pressure, quiet silent 5 s goes
    assert dropped == ["192.0.2.1"]
    now[0] = 5.9
    assert gate.admit("203.0.113.2", FakeConn()) is None  # young, silent 0.9 s, stays
    assert dropped == ["192.0.2.1"]
    now[0] = 6.0
    assert gate.admit("203.0.113.3", FakeConn()) == EARLY_DROP  # young went; 2 spoke: drop
    assert dropped == ["192.0.2.1", "203.0.113.1"]
    assert (quiet.aborted, young.aborted, spoke.aborted) == (True, True, False)


async def test_logins_in_progress_are_capped_per_network(
    tmp_path: Path, events: pytest.LogCaptureFixture
) -> None:
    async with (
        serving(tmp_path, logins_per_network=3) as server,
        contextlib.AsyncExitStack() as stack,
    ):
        for host in (2, 3, 4):  # three addresses of one /24
            await stack.enter_async_context(half_open(server.port, f"127.0.5.{host}"))
        with pytest.raises(LoginRefused) as refused:
            async with SSHTerminal.connect(server.port, source="127.0.5.5"):
                pass
        assert "Too many logins in progress from your network" in refused.value.banner
        await signed_in(server.port, "neighbour", source="127.0.6.2")
        assert refusals(events, "logins_per_network") == ["127.0.5.5"]


def test_networks_are_a_24_or_a_64_and_one_ipv6_host_cannot_pass_the_cap() -> None:
    assert network_key("192.0.2.7") == network_key("::ffff:192.0.2.200") == "192.0.2.0/24"
    assert network_key("192.0.2.7", 32) == "192.0.2.7"
    assert network_key("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::/64"
    gate = ConnectionGate(SSHLimits(ipv6_prefix=128, max_logins_per_network=2))
    assert gate.admit("2001:db8::1", FakeConn()) is None
    assert gate.admit("2001:db8::2", FakeConn()) is None
    assert "from your network" in (gate.admit("2001:db8::3", FakeConn()) or "")
    assert gate.admit("2001:db8:0:1::1", FakeConn()) is None
