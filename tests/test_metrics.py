"""Metrics: private registry, and the HTTP endpoint over a real socket on 127.0.0.1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from server.ops import metrics as metrics_module
from server.ops.metrics import Metrics, MetricsServer, refusal_reason, start_metrics_server
from server.services.clock import LoopClock
from server.ssh.limits import ConnectionGate, SSHLimits


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_metrics_use_a_private_registry() -> None:
    first, second = Metrics(), Metrics()  # a second instance must not clash
    first.sessions.set(3)
    assert second.registry is not first.registry
    assert REGISTRY.get_sample_value("lovelet_sessions") is None
    assert first.registry.get_sample_value("lovelet_sessions") == 3


def test_every_metric_is_exposed() -> None:
    m = Metrics("1.2.3")
    m.sessions.set(5)
    m.tables.inc()
    m.games_in_progress.set(1)
    m.actions.inc(7)
    m.game_finished("2019")
    m.refused("per_address")
    m.refused("made up")
    m.login(guest=True)
    m.login(guest=False)
    with m.time_update():
        pass
    got = samples(m.render().decode())
    assert got[("lovelet_sessions", ())] == 5
    assert got[("lovelet_tables", ())] == 1
    assert got[("lovelet_games_in_progress", ())] == 1
    assert got[("lovelet_actions_total", ())] == 7
    assert got[("lovelet_games_finished_total", (("edition", "2019"),))] == 1
    assert got[("lovelet_refusals_total", (("reason", "per_address"),))] == 1
    assert got[("lovelet_refusals_total", (("reason", "other"),))] == 1
    assert got[("lovelet_refusals_total", (("reason", "full"),))] == 0
    assert got[("lovelet_logins_total", (("kind", "guest"),))] == 1
    assert got[("lovelet_logins_total", (("kind", "key"),))] == 1
    assert got[("lovelet_update_latency_seconds_count", ())] == 1
    assert got[("lovelet_build_info", (("version", "1.2.3"),))] == 1


async def test_watch_lobby_reads_the_gauges_at_scrape_time() -> None:
    from protocol import TableSummary
    from server.lobby import Identity, Lobby

    lobby = Lobby(clock=LoopClock())
    m = Metrics()
    m.watch_lobby(lobby)
    assert samples(m.render().decode())[("lovelet_sessions", ())] == 0
    lobby.attach(Identity("guest:1", "alice", guest=True), lambda frame: None)
    lobby.attach(Identity("guest:2", "bob", guest=True), lambda frame: None)

    for code, status in (("A", "waiting"), ("B", "playing"), ("C", "round_over")):
        lobby.board.listed(code, TableSummary(code, "t", "2019", 4, 1, status, 0))  # as tables say
    got = samples(m.render().decode())
    assert got[("lovelet_sessions", ())] == 2
    assert got[("lovelet_tables", ())] == 3
    assert got[("lovelet_games_in_progress", ())] == 2


def test_game_statuses_exist_in_the_table() -> None:
    import inspect

    from server.lobby import runner
    from server.ops.metrics import GAME_STATUSES

    source = inspect.getsource(runner)
    assert all(f'"{status}"' in source for status in GAME_STATUSES)


def test_refusal_reasons_of_the_connection_gate() -> None:
    class Conn:
        def get_extra_info(self, name: str, default: object = None) -> object:
            return "SSH-2.0-OpenSSH_9.6"  # has sent its version: never dropped for silence

        def close(self) -> None: ...

        def abort(self) -> None: ...

    gate = ConnectionGate(SSHLimits(max_connections=2, max_per_address=1))
    assert gate.admit("a", Conn()) is None
    assert refusal_reason(gate.admit("a", Conn()) or "") == "per_address"
    assert gate.admit("b", Conn()) is None
    assert refusal_reason(gate.admit("c", Conn()) or "") == "full"
    gate.shut()
    assert refusal_reason(gate.admit("d", Conn()) or "") == "shutting_down"
    gate = ConnectionGate(SSHLimits(max_logins_in_progress=1))
    gate.admit("a", Conn())
    assert refusal_reason(gate.admit("b", Conn()) or "") == "logins_in_progress"
    gate = ConnectionGate(SSHLimits(max_logins_per_network=1))
    gate.admit("192.0.2.1", Conn())
    assert refusal_reason(gate.admit("192.0.2.2", Conn()) or "") == "logins_per_network"
    assert refusal_reason("something else") == "other"


def test_refusal_reasons_of_the_store_policy(tmp_path: Path) -> None:
    from server.commands.policy import StorePolicy
    from server.store import Store

    key = "SHA256:" + "k" * 43
    with Store.open(tmp_path / "lovelet.db") as store:
        policy = StorePolicy(store, sessions_per_identity=1)
        crowded = policy.admit(key, "192.0.2.1", "alice", {"alice": key})
        assert refusal_reason(crowded.refusal or "") == "sessions_per_identity"
        store.add_ban("address", "192.0.2.1", None, "spam")
        assert refusal_reason(policy.refuse_address("192.0.2.1") or "") == "banned"


# ----------------------------------------------------------------------------- HTTP


@pytest.fixture
async def served() -> AsyncIterator[tuple[Metrics, int, MetricsServer]]:
    m = Metrics("test")
    server = await start_metrics_server("127.0.0.1", 0, m)
    port = server.port
    yield m, port, server
    server.close()
    await server.wait_closed()


async def exchange(port: int, request: bytes, *, half_close: bool = False) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        if half_close:
            writer.write_eof()
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()


async def read_or_reset(reader: asyncio.StreamReader) -> bytes:
    """What the server sent before closing; a reset (unread data) counts as nothing."""
    try:
        return await asyncio.wait_for(reader.read(), 5)
    except ConnectionResetError:
        return b""


def parse(response: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    lines = head.decode("ascii").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return status, {k.lower(): v for k, v in headers.items()}, body


async def get(port: int, path: str) -> tuple[int, dict[str, str], bytes]:
    request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: */*\r\n\r\n".encode()
    return parse(await exchange(port, request))


async def test_metrics_endpoint(served: tuple[Metrics, int, MetricsServer]) -> None:
    m, port, _ = served
    m.sessions.set(4)
    status, headers, body = await get(port, "/metrics")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    assert int(headers["content-length"]) == len(body)
    assert headers["connection"] == "close"
    assert samples(body.decode())[("lovelet_sessions", ())] == 4


async def test_health_endpoint(served: tuple[Metrics, int, MetricsServer]) -> None:
    _, port, _ = served
    status, _, body = await get(port, "/health")
    assert (status, body) == (200, b"ok\n")
    status, _, _ = await get(port, "/health?verbose=1")
    assert status == 200


@pytest.mark.parametrize("path", ["/", "/metrics/", "/favicon.ico", "/../etc/passwd", "/HEALTH"])
async def test_other_paths_404(served: tuple[Metrics, int, MetricsServer], path: str) -> None:
    _, port, _ = served
    status, _, _ = await get(port, path)
    assert status == 404


async def test_other_methods_405(served: tuple[Metrics, int, MetricsServer]) -> None:
    _, port, _ = served
    status, _, _ = parse(await exchange(port, b"POST /metrics HTTP/1.1\r\n\r\n"))
    assert status == 405


GARBAGE = [
    b"\r\n\r\n",
    b"hello\r\n\r\n",
    b"GET /metrics\r\n\r\n",
    b"GET /metrics SMTP/1.0\r\n\r\n",
    b"\x00\xff\xfe garbage \x1b[31m\r\n\r\n",
    b"GET " + b"A" * 20_000 + b" HTTP/1.1\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\n" + b"X-Long: " + b"x" * 100_000,
]


@pytest.mark.parametrize("request_bytes", GARBAGE)
async def test_survives_garbage(
    served: tuple[Metrics, int, MetricsServer], request_bytes: bytes
) -> None:
    _, port, _ = served
    response = await exchange(port, request_bytes, half_close=True)
    if response:
        assert parse(response)[0] in (400, 431)
    assert (await get(port, "/health"))[0] == 200


async def test_survives_clients_that_hang_up(served: tuple[Metrics, int, MetricsServer]) -> None:
    _, port, _ = served
    for _ in range(5):
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /met")
        writer.close()
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.transport.abort()
    assert (await get(port, "/health"))[0] == 200


async def test_slow_clients_are_cut_off(
    served: tuple[Metrics, int, MetricsServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(metrics_module, "READ_TIMEOUT", 0.2)
    _, port, _ = served
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /metrics HTTP/1.1\r\n")  # never finishes the head
    assert await read_or_reset(reader) == b""  # closed without an answer
    writer.close()
    assert (await get(port, "/health"))[0] == 200


async def test_too_many_clients_are_turned_away(
    served: tuple[Metrics, int, MetricsServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, port, _ = served
    idle = [
        await asyncio.open_connection("127.0.0.1", port) for _ in range(metrics_module.MAX_CLIENTS)
    ]
    await asyncio.sleep(0.1)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /health HTTP/1.1\r\n\r\n")
    assert await read_or_reset(reader) == b""
    writer.close()
    for _, idle_writer in idle:
        idle_writer.close()
    await asyncio.sleep(0.1)
    assert (await get(port, "/health"))[0] == 200


async def test_server_stops_cleanly_even_with_idle_clients() -> None:
    server = await start_metrics_server("127.0.0.1", 0, Metrics())
    port = server.port
    assert (await get(port, "/health"))[0] == 200
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /")
    await asyncio.sleep(0.05)
    server.close()
    assert await read_or_reset(reader) == b""
    writer.close()
    await asyncio.wait_for(server.wait_closed(), 5)
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", port)
