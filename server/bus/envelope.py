"""What front-ends and the core say to each other through the broker, packed with msgpack.

One PUBLISH carries a batch: a msgpack array of messages, each an array whose first item is
its kind. Kinds are fixed numbers written here, never derived from declaration order.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import msgpack

PREFIX = "lovelet"
CORE_CHANNEL = f"{PREFIX}:core"
"""Front-ends publish here; only the core holding the lease listens."""
CORES_CHANNEL = f"{PREFIX}:cores"
"""The core's heartbeat to every front-end."""
LEASE_KEY = f"{PREFIX}:lease"
"""Holds the id of the one core allowed to run, with an expiry."""

Message = tuple[Any, ...]


def frontend_channel(frontend: str) -> str:
    """Where the core publishes to one front-end."""
    return f"{PREFIX}:fe:{frontend}"


class Kind(IntEnum):
    """The first item of every message; the rest is shown after each name."""

    # front-end → core
    ADMIT = 1  # frontend, sid, identity | None, address, wanted name
    ATTACH = 2  # frontend, sid, identity, notice | None, hello | None
    # (an identity is [id, name, guest, address])
    FRAME = 3  # frontend, sid, frame
    DETACH = 4  # frontend, sid
    BEAT = 5  # frontend, id of the core it last attached its sessions to | None
    SYNC = 6  # frontend, [[sid, identity, hello frame | None], ...]: every session it has
    # core → one front-end
    ADMITTED = 20  # sid, nickname, notice | None, refusal | None
    FRAME_OUT = 21  # sid, frame
    CLOSE = 22  # sid, reason
    LOST = 23  # sid: this core has no such session (the frame was not delivered)
    RESYNC = 24  # (nothing): this core lost the front-end's sessions; send a SYNC
    # core → every front-end
    CORE = 40  # core id, state ("up" or "stopping")


class EnvelopeError(ValueError):
    """A batch from the broker that is not one of ours."""


def pack_batch(messages: list[Message]) -> bytes:
    """One batch of messages, ready to publish."""
    return msgpack.packb(messages, use_bin_type=True)


def unpack_batch(data: bytes) -> list[list[Any]]:
    """The messages of one batch; EnvelopeError if it is malformed."""
    try:
        batch = msgpack.unpackb(data, raw=False)
    except (ValueError, msgpack.UnpackException) as err:
        raise EnvelopeError(f"not a msgpack batch: {err}") from None
    if not isinstance(batch, list) or not all(
        isinstance(m, list) and m and isinstance(m[0], int) for m in batch
    ):
        raise EnvelopeError("a batch is a list of [kind, ...] messages")
    return batch
