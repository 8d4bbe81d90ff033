"""The core's end of the broker: remote sessions attached to the real lobby.

Front-ends publish batches to `CORE_CHANNEL`; the `CoreHost` decodes them and calls the
lobby exactly as an in-process session would (`attach`, `receive`, `detach`), and sends
the lobby's frames back, batched per front-end. It also decides admissions (bans, names,
sessions per key) for every front-end, holds the names online in its `NameBook`, and
drops the sessions of a front-end that fell silent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from ..lobby import Attachment, Identity, Lobby, Session
from ..lobby.outage import pause_clocks, resume_clocks
from ..ops.logs import event
from ..services.lookalikes import name_key
from ..services.sanitize import with_suffix
from ..ssh.gatekeeper import Admission, Gatekeeper
from ..ssh.session import taken_notice
from .broker import Broker, Outbox
from .envelope import CORES_CHANNEL, Kind, Message, frontend_channel, pack_batch, unpack_batch

log = logging.getLogger(__name__)

BEAT_INTERVAL = 1.0
"""Seconds between the core's heartbeats (and its checks for silent front-ends)."""

Key = tuple[str, str]  # (front-end id, session id)


def identity_from(fields: list[Any]) -> Identity:
    """An `Identity` from its wire form [id, name, guest, address]."""
    ident, name, guest, address = fields
    return Identity(str(ident), str(name), bool(guest), None if address is None else str(address))


@dataclass(slots=True)
class _Name:
    nickname: str
    owner: str | None
    key: Key


class NameBook:
    """The nicknames held on every front-end: no two look alike (`name_key`), except that one
    key's newest session takes its nickname over (as `SessionRegistry` does in one process)."""

    def __init__(self) -> None:
        self._held: dict[str, _Name] = {}

    def online(self) -> dict[str, str | None]:
        """Each nickname held and its owner's identity (None for a guest)."""
        return {name.nickname: name.owner for name in self._held.values()}

    def claim(self, wanted: str, owner: str | None, key: Key) -> str:
        """`wanted`, or `wanted-2`, `wanted-3`... if another player holds it."""
        nickname, number = wanted, 1
        while (held := self._held.get(name_key(nickname))) is not None:
            if held.key == key or (owner is not None and held.owner == owner):
                break
            number += 1
            nickname = with_suffix(wanted, number)
        self.hold(nickname, owner, key)
        return nickname

    def hold(self, nickname: str, owner: str | None, key: Key) -> None:
        """`key` holds `nickname` (a session back after the core restarted keeps its name)."""
        self._held[name_key(nickname)] = _Name(nickname, owner, key)

    def release(self, nickname: str, key: Key) -> None:
        """`key` no longer holds `nickname` (nothing if another session holds it now)."""
        held = self._held.get(name_key(nickname))
        if held is not None and held.key == key:
            del self._held[name_key(nickname)]

    def release_frontend(self, frontend: str) -> None:
        """Every name held on `frontend`."""
        for folded, held in list(self._held.items()):
            if held.key[0] == frontend:
                del self._held[folded]


@dataclass(eq=False)
class _Frontend:
    """One front-end as the core knows it."""

    id: str
    outbox: Outbox
    seen: float
    sessions: dict[str, Attachment] = field(default_factory=dict)


class CoreHost:
    """Runs the lobby for sessions on every front-end, through the broker."""

    def __init__(
        self,
        broker: Broker,
        lobby: Lobby,
        gatekeeper: Gatekeeper,
        core_id: str,
        frontend_timeout: float,
    ) -> None:
        self._broker = broker
        self._lobby = lobby
        self._gatekeeper = gatekeeper
        self.core_id = core_id
        self._timeout = frontend_timeout
        self._frontends: dict[str, _Frontend] = {}
        self._where: dict[Session, Key] = {}
        self.names = NameBook()
        self._beats: asyncio.Task[None] | None = None
        self._handlers = {
            Kind.ADMIT: self._admit,
            Kind.ATTACH: self._attach,
            Kind.FRAME: self._frame,
            Kind.DETACH: self._detach,
            Kind.BEAT: self._beat,
            Kind.SYNC: self._sync,
        }

    def start(self) -> None:
        """Beat every second: front-ends learn this core is up (and a new one re-attaches)."""
        self._beats = asyncio.get_running_loop().create_task(self._beat_loop())

    async def stop(self) -> None:
        """Say this core is stopping, send what is queued, stop beating."""
        if self._beats is not None:
            self._beats.cancel()
        for frontend in self._frontends.values():
            await frontend.outbox.drained()
        await self._broker.publish(CORES_CHANNEL, self._announcement("stopping"))

    def broker_away(self) -> None:
        """The broker is unreachable: no player can act, so every table's clock stops (no
        bot plays for a player who could not)."""
        log.warning("broker unreachable: every table's clock is stopped until it is back")
        pause_clocks(self._lobby)

    def broker_back(self) -> None:
        """The broker answers again: every front-end gets `frontend_timeout` afresh to be
        heard, since this core heard nobody while Redis was away (an outage of any length
        drops no session), and the tables' clocks go on where they stopped."""
        now = time.monotonic()
        for frontend in self._frontends.values():
            frontend.seen = now
        resume_clocks(self._lobby)

    def session_count(self) -> int:
        """Sessions attached through the broker."""
        return len(self._where)

    def close_session(self, session: Session, reason: str) -> None:
        """The lobby's closer: the session's front-end ends that SSH session, saying why."""
        key = self._where.get(session)
        if key is not None:
            self._send(key[0], (Kind.CLOSE, key[1], reason))

    # ------------------------------------------------------------- from the broker

    def on_batch(self, channel: str, data: bytes) -> None:
        """One batch from a front-end."""
        for message in unpack_batch(data):
            handler = self._handlers.get(message[0])
            if handler is None:
                log.warning("unknown bus message kind %r", message[0])
                continue
            try:
                handler(*message[1:])
            except Exception:  # one bad message must not cost the rest of the batch
                log.exception("error handling bus message %r", message[:1])

    def _admit(self, fe: str, sid: str, identity: str | None, address: str, wanted: str) -> None:
        admission = self._gatekeeper.admit(identity, address, wanted, self.names.online())
        if isinstance(admission, Admission) and admission.refusal is None:
            nickname = self.names.claim(admission.name, identity, (fe, sid))
            notice = admission.notice or taken_notice(admission.name, nickname)
            reply: Message = (Kind.ADMITTED, sid, nickname, notice, None)
        else:
            refusal = admission.refusal if isinstance(admission, Admission) else "refused"
            reply = (Kind.ADMITTED, sid, "", None, refusal)
        self._frontend(fe).seen = time.monotonic()
        self._send(fe, reply)

    def _attach(
        self, fe: str, sid: str, identity: list[Any], notice: str | None, hello: bytes | None
    ) -> None:
        frontend = self._frontend(fe)
        self._drop(frontend, sid)
        who = identity_from(identity)
        self.names.hold(who.name, None if who.guest else who.id, (fe, sid))
        outbox = frontend.outbox
        attachment = self._lobby.attach(
            who, lambda frame: outbox.put((Kind.FRAME_OUT, sid, frame)), notice
        )
        frontend.sessions[sid] = attachment
        self._where[attachment.session] = (fe, sid)
        event("session attached", frontend=fe, session=sid, name=attachment.session.name)
        if hello is not None:
            attachment.receive(hello)

    def _frame(self, fe: str, sid: str, frame: bytes) -> None:
        frontend = self._frontends.get(fe)
        attachment = frontend.sessions.get(sid) if frontend else None
        if attachment is None:
            self._send(fe, (Kind.LOST, sid))
            return
        attachment.receive(frame)

    def _detach(self, fe: str, sid: str) -> None:
        frontend = self._frontends.get(fe)
        if frontend is not None:
            self._drop(frontend, sid)

    def _beat(self, fe: str, attached_to: str | None) -> None:
        """A front-end's heartbeat. One that believes its sessions attached here, but that
        this core dropped (silent too long), is asked for them again; one attached to no
        core or another will send them when it hears this core's heartbeat."""
        if fe not in self._frontends and attached_to == self.core_id:
            self._send(fe, (Kind.RESYNC,))
        self._frontend(fe).seen = time.monotonic()

    def _sync(self, fe: str, sessions: list[list[Any]]) -> None:
        """The front-end's sessions, afresh: each says hello again to this core."""
        frontend = self._frontend(fe)
        for sid in list(frontend.sessions):
            self._drop(frontend, sid)
        for sid, identity, hello in sessions:
            self._attach(fe, sid, identity, None, hello)
        log.info("front-end %s attached %d sessions", fe, len(sessions))

    # ------------------------------------------------------------- bookkeeping

    def _frontend(self, fe: str) -> _Frontend:
        frontend = self._frontends.get(fe)
        if frontend is None:
            outbox = Outbox(self._broker, frontend_channel(fe))
            frontend = self._frontends[fe] = _Frontend(fe, outbox, time.monotonic())
            log.info("front-end %s joined", fe)
        return frontend

    def _drop(self, frontend: _Frontend, sid: str) -> None:
        attachment = frontend.sessions.pop(sid, None)
        if attachment is None:
            return
        session = attachment.session
        self._where.pop(session, None)
        self.names.release(session.name, (frontend.id, sid))
        attachment.detach()
        event("session detached", frontend=frontend.id, session=sid, name=session.name)

    def _send(self, fe: str, message: Message) -> None:
        self._frontend(fe).outbox.put(message)

    def _announcement(self, state: str) -> bytes:
        return pack_batch([(Kind.CORE, self.core_id, state)])

    async def _beat_loop(self) -> None:
        while True:
            await self._broker.listening.wait()  # front-ends' frames must reach this core
            await self._broker.publish(CORES_CHANNEL, self._announcement("up"))
            await self._drop_silent()
            await asyncio.sleep(BEAT_INTERVAL)

    async def _drop_silent(self) -> None:
        """A front-end silent for `frontend_timeout` that no longer listens on its channel
        died: its players dropped. (One that still listens is only slow, or this core was:
        a loop that fell behind has heartbeats still unread.)"""
        now = time.monotonic()
        silent = [f for f in self._frontends.values() if now - f.seen > self._timeout]
        if not silent:
            return
        listening = await self._broker.subscribers([f.outbox.channel for f in silent])
        if listening is None:
            return  # Redis is away: nothing is known; front-ends re-attach when it is back
        for frontend in silent:
            if listening.get(frontend.outbox.channel, 0) == 0:
                log.warning(
                    "front-end %s silent for %.0f s: its %d sessions dropped",
                    frontend.id,
                    now - frontend.seen,
                    len(frontend.sessions),
                )
                for sid in list(frontend.sessions):
                    self._drop(frontend, sid)
                self.names.release_frontend(frontend.id)
                del self._frontends[frontend.id]
