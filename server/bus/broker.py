"""Redis as the broker: publishing, a subscription that reconnects with backoff, batched
outboxes and the core's lease. Every Redis error is caught here: callers see "not
delivered" (None or 0 receivers) and up/down callbacks, never an exception."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from .envelope import Message, pack_batch

log = logging.getLogger(__name__)

BACKOFF_FIRST = 0.1
BACKOFF_MAX = 2.0
"""Seconds between reconnection attempts: doubling from the first to the max."""
COMMAND_TIMEOUT = 2.0
"""Seconds a Redis command may take before Redis counts as unreachable."""
READ_WAIT = 1.0
"""Seconds one read of the subscription waits for a message (then reads again)."""

OnMessage = Callable[[str, bytes], None]


def connect(url: str) -> Redis:
    """A Redis client for `url` that fails fast (no retries: the callers retry)."""
    return Redis.from_url(
        url,
        socket_connect_timeout=COMMAND_TIMEOUT,
        socket_timeout=COMMAND_TIMEOUT,
        health_check_interval=5,
        retry=Retry(NoBackoff(), 0),
    )


class Broker:
    """One Redis client: `publish` for anyone, and a subscription to `channels` whose
    messages go to `on_message(channel, data)`. `on_up` runs each time the subscription is
    (re)established, `on_down` each time it is lost."""

    def __init__(
        self,
        url: str,
        channels: list[str],
        on_message: OnMessage,
        on_up: Callable[[], None] = lambda: None,
        on_down: Callable[[], None] = lambda: None,
    ) -> None:
        self.redis = connect(url)
        self._channels = channels
        self._on_message = on_message
        self._on_up, self._on_down = on_up, on_down
        self._task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()  # set while subscribed: what is sent here arrives

    def start(self) -> None:
        """Subscribe (in the background, retrying until Redis answers)."""
        self._task = asyncio.get_running_loop().create_task(self._listen())

    async def publish(self, channel: str, payload: bytes) -> int | None:
        """How many subscribers got `payload`; None when Redis is unreachable."""
        try:
            return await self.redis.publish(channel, payload)
        except (RedisError, OSError) as err:
            log.debug("publish to %s failed: %s", channel, err)
            return None

    async def subscribers(self, channels: list[str]) -> dict[str, int] | None:
        """How many listen on each channel now; None when Redis is unreachable."""
        try:
            counts = await self.redis.pubsub_numsub(*channels)
        except (RedisError, OSError) as err:
            log.debug("numsub failed: %s", err)
            return None
        return {(c.decode() if isinstance(c, bytes) else c): int(n) for c, n in counts}

    async def close(self) -> None:
        """Stop listening and close the connections."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(RedisError, OSError):
            await self.redis.aclose()

    async def _listen(self) -> None:
        delay = BACKOFF_FIRST
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(*self._channels)
                delay = BACKOFF_FIRST
                self._set_up(True)
                while True:
                    message = await pubsub.get_message(timeout=READ_WAIT)
                    if message is not None and message["type"] == "message":
                        self._deliver(message["channel"], message["data"])
            except (RedisError, OSError) as err:
                log.warning("broker unreachable (%s); retrying in %.1f s", err, delay)
            finally:
                self._set_up(False)
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()
            await asyncio.sleep(delay)  # back off before reconnecting
            delay = min(delay * 2, BACKOFF_MAX)

    def _set_up(self, up: bool) -> None:
        if up == self.listening.is_set():
            return
        if up:
            self.listening.set()
            log.info("broker connected")
            self._on_up()
        else:
            self.listening.clear()
            self._on_down()

    def _deliver(self, channel: bytes | str, data: bytes) -> None:
        name = channel.decode() if isinstance(channel, bytes) else channel
        try:
            self._on_message(name, data)
        except Exception:  # one bad batch must not end the subscription
            log.exception("error handling a batch from %s", name)


Undelivered = Callable[[list[Message], int | None], None]


class Outbox:
    """Messages for one channel, sent as one batch per event-loop turn, in order.

    When nobody received a batch (0 subscribers, or Redis unreachable: None), its messages
    go to `undelivered(batch, received)`.
    """

    def __init__(
        self, broker: Broker, channel: str, undelivered: Undelivered | None = None
    ) -> None:
        self._broker = broker
        self.channel = channel
        self._undelivered = undelivered
        self._pending: list[Message] = []
        self._task: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    def put(self, message: Message) -> None:
        """Queue one message; it leaves with the others of this turn."""
        self._pending.append(message)
        if self._task is None:
            self._idle.clear()
            self._task = asyncio.get_running_loop().create_task(self._drain())

    async def drained(self) -> None:
        """Wait until every queued message was published (or found undeliverable)."""
        await self._idle.wait()

    async def _drain(self) -> None:
        try:
            while self._pending:
                await asyncio.sleep(0)  # let the rest of this turn's messages join
                batch, self._pending = self._pending, []
                received = await self._broker.publish(self.channel, pack_batch(batch))
                if not received and self._undelivered is not None:
                    self._undelivered(batch, received)
        finally:
            self._task = None
            self._idle.set()


RENEW = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
end
if not holder then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
end
return 0
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class Lease:
    """The right to be the one core: a Redis key holding `holder`, expiring after `seconds`
    unless renewed."""

    def __init__(self, redis: Redis, key: str, holder: str, seconds: float) -> None:
        self._redis = redis
        self._key = key
        self.holder = holder
        self._ms = max(1, int(seconds * 1000))
        self.seconds = seconds

    async def acquire(self, waiting: Callable[[str], None]) -> None:
        """Wait until the lease is ours; `waiting(why)` is told once per reason to wait."""
        said: str | None = None
        while True:
            try:
                if await self._redis.set(self._key, self.holder, nx=True, px=self._ms):
                    return
                why = "another core holds the lease: waiting as a standby"
            except (RedisError, OSError) as err:
                why = f"broker unreachable ({err}): retrying"
            if why != said:
                waiting(why)
                said = why
            await asyncio.sleep(self.seconds / 5)  # check again well before it could expire

    async def renew(self) -> bool | None:
        """True: still ours (or taken back after Redis lost it); False: another core holds
        it; None: Redis unreachable."""
        try:
            held = await self._redis.eval(RENEW, 1, self._key, self.holder, self._ms)
        except (RedisError, OSError) as err:
            log.warning("cannot renew the core lease: %s", err)
            return None
        return bool(held)

    async def release(self) -> None:
        """Give the lease up (at a clean stop), if it is still ours."""
        with contextlib.suppress(RedisError, OSError):
            await self._redis.eval(RELEASE, 1, self._key, self.holder)
