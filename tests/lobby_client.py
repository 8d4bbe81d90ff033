"""An in-process client of the lobby that really sends and receives encoded frames."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from protocol import (
    Act,
    ContinueRound,
    Direction,
    ErrorReply,
    Hello,
    Message,
    TableState,
    decode,
    encode,
    event_to_wire,
)
from protocol import (
    Lobby as LobbyMessage,
)
from protocol.version import PROTOCOL_VERSION
from server.lobby import Identity, Lobby

WAIT = 10.0  # seconds before a wait_for gives up: a failure, never a synchronisation


class Client:
    """Records every decoded message; `wait_for` blocks until a condition on them holds."""

    def __init__(
        self,
        lobby: Lobby,
        name: str,
        *,
        key: str | None = None,
        guest: bool = False,
        address: str | None = None,
        api_bot: bool = False,
    ):
        identity = Identity(key or f"SHA256:{name}", name, guest, address, api_bot)
        self.frames: list[bytes] = []
        self.messages: list[Message] = []
        self.events: list[dict] = []  # the table's log as the wire carries it: maps
        self._arrived = asyncio.Event()
        self.attachment = lobby.attach(identity, self._on_frame)

    def _on_frame(self, frame: bytes) -> None:
        self.frames.append(frame)
        message = decode(frame, direction=Direction.TO_CLIENT)
        self.messages.append(message)
        if isinstance(message, TableState):
            self.events.extend(map(event_to_wire, message.events))
        self._arrived.set()

    def send(self, message: Message) -> None:
        """Encode and deliver one message to the lobby."""
        self.attachment.receive(encode(message))

    def hello(self) -> None:
        """Greet the lobby."""
        self.send(Hello(PROTOCOL_VERSION, "ignored"))

    async def wait_for(self, condition: Callable[[Client], object], timeout: float = WAIT):
        """Wait until `condition(self)` is truthy; return its value."""

        async def wait() -> object:
            while not (result := condition(self)):
                self._arrived.clear()
                await self._arrived.wait()
            return result

        return await asyncio.wait_for(wait(), timeout)

    @property
    def state(self) -> TableState | None:
        """The latest table update received."""
        for message in reversed(self.messages):
            if isinstance(message, TableState):
                return message
        return None

    @property
    def lobby(self) -> LobbyMessage | None:
        """The latest lobby list received."""
        for message in reversed(self.messages):
            if isinstance(message, LobbyMessage):
                return message
        return None

    def errors(self) -> list[ErrorReply]:
        """Every error received."""
        return [m for m in self.messages if isinstance(m, ErrorReply)]

    def my_turn(self) -> bool:
        """Whether the latest view asks this client to decide."""
        state = self.state
        return bool(state and state.view and state.view.choices)

    def send_choice(self, index: int) -> None:
        """Take the latest view's choice at `index`."""
        self.send(Act(self.state.view.choices[index]))

    def finished(self) -> bool:
        """Whether the latest table update says the game is over."""
        state = self.state
        return bool(state and state.info.status == "finished")

    def continue_if_between_rounds(self) -> None:
        """Press 'continue' on a round summary."""
        state = self.state
        if state and state.info.status == "round_over":
            self.send(ContinueRound())
