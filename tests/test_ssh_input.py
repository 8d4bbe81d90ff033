"""Input bounds: the paste watch and the input token bucket."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from sshclient import SSHTerminal
from test_ssh_server import EchoApp

from server.ssh import SSHLimits, start_ssh_server
from server.ssh.driver import PASTE_END, PASTE_START, PasteWatch
from server.ssh.input import TokenBucket


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


async def test_endless_paste_disconnects(tmp_path: Path) -> None:
    service = await start_ssh_server("127.0.0.1", 0, tmp_path, EchoApp, SSHLimits(max_paste=1000))
    try:
        async with SSHTerminal.connect(service.port) as term:
            await term.wait_for_text("keys 0")
            (session,) = service.sessions
            await term.send(PASTE_START + "p" * 2000)
            await session.wait_closed()
            await term.wait_closed()
    finally:
        await service.close()
