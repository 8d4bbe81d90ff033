"""A bot's end of a session, without I/O (docs/bot-api.md#the-client-module).

Bytes in, messages out, and messages in, bytes out: length-prefixed msgpack frames (the
`lovelet` subsystem, `lovelet arena`) or JSON lines (`lovelet-json`, `lovelet arena --json`).
Messages are the plain maps of docs/protocol.md; what a bot sends is checked here first, so a
mistake raises `LocalProtocolError` at once instead of coming back as an `error` frame. It also
tells which decision of the bot's seat waits for an answer, once each, by its id::

    client = Client("robo")
    stream.write(client.hello())
    for message in client.feed(stream.read()):
        if message["type"] == "table" and (decision := client.decision(message)):
            stream.write(client.act(decision, decision.choices[0]))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgpack

from protocol.codec import from_wire
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.framing import FrameReader, frame
from protocol.jsonlines import LineReader, json_line, parse_line
from protocol.limits import Direction
from protocol.version import PROTOCOL_VERSION

Wire = dict[str, Any]
"""A message as a plain map: `{"type": "act", "choice": {...}, "decision": 7}`."""


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision of the bot's seat waiting for an answer: its table, id, kind and choices."""

    table: str
    id: int
    kind: str
    choices: tuple[Wire, ...]


class Client:
    """The bytes of one bot session, both ways, in msgpack frames or (`json`) JSON lines."""

    def __init__(self, name: str, *, json: bool = False) -> None:
        self.name = name
        self.json = json
        self._reader: FrameReader | LineReader = (
            LineReader(direction=Direction.TO_CLIENT)
            if json
            else FrameReader(direction=Direction.TO_CLIENT)
        )
        self._answered: tuple[str, int] | None = None  # (table code, decision id)
        self._continued: tuple[str, int] | None = None

    def hello(self) -> bytes:
        """The first message: `hello` with this protocol's version."""
        return self.send({"type": "hello", "version": PROTOCOL_VERSION, "name": self.name})

    def send(self, message: Wire) -> bytes:
        """The bytes for `message`; `LocalProtocolError` if the server would refuse its shape."""
        try:
            from_wire(message, Direction.TO_SERVER)
        except RemoteProtocolError as err:
            raise LocalProtocolError(err.code, err.reason) from None
        if self.json:
            return json_line(message)
        return frame(msgpack.packb(message, use_bin_type=True), direction=Direction.TO_SERVER)

    def send_all(self, messages: Iterable[Wire]) -> bytes:
        """The bytes for several messages, in order."""
        return b"".join(self.send(message) for message in messages)

    def feed(self, data: bytes) -> list[Wire]:
        """The messages that the bytes received so far complete, in order (none: read more).

        Raises `RemoteProtocolError` if the stream cannot be read (the server is not one).
        """
        if self.json:
            return [parse_line(line) for line in self._reader.feed(data)]
        return [msgpack.unpackb(payload, raw=False) for payload in self._reader.feed(data)]

    def decision(self, table: Wire) -> Decision | None:
        """The decision of this seat that `table` waits for, unless it was answered already
        (frames repeat a pending decision for any change at the table); else None. Ids are
        unique at a table only: an answer is remembered with its table's code."""
        view = table.get("view")
        pending = view and view["pending"]
        if not pending or not view["choices"]:
            return None
        key = (table["info"]["code"], pending["decision"])
        if key == self._answered:
            return None
        return Decision(key[0], pending["decision"], pending["kind"], tuple(view["choices"]))

    def act(self, decision: Decision, choice: Wire) -> bytes:
        """The `act` answering `decision` with `choice` (one of its `choices`), marked answered."""
        self._answered = (decision.table, decision.id)
        return self.send({"type": "act", "choice": choice, "decision": decision.id})

    def next_round(self, table: Wire) -> bytes:
        """`continue_round` once for each round that `table` shows over; else nothing."""
        info, view = table["info"], table.get("view")
        if info["status"] != "round_over" or view is None:
            return b""
        done = (info["code"], view["round"])
        if done == self._continued:
            return b""
        self._continued = done
        return self.send({"type": "continue_round"})
