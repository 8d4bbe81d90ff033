"""Playing in a browser: a real `lovelet serve` process, Debian's Chromium (Playwright), the
page's xterm.js screen read from `window.lovelet.term`, keys pressed in the page.

A browser player is one more session of the same app in the same process: it plays a round
against bots by keys, sits at one table with an SSH player, and follows an invite link; a
page of another origin cannot open the WebSocket. Synchronisation is on what the screens
show and what the server logs, each with a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import asyncssh
from browser import POLL, BrowserTerminal, chromium
from e2e_helpers import (
    GAME_TIMEOUT,
    answer_yes,
    create_table,
    header_code,
    log_text,
    phase,
    read_panel,
    read_table_line,
    wait_text,
)
from playwright.async_api import Page
from redis_helpers import redis_server
from sshclient import SSHTerminal
from test_e2e_ssh import join_first_table
from test_ops_process import START_TIMEOUT, ServerProcess, fast_env, said
from test_scaling_process import wait_online

from server.ssh.web_login import SESSIONS_PER_KEY

WEB_LINE = re.compile(r"^or play in a browser: (http://\S+)$")
ROUND_OVER = "n: next round"
"""The table's panel once a round is over (the next waits for the players' `n`)."""


@asynccontextmanager
async def web_server(data_dir: Path) -> AsyncIterator[tuple[ServerProcess, str]]:
    """`lovelet serve` with its web front-end on a free port: the process and the page's URL.
    Rounds wait for the players between them (the summary stays on the screen)."""
    env = fast_env(data_dir, LOVELET_TABLE_ROUND_PAUSE="600")
    async with ServerProcess.run(env, ["--web", "127.0.0.1:0"]) as server:
        line = await server.wait_line(
            server.stdout, lambda x: WEB_LINE.match(said(x)) is not None, "the page", START_TIMEOUT
        )
        match = WEB_LINE.match(said(line))
        assert match is not None
        yield server, match[1]


async def play_round(term: BrowserTerminal | SSHTerminal) -> None:
    """Play the first option of every decision until the round is over."""
    while True:
        await term.wait_for(lambda: phase(term) is not None, "a decision", GAME_TIMEOUT)
        now = phase(term)
        if now in ("next", "over"):
            return
        if now == "confirm":
            await answer_yes(term)
            continue
        panel, table_line = read_panel(term), read_table_line(term)
        assert panel is not None
        await term.send_keys(panel.options[0].key)
        await term.wait_for(
            lambda p=panel, t=table_line: read_panel(term) != p or read_table_line(term) != t,
            "the key taken",
        )


async def test_a_browser_player_sees_the_lobby_and_plays_a_round_against_bots(
    tmp_path: Path,
) -> None:
    async with (
        web_server(tmp_path) as (_, url),
        chromium() as browser,
        BrowserTerminal.open(browser, url, "Alice") as alice,
    ):
        await wait_text(alice, "signed in as Alice (guest)")
        await wait_text(alice, "n New table")
        code = await create_table(alice, seats=3)
        await alice.send_keys("g")  # the empty seats get bots
        await play_round(alice)
        assert phase(alice) == "next", alice.text
        assert "Round over:" in log_text(alice)
        assert header_code(alice) == code
        assert alice.errors == []


async def test_an_ssh_player_and_a_browser_player_play_at_one_table(tmp_path: Path) -> None:
    async with (
        web_server(tmp_path) as (server, url),
        chromium() as browser,
        BrowserTerminal.open(browser, url, "Alice") as alice,
    ):
        _, port = await server.listening()
        async with SSHTerminal.connect(port, username="bob", size=(120, 36)) as bob:
            await wait_text(bob, "signed in as bob (guest)")
            code = await create_table(alice, seats=2)
            await join_first_table(bob, code)
            await wait_text(bob, f"{code} · {url}/t/{code}")  # the invite: ssh and the link
            await wait_text(alice, "bob")
            await wait_text(bob, "Alice")
            await alice.send_keys("g")
            await asyncio.gather(play_round(alice), play_round(bob))
            for term in (alice, bob):
                assert "Round over:" in log_text(term)
                assert header_code(term) == code


@asynccontextmanager
async def workers(data_dir: Path, **env: str) -> AsyncIterator[tuple[ServerProcess, str]]:
    """`lovelet serve --workers 2` (with these LOVELET_* variables) and a fresh redis-server
    as its broker, once both front-ends serve the page: the process and the page's URL (one
    port, shared)."""
    args = ["--workers", "2", "--web", "127.0.0.1:0"]
    async with (
        redis_server() as redis,
        ServerProcess.run(fast_env(data_dir, **env), [*args, "--broker", redis.url]) as server,
    ):
        pages = await server.wait_line(
            server.stdout,
            lambda _: len(web_lines(server.stdout)) == 2,
            "both front-ends serving the page",
            START_TIMEOUT,
        )
        urls = set(web_lines(server.stdout))
        assert len(urls) == 1, pages  # one port, shared (SO_REUSEPORT)
        yield server, urls.pop()


async def test_with_workers_every_front_end_serves_the_page_through_the_same_lobby(
    tmp_path: Path,
) -> None:
    async with workers(tmp_path) as (_, url), chromium() as browser:
        names = ["Ada", "Bea", "Cy", "Di"]  # the kernel spreads them over the front-ends
        async with contextlib.AsyncExitStack() as stack:
            players = [
                await stack.enter_async_context(BrowserTerminal.open(browser, url, name))
                for name in names
            ]
            for player in players:
                await wait_online(player, *names)


def web_lines(lines: list[str]) -> list[str]:
    """The page's address in each "or play in a browser" line printed so far."""
    matches = (WEB_LINE.match(said(line)) for line in lines)
    return [match[1] for match in matches if match is not None]


async def test_an_invite_link_opens_the_page_at_its_table(tmp_path: Path) -> None:
    async with (
        web_server(tmp_path) as (_, url),
        chromium() as browser,
        BrowserTerminal.open(browser, url, "Alice") as alice,
    ):
        code = await create_table(alice, seats=3)
        link = f"{url}/t/{code}"
        await alice.wait_for(
            lambda: (
                re.search(rf"Invite: ssh -t -p \d+ \S+ {code} · {link}", alice.text) is not None
            ),
            "the invite: the ssh command and the link",
        )
        async with BrowserTerminal.open(browser, link, "Carol") as carol:
            await carol.wait_for(lambda: header_code(carol) == code, "Carol at the table")
            await wait_text(alice, "Carol")


async def test_a_phone_gets_the_whole_screen_and_keys_to_tap(tmp_path: Path) -> None:
    phone = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2}
    async with (
        web_server(tmp_path) as (_, url),
        chromium() as browser,
        BrowserTerminal.open(browser, url, "Pat", (390, 844), **phone) as pat,
    ):
        await wait_text(pat, "signed in as Pat (guest)")
        assert pat.screen.columns >= 80 and pat.screen.lines >= 24  # a smaller font
        assert await pat.page.is_visible("#keys")
        await pat.send_keys("n")  # the phone's own keyboard
        await wait_text(pat, "Turn timer")
        await pat.page.tap('#keys [data-key="esc"]')
        await pat.wait_for(lambda: "Turn timer" not in pat.text, "the form closed by Esc")


async def ssh_command(port: int, key: asyncssh.SSHKey, command: str) -> str:
    """What `ssh -p PORT ana@127.0.0.1 COMMAND` prints, with `key`."""
    async with asyncssh.connect(
        "127.0.0.1",
        port,
        username="ana",
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        config=None,
    ) as conn:
        result = await conn.run(command, check=True)
    assert isinstance(result.stdout, str)
    return result.stdout


async def test_a_web_login_link_signs_one_browser_in_as_the_keys_player_once(
    tmp_path: Path,
) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with web_server(tmp_path) as (server, url), chromium() as browser:
        _, port = await server.listening()
        said = await ssh_command(port, key, "web-login")
        link = said.strip().splitlines()[-1]
        assert link.startswith(f"{url}/login/"), said
        async with BrowserTerminal.open(browser, link, None) as ana:
            await ana.wait_for(
                lambda: re.search(r"signed in as ana\s*$", ana.text, re.M) is not None,
                "ana signed in with her key, not as a guest",
            )
            cookies = await ana.page.context.cookies()
            assert [(c["name"], c["httpOnly"], c["sameSite"]) for c in cookies] == [
                ("lovelet_login", True, "Strict")
            ]
            other = await browser.new_page()
            answer = await other.goto(link)  # the same link again
            assert answer is not None and answer.status == 410
            assert "used already" in await other.content()
            await other.close()
            assert "Signed out 1 browser" in await ssh_command(port, key, "web-logout")
            await ana.page.reload()
            await ana.page.wait_for_selector("#name", state="visible")  # a guest again


ATTEMPTS = 30
"""Pages (or links) at most before both front-ends have served one: the kernel gives each
new connection to one of the two at random, so all 30 to one would happen once in 2**29."""
ROOMY = {"LOVELET_LIMITS_PER_ADDRESS": "100", "LOVELET_LIMITS_SESSIONS_PER_IDENTITY": "100"}
"""Limits that pages opened one after another never reach, closed or not yet."""


def logged(server: ServerProcess, message: str, **fields: object) -> list[dict]:
    """The JSON log records so far, of every process, with this message and these fields."""
    records = (json.loads(line) for line in server.stderr if line.startswith("{"))
    return [
        record
        for record in records
        if record.get("message") == message and all(record.get(k) == v for k, v in fields.items())
    ]


async def nth_logged(server: ServerProcess, n: int, message: str, **fields: object) -> dict:
    """The `n`th (from 1) such record, once it is logged."""

    def nth() -> dict | None:
        found = logged(server, message, **fields)
        return found[n - 1] if len(found) >= n else None

    return await server.wait_for(nth, f"log {message!r} #{n}", START_TIMEOUT)


async def until_both_front_ends(
    server: ServerProcess, one_more: Callable[[], Awaitable[None]], message: str, **fields: object
) -> None:
    """`one_more()` (which has a process log `message` with `fields` once) until both
    front-ends have logged it."""
    for _ in range(ATTEMPTS):
        n = len(logged(server, message, **fields)) + 1
        await one_more()
        await nth_logged(server, n, message, **fields)
        if len({record["pid"] for record in logged(server, message, **fields)}) == 2:
            return
    raise AssertionError(f"one front-end logged every {message!r}\n{server.output}")


async def signed_in_as(page: Page, url: str) -> str | None:
    """Open `url` in `page`: who its terminal says it is signed in as, or None when the
    page asks for a name (it has no web login), or `HTTP STATUS` when it was refused."""
    answer = await page.goto(url)
    if answer is None or not answer.ok:
        return f"HTTP {answer.status if answer is not None else None}"
    term = BrowserTerminal(page)
    deadline = asyncio.get_running_loop().time() + START_TIMEOUT
    while asyncio.get_running_loop().time() < deadline:
        if await page.is_visible("#name"):
            return None
        await term.refresh()
        match = re.search(r"signed in as (.+?)\s*$", term.text, re.M)
        if match is not None:
            return match[1]
        await asyncio.sleep(POLL)
    raise AssertionError(f"{url} shows neither a sign-in nor the name form\n{term.text}")


async def status_of(url: str) -> int:
    """The status of a GET of `url` on a new connection (the kernel picks a front-end)."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    try:
        writer.write(f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode())
        return int((await reader.readline()).split()[1])
    finally:
        writer.close()


async def test_with_workers_a_web_login_link_works_once_whichever_front_end_serves_it(
    tmp_path: Path,
) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with workers(tmp_path, **ROOMY) as (server, url), chromium() as browser:
        _, port = await server.listening()
        for n in range(1, ATTEMPTS + 1):  # until a link printed by one is taken by the other
            link = (await ssh_command(port, key, "web-login")).strip().splitlines()[-1]
            assert link.startswith(f"{url}/login/"), link
            context = await browser.new_context()  # a browser of its own
            page = await context.new_page()
            assert await signed_in_as(page, link) == "ana"
            await page.close()
            assert {await status_of(link) for _ in range(4)} == {410}  # used: gone, on any
            printed = await nth_logged(server, n, "web login link", name="ana")
            took = await nth_logged(server, n, "web login", name="ana")
            if printed["pid"] != took["pid"]:
                break
            await context.close()
        else:
            raise AssertionError("every link was taken by the front-end that printed it")

        async def page_as(expected: str | None) -> Page:
            page = await context.new_page()
            assert await signed_in_as(page, url) == expected
            return page

        async def keyed() -> None:  # the last page's session may still be closing: ana-2
            page = await context.new_page()
            name = await signed_in_as(page, url)
            assert name is not None and re.fullmatch(r"ana(-\d+)?", name), name
            await page.close()

        identity = printed["identity"]
        await until_both_front_ends(server, keyed, "login", identity=identity)  # the cookie
        said = await ssh_command(port, key, "web-logout")  # served by one front-end
        assert f"Signed out {min(n, SESSIONS_PER_KEY)} browser" in said, said

        async def guest() -> None:  # the cookie is still sent: no front-end honours it
            page = await page_as(None)
            await page.fill("#name", "Guest")
            await page.press("#name", "Enter")
            await BrowserTerminal(page).wait_for_text("(guest)")
            await page.close()

        await until_both_front_ends(server, guest, "login", identity="guest")
        await context.close()


CONNECT = """(url) => new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.onopen = () => { resolve("open"); socket.close(); };
    socket.onclose = () => resolve("refused");
})"""
"""Open a WebSocket from the page: "open", or "refused" when the handshake fails."""


@asynccontextmanager
async def another_site() -> AsyncIterator[str]:
    """A web server on another port of this machine (another origin, in the same local
    address space, which Chromium lets open local WebSockets): its URL."""

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (await reader.readline()).strip():
            pass  # the request's lines, up to the blank one
        body = b"<!doctype html><p>another site</p>"
        head = f"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode() + b"Connection: close\r\n\r\n" + body)
        await writer.drain()
        writer.close()

    site = await asyncio.start_server(answer, "127.0.0.1", 0)
    async with site:
        yield f"http://127.0.0.1:{site.sockets[0].getsockname()[1]}/"


async def test_a_page_of_another_origin_cannot_open_the_websocket(tmp_path: Path) -> None:
    async with (
        web_server(tmp_path) as (server, url),
        another_site() as elsewhere_url,
        chromium() as browser,
    ):
        socket_url = url.replace("http://", "ws://") + "/ws?name=mallory"
        context = await browser.new_context()
        elsewhere = await context.new_page()
        await elsewhere.goto(elsewhere_url)
        assert await elsewhere.evaluate(CONNECT, socket_url) == "refused"
        await server.event("refused", reason="origin")
        own = await context.new_page()
        await own.goto(url)
        assert await own.evaluate(CONNECT, socket_url) == "open"  # the same socket, its page
        await context.close()
