"""Hostile clients (issue 12): each attack against a fresh `lovelet serve` in another process.

Usage: python benchmarks/abuse.py [--only NAME ...] [--duration 20]

Every attack runs on loopback against its own server (default configuration, a data
directory that already exists, umask 022) while a reference player, a guest from 127.0.0.2,
types in the lobby chat one key at a time, each key waiting for its echo on a pyte screen,
and a probe logs a new guest in from 127.0.0.9 every two seconds. Attackers come from
127.0.0.3 and up. Every loop is bounded in count and in time (`--duration` seconds of attack
at most, except where the row says otherwise).

Printed per attack: the reference player's key → screen p50/p99 (keys measured, and how many
waited more than the per-key deadline), the server's CPU share while attacked, its RSS before →
during (peak) → after the attackers left, the probe's logins (ok/tried, slowest), and what
became of the attacker (throttled, cut off, refused, how much the server took).

A row whose attack could not be delivered (the server never received it, or the attack broke
down) measured nothing: it is marked FAIL, and the run exits with status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import os
import random
import re
import sqlite3
import stat
import string
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import _quiet  # noqa: F401 (before asyncssh, which warns as it is imported)
import asyncssh
import pyte
from asyncssh.packet import String
from asyncssh.public_key import SSHLocalKeyPair
from sessions import ROOT, ServerProcess, free_port, percentile, say, settle, wait_listening

REFERENCE = "127.0.0.2"
PROBE = "127.0.0.9"
KEY_DEADLINE = 10.0  # seconds the reference player waits for one key's echo
CHAT_LINE = 30  # keys typed before the reference player sends the line (Enter)
KEY_PACE = 0.1  # at most ten keys a second from the reference player
PROBE_EVERY = 2.0
LOGIN_DEADLINE = 15.0
CHUNK = 4096  # bytes per write of a key flood
ENV_REQUESTS, ENV_VALUE = 10_000, 30_000  # the env flood: requests, bytes of each value
ALT_SCREEN_ON, ALT_SCREEN_OFF = b"\x1b[?1049h", b"\x1b[?1049l"
RESTORES = {
    "main screen": b"\x1b[?1049l",
    "cursor shown": b"\x1b[?25h",
    "bracketed paste off": b"\x1b[?2004l",
    "wrap on": b"\x1b[?7h",
}


# ---------------------------------------------------------------- the server


def spawn(data_dir: Path) -> ServerProcess:
    """`lovelet serve` with the default configuration on a free loopback port."""
    port = free_port()
    log, gc_log = data_dir.parent / f"{data_dir.name}.log", data_dir.parent / "gc.unused"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env = {name: value for name, value in env.items() if not name.startswith("LOVELET_")}
    command = [sys.executable, "-m", "server.cli", "serve"]
    command += ["--listen", f"127.0.0.1:{port}", "--data-dir", str(data_dir)]
    old_mask = os.umask(0o022)
    try:
        with log.open("wb") as out:
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    finally:
        os.umask(old_mask)
    return ServerProcess(process, port, log, gc_log)


# ---------------------------------------------------------------- clients


class Term(asyncssh.SSHClientSession[bytes]):
    """A PTY session: its output on a pyte screen and as raw bytes, its write back-pressure."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(80, 24)
        self._stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.closed_at: float | None = None
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.changed = asyncio.Event()
        self.writable = asyncio.Event()
        self.writable.set()
        self.marked = 0

    parsing = True
    """Whether output goes to the pyte screen and is kept whole; else only its last 400 bytes
    are kept (an attacker in a process of its own reads its output but pays for no screen)."""
    mark = b""
    """Where output is not parsed, `marked` counts the chunks of it holding this (a screen's
    own text: how often it was drawn)."""

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        if self.parsing:
            self.raw += data
            self._stream.feed(data)
        else:
            self.raw = (self.raw + data)[-400:]
            self.marked += bool(self.mark) and self.mark in data
        self.changed.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed_at = time.monotonic()
        self.changed.set()
        self.writable.set()

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    @property
    def closed(self) -> bool:
        """The server closed the session (or the connection)."""
        return self.closed_at is not None

    def text(self) -> str:
        """The screen as text, rows joined by newlines."""
        return "\n".join(self.screen.display)

    async def wait_for(self, test: Callable[[], bool], timeout: float) -> bool:
        """Wait until `test()` holds; False on timeout or when the session closed first."""
        deadline = time.monotonic() + timeout
        while not test():
            remaining = deadline - time.monotonic()
            if self.closed or remaining <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)
        return True

    def write(self, data: bytes) -> None:
        """Send bytes if the session is still open (the server may have closed it a moment
        ago: what is sent then is lost)."""
        if self.chan is not None and not self.closed:
            with contextlib.suppress(BrokenPipeError):
                self.chan.write(data)

    def unsent(self) -> int:
        """Bytes written but still waiting in the client for the server's window."""
        return self.chan.get_write_buffer_size() if self.chan and not self.closed else 0

    def close(self) -> None:
        """Close the connection."""
        if self.conn is not None:
            self.conn.close()


class Guest(asyncssh.SSHClient):
    """Keyboard-interactive with no prompts: a guest login. Remembers the auth banner."""

    def __init__(self) -> None:
        self.banner = ""

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banner += msg

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: list[tuple[str, bool]]
    ) -> list[str] | None:
        return [] if not prompts else None


async def login(
    port: int,
    name: str,
    source: str,
    *,
    key: asyncssh.SSHKey | None = None,
    env: dict[str, str] | None = None,
    timeout: float = LOGIN_DEADLINE,
) -> Term:
    """Log in (with `key`, else as a guest), open a PTY session, wait for the lobby."""
    term = Term()
    term.conn = await asyncio.wait_for(
        asyncssh.connect(
            "127.0.0.1",
            port,
            username=name,
            local_addr=(source, 0),
            client_factory=Guest,
            known_hosts=None,
            agent_path=None,
            config=None,
            client_keys=[key] if key else None,
            password_auth=False,
            public_key_auth=key is not None,
            kbdint_auth=key is None,
        ),
        timeout,
    )
    term.chan, _ = await term.conn.create_session(
        lambda: term, term_type="xterm-256color", term_size=(80, 24), encoding=None, env=env
    )
    if not await term.wait_for(lambda: "signed in as" in term.text(), timeout):
        term.close()
        raise TimeoutError(f"{name} did not reach the lobby")
    return term


# ---------------------------------------------------------------- reference player, probe


@dataclass
class Observed:
    """What the reference player and the probe saw during one attack."""

    delays: list[float] = field(default_factory=list)
    sent: list[float] = field(default_factory=list)  # when each key of `delays` was sent
    attack_from: float | None = None  # when the attack's sessions were in and it began
    late: int = 0
    logins_ok: int = 0
    logins_tried: int = 0
    slowest_login: float = 0.0
    refusals: list[str] = field(default_factory=list)

    def split(self) -> tuple[list[float], list[float]]:
        """The delays of keys sent before the attack began (its sessions logging in) and
        after (all after where it never said)."""
        start = self.attack_from
        if start is None:
            return [], self.delays
        pairs = list(zip(self.sent, self.delays, strict=True))
        return [d for s, d in pairs if s < start], [d for s, d in pairs if s >= start]


OBSERVED: contextvars.ContextVar[Observed] = contextvars.ContextVar("observed")
"""What the running row's reference player sees (for `attack_began`)."""


def attack_began() -> None:
    """The attack's sessions are in and it begins: the row's latency counts from now (what
    their logins cost the reference player is printed apart)."""
    OBSERVED.get().attack_from = time.perf_counter()


async def reference_player(term: Term, seen: Observed, stop: asyncio.Event) -> None:
    """Type in the lobby chat, one key at a time, timing each echo on the screen; every
    CHAT_LINE keys send the line (Enter leaves the chat; c opens it again)."""
    typed = ""
    while not stop.is_set() and not term.closed:
        if not typed:
            term.write(b"c")
            await term.wait_for(lambda: "Say something" in term.text(), KEY_DEADLINE)
        typed += random.choice(string.ascii_lowercase)
        tail = typed[-6:]
        sent = time.perf_counter()
        term.write(typed[-1].encode())
        if await term.wait_for(lambda tail=tail: tail in term.text(), KEY_DEADLINE):
            seen.delays.append(time.perf_counter() - sent)
        else:
            seen.late += 1
            seen.delays.append(KEY_DEADLINE)
        seen.sent.append(sent)
        if len(typed) >= CHAT_LINE:
            term.write(b"\r")
            line = f"reference: {typed}"
            await term.wait_for(lambda line=line: line in term.text(), KEY_DEADLINE)
            typed = ""
        await asyncio.sleep(KEY_PACE)


async def probe(port: int, seen: Observed, stop: asyncio.Event) -> None:
    """A new guest logs in every PROBE_EVERY seconds and leaves at once."""
    number = 0
    while not stop.is_set():
        number += 1
        seen.logins_tried += 1
        started = time.monotonic()
        client_banner = ""
        try:
            term = await login(port, f"probe{number}", PROBE)
            seen.logins_ok += 1
            term.close()
        except (OSError, asyncssh.Error, TimeoutError) as error:
            client_banner = str(error)
            seen.refusals.append(client_banner[:60])
        seen.slowest_login = max(seen.slowest_login, time.monotonic() - started)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), PROBE_EVERY)


# ---------------------------------------------------------------- attacks


class NotDelivered(Exception):
    """The attack never reached the server as meant: its row measured nothing."""


@dataclass
class Attack:
    """One row of the issue's table."""

    name: str
    what: str
    run: Callable[[ServerProcess, float], Awaitable[str]]
    """What became of the attacker; raises `NotDelivered` when the attack was not delivered."""


async def flood_keys(server: ServerProcess, sessions: int, size: int, duration: float) -> str:
    """`sessions` guests each write `size` bytes of `x` as fast as the channel takes them."""
    terms = [await login(server.port, f"flood{i}", "127.0.0.3") for i in range(sessions)]
    started = time.monotonic()
    written = await asyncio.gather(*(_pump(term, size, started + duration) for term in terms))
    took = sum(w - term.unsent() for w, term in zip(written, terms, strict=True))
    if took <= 0:
        raise NotDelivered("the server took none of the keys")
    cut = [term for term in terms if term.closed]
    notice = sum(1 for term in terms if b"faster" in term.raw)  # "typing faster than ..."
    restored = sum(1 for term in cut if not _unrestored(term))
    elapsed = time.monotonic() - started
    for term in terms:
        term.close()
    busy = await _busy_after(server)
    return (
        f"{sessions} × {size // 1024} KB: server took {took / 1024:.0f} KB of "
        f"{sum(written) / 1024:.0f} KB written in {elapsed:.0f} s; cut off {len(cut)}/{sessions}"
        f"{f' after {min(t.closed_at for t in cut) - started:.0f} s' if cut else ''}; "
        f"terminal restored {restored}/{len(cut)}; notice seen by {notice}; "
        f"server busy {busy:.0f} s after they left"
    )


async def _pump(term: Term, size: int, deadline: float) -> int:
    """Write `size` bytes of keys respecting the SSH window, until `deadline`; bytes written."""
    written = 0
    chunk = b"x" * CHUNK
    while written < size and not term.closed and time.monotonic() < deadline:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(term.writable.wait(), max(0.0, deadline - time.monotonic()))
        if term.closed or not term.writable.is_set():
            break
        term.write(chunk[: size - written])
        written += min(CHUNK, size - written)
        await asyncio.sleep(0)
    return written


async def _busy_after(server: ServerProcess, limit: float = 60.0) -> float:
    """Seconds until the server's CPU goes quiet (< 5% of a core over 1 s)."""
    started = time.monotonic()
    await settle(server, quiet_for=1.0, limit=limit)
    return max(0.0, time.monotonic() - started - 1.0)


async def held_input(server: ServerProcess, duration: float) -> str:
    """One guest keeps writing keys for `duration` s: how much does the server buffer?"""
    term = await login(server.port, "holder", "127.0.0.3")
    started = time.monotonic()
    written = await _pump(term, 1 << 30, started + duration)
    took = written - term.unsent()
    if took <= 0:
        raise NotDelivered("the server took none of the keys")
    verdict = "cut off" if term.closed else "still open"
    term.close()
    return (
        f"1 session writing for {time.monotonic() - started:.0f} s: server took "
        f"{took / 1024:.0f} KB ({took / 1024 / max(duration, 1e-9):.1f} KB/s; "
        f"SSH window 64 KiB), {verdict}"
    )


async def env_flood(server: ServerProcess, duration: float) -> str:
    """10,000 `env` requests of 30 KB on one guest's open session (in the lobby), each sent
    once the last is answered. (Sent before the PTY request, as OpenSSH's SetEnv does, the
    server's cut-off at its limit leaves no session: the PTY request fails, and nothing of a
    session under attack is measured.)"""
    term = await login(server.port, "envy", "127.0.0.3")
    started = time.monotonic()
    answered, kept = await _send_env(term, started + duration)
    took = time.monotonic() - started
    if not answered:
        raise NotDelivered("the server answered no env request")
    peak = server.rss_mb()
    cut = await term.wait_for(lambda: term.closed, 10.0)
    told = "Too many environment requests" in term.raw.decode(errors="replace")
    term.close()
    after = await settle(server)
    ending = f"cut off{', told why' if told else ''}" if cut else "session still open"
    return (
        f"{answered:,} of {ENV_REQUESTS:,} requests of {ENV_VALUE // 1000} KB answered "
        f"({kept} kept) in {took:.2f} s, then {ending}; RSS {peak:.0f} MB at the cut-off, "
        f"{after:.0f} MB after"
    )


async def _send_env(term: Term, deadline: float) -> tuple[int, int]:
    """`env` requests on the session's channel, one at a time, until the server closes it,
    ENV_REQUESTS are answered or `deadline`; (answered, kept). asyncssh lets a client send
    env requests only while opening a session: here its channel's own request call sends
    them on the open one."""
    chan, value = term.chan, String("v" * ENV_VALUE)
    answered = kept = 0
    while chan is not None and answered < ENV_REQUESTS and time.monotonic() < deadline:
        try:
            accepted = await chan._make_request(b"env", String(f"X{answered:05d}"), value)
        except (asyncssh.Error, OSError):
            break
        if not accepted and (term.closed or chan.is_closing()):
            break  # the server closed the channel (its last answer, if any, is not counted)
        answered, kept = answered + 1, kept + bool(accepted)
    return answered, kept


async def idle_tcp(server: ServerProcess, duration: float) -> str:
    """10 TCP connections from each of 127.0.0.3 and .4 that never send a byte, each opened
    again 0.2 s after the server closes it; a guest behind the first address tries to log in
    meanwhile."""
    hold_until = time.monotonic() + max(duration, 35.0)  # today's login deadline is 30 s
    held: list[float] = []
    opened = [0]

    async def keep_open(source: str) -> None:
        while time.monotonic() < hold_until and opened[0] < 2000:
            opened[0] += 1
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", server.port, local_addr=(source, 0)
            )
            began = time.monotonic()
            closed = await _held_until(reader, hold_until)
            writer.close()
            if closed is None:
                return
            held.append(closed - began)
            await asyncio.sleep(0.2)

    slots = [asyncio.create_task(keep_open(f"127.0.0.{3 + i // 10}")) for i in range(20)]
    await asyncio.sleep(1.0)
    if opened[0] < len(slots):
        raise NotDelivered(f"only {opened[0]} of {len(slots)} idle connections opened")
    neighbour = "logged in"
    try:
        term = await login(server.port, "neighbour", "127.0.0.3")
        term.close()
    except (OSError, asyncssh.Error, TimeoutError) as error:
        neighbour = f"refused ({str(error)[:50]})"
    await asyncio.gather(*slots)
    longest = f"longest held {max(held):.0f} s" if held else "none closed by the server"
    return (
        f"20 idle sockets kept open ({opened[0]} opened in all): {longest}; "
        f"a guest from the same address: {neighbour}"
    )


async def _held_until(reader: asyncio.StreamReader, deadline: float) -> float | None:
    """When the server closed this socket (None: still open at `deadline`)."""
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if not await asyncio.wait_for(reader.read(4096), remaining):
                return time.monotonic()
    except TimeoutError:
        return None
    except OSError:
        return time.monotonic()


class BadSigner(SSHLocalKeyPair):
    """A key pair whose signatures never verify (it signs other data than asked)."""

    def __init__(self) -> None:
        super().__init__(asyncssh.generate_private_key("ssh-ed25519"), None, None, None)

    def sign(self, data: bytes) -> bytes:
        """A well-formed signature of the wrong data."""
        return super().sign(data + b"!")


class Forger(asyncssh.SSHClient):
    """Offers the same key with a bad signature up to `attempts` times."""

    def __init__(self, signer: BadSigner, attempts: int) -> None:
        self.signer = signer
        self.left = attempts
        self.tried = 0

    def public_key_auth_requested(self) -> list[BadSigner] | None:  # type: ignore[override]
        if self.left <= 0:
            return None
        self.left -= 1
        self.tried += 1
        return [self.signer]


async def auth_flood(server: ServerProcess, duration: float) -> str:
    """3,000 failed signature attempts on one connection."""
    forger = Forger(BadSigner(), 3000)
    started = time.monotonic()
    outcome = "all answered, then the client gave up"
    try:
        conn = await asyncio.wait_for(
            asyncssh.connect(
                "127.0.0.1",
                server.port,
                username="forger",
                local_addr=("127.0.0.3", 0),
                client_factory=lambda: forger,
                known_hosts=None,
                agent_path=None,
                config=None,
                password_auth=False,
                kbdint_auth=False,
                public_key_auth=True,
            ),
            duration,
        )
        conn.close()
        outcome = "logged in (!)"
    except asyncssh.DisconnectError as error:
        outcome = f"disconnected ({error.reason[:50]})"
    except asyncssh.PermissionDenied:
        outcome = "all answered, then the client gave up"
    except TimeoutError:
        outcome = "still answering at the deadline"
    except OSError as error:
        outcome = f"connection lost ({str(error)[:50]})"
    elapsed = time.monotonic() - started
    if not forger.tried:
        raise NotDelivered(f"no signature was offered: {outcome}")
    return f"{forger.tried} signature attempts in {elapsed:.1f} s: {outcome}"


async def reserve_names(server: ServerProcess, duration: float) -> str:
    """One key logs in under 100 different names, one after another."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    started = time.monotonic()
    done = 0
    for number in range(100):
        if time.monotonic() - started > max(duration, 45.0):
            break
        with contextlib.suppress(OSError, asyncssh.Error, TimeoutError):
            term = await login(server.port, f"squat{number:03d}", "127.0.0.3", key=key)
            term.close()
            done += 1
    elapsed = time.monotonic() - started
    if not done:
        raise NotDelivered("no login under a new name succeeded")
    fingerprint = key.get_fingerprint("sha256")
    db = server.log.parent / "data" / "lovelet.db"
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        held = conn.execute(
            "SELECT count(*) FROM nicknames WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()[0]
    return f"{done} logins under new names in {elapsed:.1f} s: {held} names reserved to the key"


async def long_paste(server: ServerProcess, duration: float) -> str:
    """A bracketed paste longer than the limit: the server disconnects; is the terminal
    restored (after the last switch to the alternate screen)?"""
    term = await login(server.port, "paster", "127.0.0.3")
    paste = b"\x1b[200~" + b"p" * 70_000 + b"\x1b[201~"
    term.write(paste)
    closed = await term.wait_for(lambda: term.closed, max(duration, 90.0))  # read at 1 KiB/s
    if not closed and term.unsent() >= len(paste):
        raise NotDelivered("the server took none of the paste")
    missing = _unrestored(term)
    term.close()
    restored = "restored" if not missing else "not restored: " + ", ".join(missing)
    return f"{'disconnected' if closed else 'still open'}; terminal {restored}"


def _unrestored(term: Term) -> list[str]:
    """What the output after the last switch to the alternate screen failed to restore."""
    tail = bytes(term.raw[term.raw.rfind(ALT_SCREEN_ON) :])
    return [name for name, code in RESTORES.items() if code not in tail]


async def file_modes(server: ServerProcess, duration: float) -> str:
    """Modes of the data directory (made 0755 beforehand) and the database files."""
    data = server.log.parent / "data"
    names = [".", *sorted(p.name for p in data.iterdir() if p.name.startswith("lovelet.db"))]
    if len(names) == 1:
        raise NotDelivered("no database file to look at")
    modes = [f"{name} {stat.S_IMODE((data / name).stat().st_mode):o}" for name in names]
    return "umask 022: " + ", ".join(modes)


async def no_attack(server: ServerProcess, duration: float) -> str:
    """Nobody attacks: the reference player's figures on their own."""
    await asyncio.sleep(duration)
    return "none"


ATTACKS = (
    Attack("baseline", "no attack", no_attack),
    Attack(
        "keys-8-sessions",
        "8 guest sessions each write 256 KB of keys",
        lambda server, duration: flood_keys(server, 8, 256 * 1024, duration),
    ),
    Attack(
        "keys-1-session",
        "1 session writes 1 MB of keys",
        lambda server, duration: flood_keys(server, 1, 1024 * 1024, duration),
    ),
    Attack("keys-held", "input while throttled", held_input),
    Attack("env", "10,000 env requests of 30 KB on one session", env_flood),
    Attack("idle-tcp", "10 idle TCP connections from each of 2 addresses", idle_tcp),
    Attack("auth", "3,000 failed signature attempts on one connection", auth_flood),
    Attack("names", "one key reserving nicknames", reserve_names),
    Attack("paste", "a server-initiated disconnect (paste too long)", long_paste),
    Attack("files", "database files when the data dir already exists", file_modes),
)


# ---------------------------------------------------------------- one run


@dataclass
class Row:
    """The figures printed for one attack."""

    attack: Attack
    seen: Observed
    cpu_share: float
    rss: tuple[float, float, float]
    verdict: str
    failure: str | None = None  # why the row measured nothing (the attack was not delivered)
    collections: str = ""  # the server's whole garbage collections meanwhile


async def run_attack(attack: Attack, duration: float, tmp: Path) -> Row:
    """A fresh server, the reference player and the probe, the attack, the readings."""
    data = tmp / attack.name / "data"
    data.mkdir(parents=True, mode=0o755)
    data.chmod(0o755)
    server = spawn(data)
    stop = asyncio.Event()
    seen = Observed()
    OBSERVED.set(seen)
    try:
        await wait_listening(server)
        reference = await login(server.port, "reference", REFERENCE)
        before = await settle(server)
        cpu, started = server.cpu_seconds(), time.monotonic()
        watchers = [
            asyncio.create_task(reference_player(reference, seen, stop)),
            asyncio.create_task(probe(server.port, seen, stop)),
        ]
        peak = [before]
        sampler = asyncio.create_task(_sample_rss(server, peak, stop))
        verdict, failure = await _attack(attack, server, duration)
        elapsed = time.monotonic() - started
        cpu_share = (server.cpu_seconds() - cpu) / max(elapsed, 1e-9)
        stop.set()
        await asyncio.gather(*watchers, sampler, return_exceptions=True)
        reference.close()
        after = await settle(server)
        collections = whole_collections(server.log.read_text(errors="replace"))
        rss = (before, peak[0], after)
        return Row(attack, seen, cpu_share, rss, verdict, failure, collections)
    finally:
        stop.set()
        server.stop()


async def _attack(attack: Attack, server: ServerProcess, duration: float) -> tuple[str, str | None]:
    """Run `attack`: (what became of the attacker, why the row fails or None). An attack that
    was not delivered, or broke down on the way, fails its row (the rest still run)."""
    try:
        return await asyncio.wait_for(attack.run(server, duration), duration + 90), None
    except NotDelivered as error:
        return f"not delivered: {error}", f"the attack was not delivered ({error})"
    except Exception as error:  # an attack that breaks the client fails its row, not the run
        verdict = f"attack failed: {type(error).__name__}: {str(error)[:80]}"
        return verdict, verdict


async def _sample_rss(server: ServerProcess, peak: list[float], stop: asyncio.Event) -> None:
    """Keep the highest RSS seen in `peak[0]`."""
    while not stop.is_set():
        with contextlib.suppress(OSError, RuntimeError):
            peak[0] = max(peak[0], server.rss_mb())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


def whole_collections(log: str) -> str:
    """How many whole collections the server's log reports and what set them off, their mean
    and longest, and the mean time of each given to handing freed memory back to the system."""
    found = re.findall(
        r"whole garbage collection: (\d+) ms \((\d+) ms giving.*, (\d+) kept\b.*; set off by (.+)$",
        log,
        re.M,
    )
    if not found:
        return "whole collections: none"
    lengths = [float(ms) for ms, _, _, _ in found]
    trims = [float(ms) for _, ms, _, _ in found]
    kept = [int(count) for _, _, count, _ in found]
    reasons = Counter(reason for _, _, _, reason in found)
    mean, trim = sum(lengths) / len(lengths), sum(trims) / len(trims)
    return (
        f"whole collections: {len(lengths)} ({', '.join(f'{n} {r}' for r, n in reasons.items())}),"
        f" mean {mean:.0f} ms (giving memory back {trim:.0f} ms), longest {max(lengths):.0f} ms;"
        f" objects kept {min(kept):,}–{max(kept):,}"
    )


def print_row(row: Row) -> None:
    """Three lines per attack."""
    seen, (before, peak, after) = row.seen, row.rss
    logging_in, attacked = seen.split()
    print(f"{row.attack.name}: {row.attack.what}")
    if logging_in:
        print(
            f"  while the attack's sessions logged in: {len(logging_in)} reference keys, "
            f"p50 {percentile(logging_in, 0.5):.0f} ms, slowest {1000 * max(logging_in):.0f} ms"
        )
    print(
        f"  reference key → screen p50 {percentile(attacked, 0.5):.0f} ms, "
        f"p99 {percentile(attacked, 0.99):.0f} ms ({len(attacked)} keys, "
        f"{seen.late} over {KEY_DEADLINE:.0f} s); new logins {seen.logins_ok}/"
        f"{seen.logins_tried} (slowest {seen.slowest_login:.1f} s); server CPU "
        f"{100 * row.cpu_share:.0f}% of a core; RSS {before:.0f} → {peak:.0f} (peak) → "
        f"{after:.0f} MB"
    )
    print(f"  attacker: {row.verdict}")
    print(f"  server: {row.collections}")
    if row.failure is not None:
        print(f"  FAIL: {row.failure}")


async def run(args: argparse.Namespace) -> list[str]:
    """Every attack asked for, one after another; the names of the rows that failed."""
    chosen = [a for a in ATTACKS if not args.only or a.name in args.only]
    failed = []
    with tempfile.TemporaryDirectory(prefix="lovelet-abuse-") as tmp:
        for attack in chosen:
            say(f"{attack.name}: {attack.what}")
            row = await run_attack(attack, args.duration, Path(tmp))
            print_row(row)
            sys.stdout.flush()
            if row.failure is not None:
                failed.append(attack.name)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load}")
    if failed:
        print(f"FAIL: {len(failed)} of {len(chosen)} rows measured nothing: {', '.join(failed)}")
    return failed


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 1 if a row failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=[a.name for a in ATTACKS], default=[])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per attack (max)")
    return 1 if asyncio.run(run(parser.parse_args(argv))) else 0


if __name__ == "__main__":
    sys.exit(main())
