"""A front-end's end of the broker: the game core as its SSH sessions see it.

`FrontEnd` stands where the in-process `Lobby` stands: `attach` gives each app an
attachment whose frames travel to the core and back. It is also the SSH layer's
gatekeeper: admission (bans, names, sessions per key) is asked of the core. While no core
listens (its heartbeat, or any frame, reaches nobody), players are told the game server
is restarting and each frame they send is answered "not delivered"; when a core is back
(a standby, or the same one restarted), every session attaches to it again by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from protocol import ErrorReply, Message, Notice, encode

from ..lobby import Identity
from ..lobby.session import SendFrame
from ..ssh.gatekeeper import Admission
from .broker import Broker, Outbox
from .envelope import (
    CORE_CHANNEL,
    CORES_CHANNEL,
    Kind,
    frontend_channel,
    unpack_batch,
)
from .envelope import (
    Message as BusMessage,
)

log = logging.getLogger(__name__)

BEAT_INTERVAL = 1.0
"""Seconds between this front-end's heartbeats. One that no core receives (PUBLISH counts
no listener) means the core is away: its connection to Redis closed with it."""
ADMISSION_TIMEOUT = 15.0
"""Seconds a login waits for the core's answer."""
RESTARTING = "The game server is restarting: stay connected, you will be back by yourself."
BACK = "The game server is back."
NOT_DELIVERED = "Not delivered: the game server is restarting. Try again in a moment."
AWAY_AT_LOGIN = "The game server is restarting. Please try again in a minute."

_ticket: contextvars.ContextVar[str | None] = contextvars.ContextVar("ticket", default=None)
"""The session id an admission reserved, read by the `attach` that follows it in the same
task (the SSH session's): admission and attachment are two calls of one login."""

CloseByName = Callable[[str, str], None]


def _wire(identity: Identity) -> list[Any]:
    return [identity.id, identity.name, identity.guest, identity.address]


def _frame(message: Message) -> bytes:
    return encode(message, check=False)


@dataclass(eq=False)
class RemoteAttachment:
    """One app's attachment to the remote core: frames in through `receive`."""

    frontend: FrontEnd
    sid: str
    identity: Identity
    notice: str | None
    deliver: SendFrame
    hello: bytes | None = None  # the app's first frame, said again to a new core
    closed: bool = field(default=False)

    def receive(self, frame: bytes) -> None:
        """One frame from the app, for the core."""
        if self.hello is None:
            self.hello = frame
        self.frontend.send_frame(self, frame)

    def detach(self) -> None:
        """The app is gone."""
        self.frontend.detach(self)


class FrontEnd:
    """The core, through the broker, for this process's sessions (and their gatekeeper)."""

    def __init__(self, url: str, id: str | None = None) -> None:
        self.id = id or secrets.token_hex(6)
        self.broker = Broker(
            url,
            [frontend_channel(self.id), CORES_CHANNEL],
            self._on_batch,
            on_down=self._core_away,
        )
        self._outbox = Outbox(self.broker, CORE_CHANNEL, self._undelivered)
        self.sessions: dict[str, RemoteAttachment] = {}
        self.core_id: str | None = None
        """The core these sessions are attached to; None while none answers."""
        self._admissions: dict[str, asyncio.Future[Admission]] = {}
        self.closer: CloseByName = lambda nickname, reason: None
        self._beats: asyncio.Task[None] | None = None
        self.core_found = asyncio.Event()
        self._sync_pending = False

    def start(self) -> None:
        """Connect to the broker and start the heartbeat."""
        self.broker.start()
        self._beats = asyncio.get_running_loop().create_task(self._beat_loop())

    async def stop(self) -> None:
        """Send what is queued (detachments of closed sessions), then disconnect."""
        if self._beats is not None:
            self._beats.cancel()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._outbox.drained(), 5)
        await self.broker.close()

    # ------------------------------------------------------------- the gatekeeper

    def refuse_address(self, address: str) -> str | None:
        """Nothing before login: the core checks address bans when the session is admitted."""
        return None

    async def admit(
        self, identity: str | None, address: str, wanted: str, online: dict[str, str | None]
    ) -> Admission:
        """Ask the core (which knows every front-end's sessions) to admit a login."""
        if self.core_id is None:
            return Admission(refusal=AWAY_AT_LOGIN)
        sid = secrets.token_hex(8)
        answer = self._admissions[sid] = asyncio.get_running_loop().create_future()
        self._outbox.put((Kind.ADMIT, self.id, sid, identity, address, wanted))
        try:
            admission = await asyncio.wait_for(answer, ADMISSION_TIMEOUT)
        except TimeoutError:
            return Admission(refusal=AWAY_AT_LOGIN)
        finally:
            self._admissions.pop(sid, None)
        _ticket.set(sid)
        return admission

    # ------------------------------------------------------------- the lobby's seam

    def attach(
        self, identity: Identity, send_frame: SendFrame, notice: str | None = None
    ) -> RemoteAttachment:
        """A new app's attachment, as `Lobby.attach` makes one in a single process."""
        sid = _ticket.get() or secrets.token_hex(8)
        _ticket.set(None)
        attachment = RemoteAttachment(self, sid, identity, notice, send_frame)
        self.sessions[sid] = attachment
        self._outbox.put((Kind.ATTACH, self.id, sid, _wire(identity), notice, None))
        return attachment

    def send_frame(self, attachment: RemoteAttachment, frame: bytes) -> None:
        """A frame for the core; while no core answers, the app hears it was not delivered."""
        if attachment.closed:
            return
        if self.core_id is None:
            attachment.deliver(_frame(ErrorReply("not_delivered", NOT_DELIVERED)))
            return
        self._outbox.put((Kind.FRAME, self.id, attachment.sid, frame))

    def detach(self, attachment: RemoteAttachment) -> None:
        """The app is gone: the core frees its place (a seat is held for the grace period)."""
        if attachment.closed:
            return
        attachment.closed = True
        self.sessions.pop(attachment.sid, None)
        self._outbox.put((Kind.DETACH, self.id, attachment.sid))

    # ------------------------------------------------------------- from the broker

    def _on_batch(self, channel: str, data: bytes) -> None:
        for message in unpack_batch(data):
            try:
                self._handle(message)
            except Exception:  # one bad message must not cost the rest of the batch
                log.exception("error handling bus message %r", message[:1])

    def _handle(self, message: list[Any]) -> None:
        kind, *rest = message
        if kind == Kind.FRAME_OUT:
            sid, frame = rest
            attachment = self.sessions.get(sid)
            if attachment is not None:
                attachment.deliver(frame)
        elif kind == Kind.ADMITTED:
            sid, nickname, notice, refusal = rest
            answer = self._admissions.get(sid)
            if answer is not None and not answer.done():
                answer.set_result(Admission(nickname, notice, refusal))
        elif kind == Kind.CLOSE:
            sid, reason = rest
            attachment = self.sessions.get(sid)
            if attachment is not None:
                self.closer(attachment.identity.name, reason)
        elif kind == Kind.LOST:
            (sid,) = rest
            attachment = self.sessions.get(sid)
            if attachment is not None:
                attachment.deliver(_frame(ErrorReply("not_delivered", NOT_DELIVERED)))
            self._sync_soon()
        elif kind == Kind.RESYNC:
            self._sync_soon()
        elif kind == Kind.CORE:
            self._core_said(*rest)

    def _core_said(self, core_id: str, state: str) -> None:
        if state == "stopping":
            if core_id == self.core_id:
                self._core_away()
            return
        if core_id != self.core_id:
            self._core_away()  # another core took over: the one before is gone
            was_away = self.core_found.is_set()
            self.core_id = core_id
            self.core_found.set()
            log.info("attached to core %s", core_id)
            self._sync()
            if was_away:
                self._tell_all(Notice(BACK))

    def _sync_soon(self) -> None:
        """One sync for every request of this turn (a batch may hold many)."""
        if not self._sync_pending:
            self._sync_pending = True
            asyncio.get_running_loop().call_soon(self._sync)

    def _sync(self) -> None:
        """Every session of this front-end, for the core to attach afresh."""
        self._sync_pending = False
        sessions = [[a.sid, _wire(a.identity), a.hello] for a in self.sessions.values()]
        self._outbox.put((Kind.SYNC, self.id, sessions))

    def _core_away(self) -> None:
        """No core answers: tell every player, and answer their frames "not delivered"."""
        if self.core_id is None:
            return
        log.warning("core %s is away", self.core_id)
        self.core_id = None
        self._tell_all(Notice(RESTARTING))

    def _tell_all(self, message: Message) -> None:
        frame = _frame(message)
        for attachment in list(self.sessions.values()):
            attachment.deliver(frame)

    def _undelivered(self, batch: list[BusMessage], received: int | None) -> None:
        """Nobody got `batch`: the core is away, and each frame in it was not delivered."""
        self._core_away()
        refused = _frame(ErrorReply("not_delivered", NOT_DELIVERED))
        for message in batch:
            if message[0] == Kind.FRAME:
                attachment = self.sessions.get(message[2])
                if attachment is not None:
                    attachment.deliver(refused)

    async def _beat_loop(self) -> None:
        while True:
            self._outbox.put((Kind.BEAT, self.id, self.core_id))
            await asyncio.sleep(BEAT_INTERVAL)
