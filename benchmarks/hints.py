"""How long a hint takes, and what a player pressing `h` in a loop costs the server.

Usage: python benchmarks/hints.py [--hints 40] [--budget 150] [--presses 50]
Runs a lobby in this process (no SSH): one player against three easy bots (classic), asking
for a hint at each of its decisions through real protocol frames, the search in the bot
pool's workers (as on a server). Reported: the hint's wall time from request to answer
(the first, which starts the pool's workers, apart; then median and p99: a search stops
160 ms after hand-over, so p99 should stay under 200 ms), and for
a player sending `--presses` more requests at one decision, how many searches they started
(0: the answer is kept). On a loaded machine the
times are pessimistic; the last line says the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time

from protocol import (
    Act,
    BotSpec,
    ContinueRound,
    CreateTable,
    Direction,
    Hello,
    Hint,
    HintRequest,
    Rematch,
    Start,
    TableState,
    decode,
    encode,
)
from protocol.version import PROTOCOL_VERSION
from server.lobby import Identity, Lobby, LobbySettings, TableSettings
from server.services import bot_pool
from server.services.clock import LoopClock


def percentile(values: list[float], share: float) -> float:
    """The `share` quantile of `values` (0 for none)."""
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * share), len(ordered) - 1)] if ordered else 0.0


class Player:
    """A session of the lobby that keeps the latest table state and counts hints."""

    def __init__(self, lobby: Lobby) -> None:
        self.state: TableState | None = None
        self.hints = 0  # answers received
        self.used = 0  # "used a hint" log entries: one per search answered
        self.arrived = asyncio.Event()
        self.attachment = lobby.attach(Identity("SHA256:bench", "bench"), self._frame)

    def _frame(self, frame: bytes) -> None:
        message = decode(frame, direction=Direction.TO_CLIENT)
        if isinstance(message, TableState):
            self.state = message
            self.used += sum(event["kind"] == "hint" for event in message.events)
        elif isinstance(message, Hint):
            self.hints += 1
        self.arrived.set()

    def send(self, message: object) -> None:
        self.attachment.receive(encode(message))

    async def until(self, condition) -> None:
        while not condition():
            self.arrived.clear()
            await self.arrived.wait()

    def deciding(self) -> bool:
        state = self.state
        return bool(state and state.view and state.view.choices)


async def run(hints: int, budget: float, presses: int) -> None:
    settings = TableSettings(bot_delay=0, round_pause=0, bot_budget=budget, hint_burst=10**6)
    lobby = Lobby(LobbySettings(table=settings), random.Random(1), clock=LoopClock())
    player = Player(lobby)
    player.send(Hello(PROTOCOL_VERSION, "bench"))
    bots = tuple(BotSpec(seat, "easy") for seat in (1, 2, 3))
    player.send(CreateTable("bench", "classic", 4, None, bots, hints=True))
    player.send(Start())
    times: list[float] = []
    while len(times) < hints:
        await player.until(
            lambda: (
                player.state is not None
                and (player.deciding() or player.state.info.status != "playing")
            )
        )
        state = player.state
        if state.info.status == "finished":
            player.send(Rematch())
            await player.until(lambda: player.state.info.status != "finished")
            continue
        if state.info.status == "round_over":
            player.send(ContinueRound())
            await player.until(lambda s=state: player.state is not s)
            continue
        before, started = player.hints, time.perf_counter()
        player.send(HintRequest())
        await player.until(lambda b=before: player.hints > b)
        times.append(time.perf_counter() - started)
        if len(times) == hints // 2:  # a client pressing h in a loop at one decision
            used, before = player.used, player.hints
            for _ in range(presses):
                player.send(HintRequest())
            await player.until(lambda b=before: player.hints >= b + presses)
            await asyncio.sleep(0.5)  # a search started by the presses would be back by now
            searches = player.used - used
            print(f"{presses} more presses at one decision: {presses} answers, {searches} searches")
        player.send(Act(player.state.view.choices[0]))
        await player.until(lambda s=player.state: player.state is not s)
    rest = times[1:]
    print(f"first hint (starts the worker processes): {times[0] * 1000:.0f} ms")
    print(
        f"hint wall time over {len(rest)} more hints: median {percentile(rest, 0.5) * 1000:.0f} "
        f"ms, p99 {percentile(rest, 0.99) * 1000:.0f} ms (budget {budget * 1000:.0f} ms CPU)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    bot_pool.shared_pool().close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hints", type=int, default=40)
    parser.add_argument("--budget", type=int, default=150, help="ms of CPU per search")
    parser.add_argument("--presses", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(run(args.hints, args.budget / 1000, args.presses))


if __name__ == "__main__":
    main()
