"""Input bounds: budgets, back-pressure, floods, and the terminal restored on a disconnect."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import asyncssh
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sshclient import SSHTerminal
from test_ssh_limits import app_of, serving
from test_ssh_server import EchoApp
from textual import events

from server.ssh import SSHLimits, SSHService, start_ssh_server
from server.ssh.driver import INPUT_FLOOD, PASTE_END, PASTE_START, PASTE_TOO_LONG, PasteWatch
from server.ssh.info import SessionInfo
from server.ssh.input import InputPump, KeyBudget, TokenBucket
from server.ssh.session import LoveletSession


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(cut % (len(text) + 1) for cut in cuts)})
    return [text[a:b] for a, b in pairwise(points)]


@given(
    st.lists(st.sampled_from(["a", "bc", PASTE_START, PASTE_END, "\x1b", "[20"]), max_size=40),
    st.lists(st.integers(min_value=0), max_size=10),
)
def test_paste_watch_does_not_depend_on_how_input_is_split(
    parts: list[str], cuts: list[int]
) -> None:
    text = "".join(parts)
    whole, split = PasteWatch(10**9), PasteWatch(10**9)
    whole.watch(text)
    for chunk in chunked(text, cuts):
        split.watch(chunk)
    assert whole.pasting == split.pasting


def test_paste_watch_flags_long_pastes_even_when_split() -> None:
    watch = PasteWatch(10)
    assert watch.watch("abc\x1b[20")
    assert watch.watch("0~12345")
    assert watch.watch("6789\x1b[201~" + "x" * 100)
    assert watch.watch("\x1b[200~" + "y" * 10)
    assert not watch.watch("y")


def test_token_bucket_spends_into_debt_a_burst_then_the_rate() -> None:
    now = [0.0]
    budget = TokenBucket(rate=100.0, burst=50, clock=lambda: now[0])
    assert budget.spend(50) == 0.0
    assert budget.spend(20) == 0.2
    now[0] = 1.0
    assert budget.spend(30) == 0.0  # 80 tokens back, capped at 50, minus 20 owed
    assert budget.spend(1) == 0.0


def test_token_bucket_takes_only_what_it_has() -> None:
    now = [0.0]
    bucket = TokenBucket(rate=10.0, burst=3, clock=lambda: now[0])
    assert [bucket.take(1) for _ in range(4)] == [True, True, True, False]
    now[0] = 0.1
    assert bucket.take(1)
    assert not bucket.take(1)


def test_key_budget_drops_past_the_burst_notifies_once_then_calls_a_flood() -> None:
    now = [0.0]
    budget = KeyBudget(rate=1.0, burst=3, flood=5, clock=lambda: now[0])
    verdicts = [budget.admit() for _ in range(9)]
    assert verdicts == [KeyBudget.ACCEPT] * 3 + [KeyBudget.DROP_AND_NOTIFY] + [
        KeyBudget.DROP
    ] * 4 + [KeyBudget.FLOOD]
    assert budget.dropped == 6


class Reader:
    """Stands in for the channel's pause_reading/resume_reading."""

    def __init__(self) -> None:
        self.paused = False

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


async def test_the_pump_hands_over_one_chunk_per_loop_turn_and_none_while_held() -> None:
    reader = Reader()
    pump = InputPump(reader, rate=1e9, burst=10**9, buffer=256, chunk=64)
    chunks: list[bytes] = []
    hold = [False]
    pump.attach(lambda data: chunks.append(data) or hold[0])
    pump.received(b"k" * 640)
    assert chunks == [b"k" * 64]
    assert reader.paused  # 576 bytes wait: more than the buffer
    for turn in range(2, 8):
        await asyncio.sleep(0)  # one turn of the loop
        assert len(chunks) == turn
    assert not reader.paused  # 192 bytes wait
    hold[0] = True
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert len(chunks) == 8  # held: the consumer has not caught up with chunk 8
    hold[0] = False
    pump.release()
    await asyncio.sleep(0)
    assert len(chunks) == 9


async def test_the_pump_pauses_reading_while_the_byte_budget_is_overdrawn() -> None:
    reader = Reader()
    pump = InputPump(reader, rate=1000.0, burst=100, buffer=10**6, chunk=10**6)
    pump.attach(lambda data: False)
    pump.received(b"k" * 100)
    assert not reader.paused
    pump.received(b"k" * 20)  # 20 bytes of debt: 20 ms
    assert reader.paused
    await until(lambda: not reader.paused, "the debt to be repaid", timeout=2)


async def until(predicate: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    """Wait for a server-side condition, checking each turn of the loop, up to `timeout`."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


def session_of(service: SSHService, nickname: str) -> LoveletSession:
    session = service.sessions.get(nickname)
    assert session is not None and session.driver is not None
    return session


async def test_keys_over_budget_are_dropped_with_a_notice_and_others_still_play(
    tmp_path: Path,
) -> None:
    limits = {"key_rate": 0.1, "key_burst": 20, "input_rate": 1e6, "input_burst": 10**6}
    async with (
        serving(tmp_path, **limits) as service,
        SSHTerminal.connect(service.port, username="flood") as flood,
        SSHTerminal.connect(service.port, username="other") as other,
    ):
        await flood.wait_for_text("keys 0")
        await other.wait_for_text("keys 0")
        driver = session_of(service, "flood").driver
        assert driver is not None
        await flood.send("k" * 500)
        await flood.wait_for_text("typing faster")
        await until(lambda: driver.keys_dropped + app_of(service, "flood").keys == 500, "flood")
        assert app_of(service, "flood").keys == 20 - flood.answers_sent  # the burst
        await other.send_keys("k")
        await other.wait_for_text("keys 1 last k")
        assert not flood.closed


async def test_a_persistent_flooder_is_restored_told_and_disconnected(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    limits = {"key_rate": 0.1, "key_burst": 10, "key_flood": 100, "input_rate": 1e6}
    async with serving(tmp_path, **limits) as service, SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        await term.send("k" * 1000)
        assert await term.wait_closed() == 1
        assert term.conn is not None
        await asyncio.wait_for(term.conn.wait_closed(), 10)
    assert term.modes_not_restored == []
    assert term.said_after_restoring(INPUT_FLOOD)
    assert f"from 127.0.0.1: {INPUT_FLOOD}" in caplog.text


async def test_input_is_read_only_as_the_app_consumes_it(tmp_path: Path) -> None:
    """While the app is stuck, the server takes at most a window and a buffer of input; it
    takes more once the app goes on (here it drops keys past the first 100)."""
    limits = SSHLimits(
        input_rate=1e9, input_burst=10**9, key_rate=1e-3, key_burst=100, key_flood=10**9
    )
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, StuckApp, limits)
    sent = 512 * 1024
    try:
        async with SSHTerminal.connect(service.port) as term:
            await term.wait_for_text("keys 0")
            await term.send("b" + "k" * sent)
            taken = await settled_intake(term, sent + 1)
            bound = limits.input_window + limits.input_buffer + 2 * MAX_PACKET
            assert taken <= bound, f"server took {taken} bytes while its app was stuck"
            app = app_of(service, "tester")
            assert isinstance(app, StuckApp)
            app.gate.set()
            await until(lambda: unsent(term) < sent + 1 - taken, "the window to reopen")
    finally:
        await service.close()


MAX_PACKET = 32 * 1024  # asyncssh's largest channel data packet


class StuckApp(EchoApp):
    """An EchoApp that stops handling input at `b` until its gate opens."""

    def __init__(self, info: SessionInfo) -> None:
        super().__init__(info)
        self.gate = asyncio.Event()

    async def on_key(self, event: events.Key) -> None:
        if event.key == "b":
            await self.gate.wait()
        super().on_key(event)


def unsent(term: SSHTerminal) -> int:
    assert term.chan is not None
    return term.chan.get_write_buffer_size()


async def settled_intake(term: SSHTerminal, sent: int, rounds: int = 100) -> int:
    """Bytes the server has taken once it stops taking more: a refused channel open is a
    round trip, after which any window the server reopened has reached the client."""
    assert term.conn is not None
    before = -1
    for _ in range(rounds):
        with pytest.raises(asyncssh.ChannelOpenError):
            await term.conn.create_session(asyncssh.SSHClientSession)
        if unsent(term) == before:
            return sent - before
        before = unsent(term)
    raise AssertionError(f"the server kept taking input: {sent - unsent(term)} bytes")


async def test_endless_paste_restores_the_terminal_then_disconnects(tmp_path: Path) -> None:
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, EchoApp, SSHLimits(max_paste=1000))
    try:
        async with SSHTerminal.connect(service.port) as term:
            await term.wait_for_text("keys 0")
            (session,) = service.sessions
            await term.send(PASTE_START + "p" * 2000)
            await session.wait_closed()
            assert await term.wait_closed() == 1
            assert term.modes_not_restored == []
            assert term.said_after_restoring(PASTE_TOO_LONG)
    finally:
        await service.close()


async def test_a_kicked_player_gets_the_terminal_back_then_the_reason(tmp_path: Path) -> None:
    async with serving(tmp_path) as service, SSHTerminal.connect(service.port) as term:
        await term.wait_for_text("keys 0")
        assert term.modes_not_restored == [
            "alternate screen",
            "bracketed paste",
            "no cursor shown",
            "no line wrap",
        ]
        (session,) = service.sessions
        session.request_close("Disconnected after 30 minutes idle.")
        assert await term.wait_closed() == 0
        assert term.modes_not_restored == []
        assert term.said_after_restoring("Disconnected after 30 minutes idle.")
