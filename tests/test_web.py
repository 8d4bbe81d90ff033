"""The web front-end without a browser: what the page is made of and the headers it is sent
with, and the SSH layer's limits on WebSockets (per address, keys, resizes, shutdown), against
a real in-process server and a real WebSocket client."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from e2e_helpers import Server, running_server
from redis_helpers import redis_server
from test_ssh_input import until
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.bus import broker
from server.bus.web_logins import RedisLogins
from server.lobby import TableSettings
from server.ops.config import Limits
from server.ssh.driver import INPUT_FLOOD
from server.ssh.guard import TOO_MANY_RESIZES
from server.ssh.web_login import (
    LINK_SECONDS,
    LINKS_PER_KEY,
    SESSION_SECONDS,
    SESSIONS_PER_KEY,
    UNAVAILABLE,
    LoginStore,
    LoginsUnavailable,
    MemoryLogins,
    WebLogins,
    command_answer,
)
from server.web.connection import KEEP_ALIVE_REQUESTS, parse_resize
from server.web.origin import allowed_origins, origin_of, public_url
from server.web.pages import ASSETS, CSP, PAGE

ASSETS_DIR = Path(__file__).resolve().parent.parent / "server" / "web" / "assets"
FROZEN = TableSettings(bot_delay=0.0, round_pause=600.0)


@asynccontextmanager
async def web_server(tmp_path: Path, **config: Any) -> AsyncIterator[tuple[Server, str]]:
    """An in-process server with its web front-end on a free port; the page's URL."""
    async with running_server(tmp_path, FROZEN, web_listen="127.0.0.1:0", **config) as server:
        web = server.running.web
        assert web is not None
        yield server, web.url


@asynccontextmanager
async def socket(
    url: str, name: str, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientConnection]:
    """A WebSocket as the page opens it (its own origin), with these extra `headers`."""
    ws_url = url.replace("http://", "ws://") + f"/ws?name={name}&cols=100&rows=30"
    async with connect(
        ws_url,
        origin=url,  # type: ignore[arg-type]
        compression=None,
        additional_headers=headers,
    ) as ws:
        yield ws


ESCAPES = re.compile(rb"\x1b\[[0-9;?$]*[A-Za-z~]|\x1b\][^\x07]*\x07")
"""Control sequences (CSI and OSC) in the terminal stream."""


def plain(data: bytes) -> str:
    """The text in a terminal stream, its control sequences left out."""
    return ESCAPES.sub(b"", data).decode(errors="replace")


async def read_until(ws: ClientConnection, seen: Callable[[bytes], bool]) -> bytes:
    """What the server sent until `seen` holds of all of it (or the socket closed)."""
    received = b""
    async with asyncio.timeout(15):
        while not seen(received):
            try:
                message = await ws.recv()
            except ConnectionClosed:
                return received
            assert isinstance(message, bytes)
            received += message
    return received


# ---------------------------------------------------------------- the page


def test_the_page_runs_no_inline_script_and_loads_nothing_from_another_origin() -> None:
    page = (ASSETS_DIR / PAGE[0]).read_text()
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.S)
    assert scripts and all('src="/assets/' in attrs and not body.strip() for attrs, body in scripts)
    assert not re.search(r"\son\w+=", page), "an inline event handler"
    loaded = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert loaded and all(link.startswith("/assets/") for link in loaded), loaded
    for path in loaded:
        assert path in ASSETS, path  # served from the package
    assert "script-src 'self';" in CSP and "unsafe-eval" not in CSP
    assert "'unsafe-inline'" not in CSP.split("script-src")[1].split(";")[0]


def test_xterm_ships_with_its_licence_and_pinned_version() -> None:
    vendor = ASSETS_DIR / "vendor"
    assert (
        "MIT" in (vendor / "LICENSE.xterm").read_text()
        or "Permission is hereby granted" in (vendor / "LICENSE.xterm").read_text()
    )
    assert (vendor / "LICENSE.addon-fit").is_file()
    versions = (vendor / "VERSIONS").read_text()
    script = (Path(__file__).resolve().parent.parent / ".ci" / "xterm").read_text()
    for package, variable in (
        ("@xterm/xterm", "XTERM_VERSION"),
        ("@xterm/addon-fit", "FIT_VERSION"),
    ):
        pinned = re.search(rf"^{variable}=(\S+)$", script, re.M)
        assert pinned is not None and f"{package} {pinned[1]}\n" in versions


async def test_the_page_and_its_assets_are_served_with_the_security_headers(
    tmp_path: Path,
) -> None:
    async with web_server(tmp_path) as (_, url):
        for path in ["/", "/t/K7QX", *ASSETS]:
            response = await asyncio.to_thread(urllib.request.urlopen, url + path)
            assert response.status == 200, path
            assert response.headers["Content-Security-Policy"] == CSP
            assert response.headers["X-Content-Type-Options"] == "nosniff"
        with pytest.raises(urllib.error.HTTPError) as missing:
            await asyncio.to_thread(urllib.request.urlopen, url + "/server/web/session.py")
        assert missing.value.code == 404


# ---------------------------------------------------------------- where browsers come from


def test_the_allowed_origins_are_the_public_urls_alone_once_one_is_set() -> None:
    assert origin_of("https://Play.Example.org:443/") == "https://play.example.org"
    public = "https://play.example.org"
    assert allowed_origins(public, "", "127.0.0.1", 8080) == {public}
    assert public_url(public, "", "127.0.0.1", 8080) == public
    local = allowed_origins("", "", "127.0.0.1", 8080)
    assert local == {"http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"}
    assert allowed_origins("", "games.lan", "192.168.1.5", 80) == {"http://games.lan"}
    with pytest.raises(ValueError):
        origin_of("javascript:alert(1)")


def test_a_resize_message_is_two_whole_numbers_or_nothing() -> None:
    assert parse_resize(json.dumps({"cols": 90, "rows": 30})) == (90, 30)
    for bad in ["", "[1, 2]", '{"cols": 1.5, "rows": 2}', '{"cols": true, "rows": 2}', "x" * 100]:
        assert parse_resize(bad) is None, bad


# ---------------------------------------------------------------- the SSH layer's limits


async def test_connections_over_the_per_address_limit_are_told_why_and_closed(
    tmp_path: Path,
) -> None:
    async with (
        web_server(tmp_path, limits=Limits(per_address=2)) as (_, url),
        socket(url, "one") as one,
        socket(url, "two") as two,
    ):
        for ws in (one, two):
            await read_until(ws, lambda seen: "signed in as" in plain(seen))
        async with socket(url, "three") as three:
            said = await read_until(three, lambda seen: False)
            assert b"Too many connections from your address." in said
            assert three.close_code == 1008
        await one.close()
        async with socket(url, "four") as four:  # a place came free
            await read_until(four, lambda seen: "signed in as four" in plain(seen))


async def test_connections_that_send_no_request_are_bounded_per_address(tmp_path: Path) -> None:
    async with web_server(tmp_path, limits=Limits(per_address=3)) as (_, url):
        port = int(url.rpartition(":")[2])
        silent = [await connect_from("127.0.0.2", port) for _ in range(3)]
        assert await get_page("127.0.0.2", port) is None  # a fourth is dropped at once
        assert await get_page("127.0.0.3", port) == b"HTTP/1.1 200 OK"  # another address
        for _, writer in silent:
            writer.close()
        deadline = asyncio.get_running_loop().time() + 10
        while await get_page("127.0.0.2", port) is None:  # once the server saw them close
            assert asyncio.get_running_loop().time() < deadline, "the address stayed blocked"


async def connect_from(source: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection to the server from the loopback address `source`."""
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def get_page(source: str, port: int) -> bytes | None:
    """The status line of `GET /` from `source`; None if the server dropped the connection."""
    reader, writer = await connect_from(source, port)
    try:
        writer.write(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        async with asyncio.timeout(5):
            line = await reader.readline()
        return line.rstrip(b"\r\n") or None
    except ConnectionError:
        return None
    finally:
        writer.close()


async def get(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str
) -> tuple[int, dict[str, str], bytes]:
    """`GET path` on an open connection: the answer's status, headers and body."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    async with asyncio.timeout(10):
        status = int((await reader.readline()).split()[1])
        headers = {}
        while line := (await reader.readline()).rstrip(b"\r\n"):
            name, _, value = line.decode().partition(":")
            headers[name.lower()] = value.strip()
        body = await reader.readexactly(int(headers["content-length"]))
    return status, headers, body


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """True once the server has closed the connection (within 10 s)."""
    async with asyncio.timeout(10):
        try:
            return await reader.read() == b""
        except ConnectionResetError:
            return True


async def test_a_connection_is_kept_alive_for_the_pages_assets_within_bounds(
    tmp_path: Path,
) -> None:
    async with web_server(tmp_path, limits=Limits(per_address=2, handshake_timeout=1)) as (_, url):
        port = int(url.rpartition(":")[2])
        reader, writer = await connect_from("127.0.0.2", port)
        for n in range(1, KEEP_ALIVE_REQUESTS + 1):  # the page and its assets, and again
            path = ["/", *ASSETS][n % (len(ASSETS) + 1)]
            status, headers, body = await get(reader, writer, path)
            assert status == 200 and body, path
            assert headers["content-security-policy"] == CSP
            last = n == KEEP_ALIVE_REQUESTS
            assert headers["connection"] == ("close" if last else "keep-alive"), n
        assert await closed_by_server(reader)  # the last allowed request closes it
        writer.close()
        idle = [await connect_from("127.0.0.3", port) for _ in range(2)]
        for reader, writer in idle:
            assert (await get(reader, writer, "/me"))[1]["connection"] == "keep-alive"
        third = await connect_from("127.0.0.3", port)  # over per_address: the oldest idle goes
        assert (await get(*third, "/favicon.ico"))[0] == 204
        assert await closed_by_server(idle[0][0])
        assert (await get(*idle[1], "/me"))[0] == 200  # the other still serves
        assert await closed_by_server(idle[1][0])  # until idle for handshake_timeout
        for _, writer in [*idle, third]:
            writer.close()


async def test_behind_a_proxy_on_this_machine_the_forwarded_address_counts(
    tmp_path: Path,
) -> None:
    forwarded = {"X-Forwarded-For": "198.51.100.1, 203.0.113.9"}  # the proxy added the last
    async with (
        web_server(tmp_path, limits=Limits(per_address=1)) as (server, url),
        socket(url, "ana", headers=forwarded) as ana,
        socket(url, "bob") as bob,
    ):
        await read_until(ana, lambda seen: "signed in as ana" in plain(seen))
        await read_until(bob, lambda seen: "signed in as bob" in plain(seen))
        session = server.service.sessions.get("ana")
        assert session is not None and session.info is not None
        assert session.info.peer == "203.0.113.9"
        async with socket(url, "eve", headers=forwarded) as eve:  # the same player again
            said = await read_until(eve, lambda seen: False)
            assert "Too many connections from your address." in plain(said)


async def test_a_key_flood_is_disconnected_with_the_terminal_restored(tmp_path: Path) -> None:
    limits = Limits(keys_per_second=1, key_burst=5, key_flood=20)
    async with web_server(tmp_path, limits=limits) as (server, url), socket(url, "flood") as ws:
        await read_until(ws, lambda seen: "signed in as flood" in plain(seen))
        for _ in range(10):
            await ws.send(b"k" * 10)
        said = await read_until(ws, lambda seen: False)
        assert said.endswith(INPUT_FLOOD.encode() + b"\r\n")
        assert b"\x1b[?1049l" in said.rpartition(INPUT_FLOOD.encode())[0]  # screen restored
        assert ws.close_code == 1008
        await until(lambda: len(server.service.sessions) == 0, "the session to end")


async def test_resizes_reach_the_app_and_a_resize_flood_is_disconnected(tmp_path: Path) -> None:
    async with web_server(tmp_path) as (server, url), socket(url, "ana") as ws:
        await read_until(ws, lambda seen: "signed in as ana" in plain(seen))
        session = server.service.sessions.get("ana")
        assert session is not None and session.app is not None
        app = session.app
        assert tuple(app.size) == (100, 30)
        await ws.send(json.dumps({"cols": 120, "rows": 40}))
        await until(lambda: tuple(app.size) == (120, 40), "the app resized")
        with contextlib.suppress(ConnectionClosed):
            for width in range(20, 1020):  # past the burst of window changes
                await ws.send(json.dumps({"cols": width, "rows": 40}))
        said = await read_until(ws, lambda seen: False)
        assert TOO_MANY_RESIZES in plain(said)
        assert ws.close_code == 1008


async def test_a_browser_that_stops_reading_loses_frames_then_gets_the_whole_screen(
    tmp_path: Path,
) -> None:
    async with web_server(tmp_path) as (server, url), socket(url, "slow") as ws:
        await read_until(ws, lambda seen: "signed in as slow" in plain(seen))
        await ws.send(b"n")  # the new-table form, its name field focused
        await read_until(ws, lambda seen: "Turn timer" in plain(seen))
        session = server.service.sessions.get("slow")
        assert session is not None and session.driver is not None
        driver, app = session.driver, session.app
        assert app is not None
        ws.transport.pause_reading()  # the page stops reading: the frames back up
        for size in [(500, 200), (400, 150)] * 40:  # a whole repaint for each
            await ws.send(json.dumps({"cols": size[0], "rows": size[1]}))
            await until(lambda s=size: tuple(app.size) == s, f"the app at {size}")
            if driver.dropped_frames:
                break
        assert driver.dropped_frames, "the server never held frames back"
        await ws.send(b"Zyxwv")  # typed into the name field: its frames are dropped too
        ws.transport.resume_reading()  # the backlog, then the whole screen repainted
        await read_until(ws, lambda seen: "Zyxw" in plain(seen[-(1 << 20) :]))


async def test_a_browser_session_is_charged_its_cpu_and_closed_at_shutdown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "lovelet.events")
    async with web_server(tmp_path) as (server, url), socket(url, "ana") as ws:
        await read_until(ws, lambda seen: "signed in as ana" in plain(seen))
        await server.running.stop(grace=0)
        said = await read_until(ws, lambda seen: False)
        assert "The server restarts; reconnect to continue." in plain(said)
    ended = [r for r in caplog.records if r.getMessage() == "disconnect"]
    assert [r.fields["name"] for r in ended] == ["ana"]  # type: ignore[attr-defined]
    assert ended[0].fields["cpu_seconds"] > 0  # type: ignore[attr-defined]


# ---------------------------------------------------------------- web logins


async def test_a_login_link_works_once_and_only_for_a_few_minutes() -> None:
    now = [0.0]
    logins = WebLogins(MemoryLogins(clock=lambda: now[0]))
    assert await logins.issue("SHA256:ana", "ana") is None  # no page: no link
    logins.base_url = "https://play.example.org"
    link = await logins.issue("SHA256:ana", "ana")
    assert link is not None and link.startswith("https://play.example.org/login/")
    token = link.rpartition("/")[2]
    redeemed = await logins.redeem(token)
    assert redeemed is not None and await logins.redeem(token) is None  # once
    session, login = redeemed
    assert (login.identity, login.name) == ("SHA256:ana", "ana")
    assert await logins.session(session) == login
    late = await logins.issue("SHA256:ana", "ana")
    assert late is not None
    now[0] += LINK_SECONDS + 1
    assert await logins.redeem(late.rpartition("/")[2]) is None  # expired
    assert await logins.revoke("SHA256:ana") == 1 and await logins.session(session) is None
    now[0] += SESSION_SECONDS
    assert await logins.session(session) is None


@asynccontextmanager
async def login_stores(where: str) -> AsyncIterator[tuple[LoginStore, LoginStore]]:
    """Two front-ends' stores of web logins: one in memory (both the same), or two Redis
    clients of one fresh redis-server."""
    if where == "memory":
        store = MemoryLogins()
        yield store, store
        return
    async with redis_server() as redis:
        clients = [broker.connect(redis.url), broker.connect(redis.url)]
        try:
            yield RedisLogins(clients[0]), RedisLogins(clients[1])
        finally:
            for client in clients:
                await client.aclose()


@pytest.mark.parametrize("where", ["memory", "redis"])
async def test_a_key_holds_a_bounded_number_of_links_and_browser_sessions(where: str) -> None:
    async with login_stores(where) as (one, other):
        logins, elsewhere = WebLogins(one), WebLogins(other)
        logins.base_url = "http://localhost:8080"
        links = [await logins.issue("SHA256:ana", "ana") for _ in range(LINKS_PER_KEY + 2)]
        tokens = [link.rpartition("/")[2] for link in links if link is not None]
        assert [await elsewhere.redeem(token) is not None for token in tokens[:2]] == [False, False]
        redeemed = [await elsewhere.redeem(token) for token in tokens[2:]]
        for _ in range(SESSIONS_PER_KEY):  # one link at a time: each gives a session
            link = await logins.issue("SHA256:ana", "ana")
            assert link is not None
            redeemed.append(await elsewhere.redeem(link.rpartition("/")[2]))
        sessions = [session for session, _ in filter(None, redeemed)]
        assert len(sessions) == LINKS_PER_KEY + SESSIONS_PER_KEY
        signed_in = [await logins.session(session) is not None for session in sessions]
        assert signed_in == [False] * LINKS_PER_KEY + [True] * SESSIONS_PER_KEY  # the newest
        assert await elsewhere.revoke("SHA256:ana") == SESSIONS_PER_KEY
        assert not any([await logins.session(session) for session in sessions])
        answer = await command_answer(logins, "web-login", None, "guest")
        assert answer.startswith("web-login brings")
        answer = await command_answer(None, "web-login", "SHA256:ana", "ana")
        assert answer.startswith("This server gives no")


async def test_in_redis_only_digests_are_kept_each_expiring_and_a_lost_redis_is_said() -> None:
    async with redis_server() as redis:
        client = broker.connect(redis.url)
        logins = WebLogins(RedisLogins(client))
        logins.base_url = "http://localhost:8080"
        link = await command_answer(logins, "web-login", "SHA256:ana", "ana")
        token = link.rpartition("/")[2]
        redeemed = await logins.redeem(token)
        assert redeemed is not None
        session = redeemed[0]
        keys = sorted(key.decode() for key in await client.keys("*"))
        assert [key.rpartition(":")[0] for key in keys] == [
            "lovelet:web:links:SHA256",
            "lovelet:web:session",
            "lovelet:web:sessions:SHA256",
        ]  # the link is spent; the session's key is its id's digest, not the id
        assert not any(token in key or session in key for key in keys)
        for key in keys:
            ttl = await client.pttl(key)
            expected = LINK_SECONDS if key.startswith("lovelet:web:links:") else SESSION_SECONDS
            assert expected * 1000 - 60_000 < ttl <= expected * 1000, key
        await redis.kill()
        assert await command_answer(logins, "web-logout", "SHA256:ana", "ana") == UNAVAILABLE
        with pytest.raises(LoginsUnavailable):
            await logins.session(session)
        await client.aclose()
