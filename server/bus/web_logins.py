"""Web logins in Redis: the links and browser sessions every front-end of `--workers` shares,
so a link printed by one front-end works (once) on any, and `web-logout` on any ends the
sessions everywhere.

Keys (`lovelet:web:…`) are named by the SHA-256 of each token, never the token itself: what
Redis holds cannot be replayed as a link or a cookie. `link:DIGEST` and `session:DIGEST`
hold the login (msgpack: identity, name) and expire with it (PX); `links:IDENTITY` and
`sessions:IDENTITY` are sorted sets of the identity's digests, oldest first, which bound
how many one identity holds and let `revoke` find them all. A link is spent with GETDEL:
of every front-end, one request gets it.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterator

import msgpack
from redis.asyncio import Redis
from redis.exceptions import RedisError

from ..ssh.web_login import LINK, SESSION, Kind, LoginsUnavailable, WebLogin
from .envelope import PREFIX

PUT = """
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local order = 1
if last[2] then order = tonumber(last[2]) + 1 end
redis.call('ZADD', KEYS[2], order, ARGV[2])
for _, digest in ipairs(redis.call('ZRANGE', KEYS[2], 0, -(tonumber(ARGV[4]) + 1))) do
    redis.call('DEL', ARGV[5] .. digest)
    redis.call('ZREM', KEYS[2], digest)
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
"""
"""KEYS: the token's key, its identity's set. ARGV: the login, the token's digest, its
lifetime in ms, how many the identity may hold, the prefix of the kind's token keys."""
REVOKE = """
local counts = {}
for i, set in ipairs(KEYS) do
    local ended = 0
    for _, digest in ipairs(redis.call('ZRANGE', set, 0, -1)) do
        ended = ended + redis.call('DEL', ARGV[i] .. digest)
    end
    redis.call('DEL', set)
    counts[i] = ended
end
return counts
"""
"""KEYS: an identity's sets; ARGV: the prefix of each one's token keys. Returns how many
tokens of each were still held."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _prefix(kind: Kind) -> str:
    """Where tokens of `kind` are held: this + a token's digest."""
    return f"{PREFIX}:web:{kind.name}:"


def _own(kind: Kind, identity: str) -> str:
    """The set of `identity`'s tokens of `kind`."""
    return f"{PREFIX}:web:{kind.name}s:{identity}"


class RedisLogins:
    """A `server.ssh.web_login.LoginStore` in Redis, through `redis` (a front-end's broker
    client: `server.bus.broker.connect`)."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis
        self._put = redis.register_script(PUT)
        self._revoke = redis.register_script(REVOKE)

    async def put(self, kind: Kind, token: str, login: WebLogin) -> None:
        """Hold `login` under `token`, dropping the identity's oldest past `kind.most`."""
        digest = _digest(token)
        value = msgpack.packb([login.identity, login.name])
        keys = [_prefix(kind) + digest, _own(kind, login.identity)]
        args = [value, digest, int(kind.seconds * 1000), kind.most, _prefix(kind)]
        with _reaching_redis():
            await self._put(keys=keys, args=args)

    async def take(self, kind: Kind, token: str) -> WebLogin | None:
        """The login under `token`, deleted in the same command (GETDEL); None if none."""
        with _reaching_redis():
            value = await self._redis.getdel(_prefix(kind) + _digest(token))
        return _login(value)

    async def get(self, kind: Kind, token: str) -> WebLogin | None:
        """The login under `token`; None if there is none (or it expired)."""
        with _reaching_redis():
            value = await self._redis.get(_prefix(kind) + _digest(token))
        return _login(value)

    async def revoke(self, identity: str) -> int:
        """Drop every link and session of `identity` at once; how many sessions there were."""
        kinds = (SESSION, LINK)
        with _reaching_redis():
            counts = await self._revoke(
                keys=[_own(kind, identity) for kind in kinds],
                args=[_prefix(kind) for kind in kinds],
            )
        return int(counts[0])


def _login(value: bytes | None) -> WebLogin | None:
    if value is None:
        return None
    identity, name = msgpack.unpackb(value)
    return WebLogin(identity, name)


@contextlib.contextmanager
def _reaching_redis() -> Iterator[None]:
    """Redis unreachable or failing: `LoginsUnavailable`, saying why."""
    try:
        yield
    except (RedisError, OSError) as err:
        raise LoginsUnavailable(str(err)) from err
