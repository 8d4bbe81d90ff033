"""Keys that are cheap to send and dear to handle (issue 34): rows for benchmarks/abuse.py.

Usage: python benchmarks/dear_keys.py [--only NAME ...] [--duration 20] [--logs DIR]

Each row runs as abuse.py's rows do (a fresh `lovelet serve`, the reference player typing in
the lobby chat and timing each key's echo, the probe logging in every two seconds), against
guests who open and close the help screen (`?` then Esc): as fast as the server reads (1, 4
and 8 sessions), or paced at 29 keys a second each (8 sessions, inside the 50 keys/s key
budget; also with the stats screen, `i` then Esc, and the new-table form, `n` then Esc),
from a process of their own that reads their output without drawing it (the reference
player's screen is timed in this one: drawing theirs here would slow it and show as server
latency). Esc is sent as a terminal with the kitty keyboard protocol sends it (`ESC`), which
the server takes at once; a row whose screen was not drawn fails. The reference player's
latency counts from when the attackers are in (their logins are reported apart). The
`honest` row is the dearest honest player: help, rules through every edition, stats, chat, at
a fast typist's pace, each key waiting for its screen. Each row prints what abuse.py prints;
the attacker line adds the server CPU with the attackers and how they ended. `--logs` keeps
each row's server log.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from abuse import Attack, NotDelivered, Term, attack_began, login, print_row, run_attack
from sessions import ServerProcess, say

ESC = b"\x1b[27u"
"""Esc as the kitty keyboard protocol sends it, which the server takes at once. A lone Esc
waits `ESCAPE_DELAY` (0.1 s) for a sequence to follow, and a key within it makes Alt+key:
paced at 29 keys/s, `?` Esc `?` Esc would open help once and then send Alt+?."""
TOGGLES = {"help": (b"?", b"Close"), "stats": (b"i", b"Close"), "form": (b"n", b"Cancel")}
"""The key that opens each screen (Esc closes it), and a word of its footer: the screen was
drawn when its output holds it."""
PACED_KEYS_PER_SECOND = 29.0
HONEST_PAUSE = 0.15  # seconds a fast typist takes between two keys, after the screen changed
HONEST_KEYS = (  # (key, text on the screen once it is handled)
    (b"?", "Close"),
    (b"r", "edition"),
    (b"\x1b[C", "edition"),
    (b"\x1b[C", "edition"),
    (b"\x1b[C", "edition"),
    (b"\x1b", "Close"),
    (b"\x1b", "signed in as"),
    (b"i", "Close"),
    (b"\x1b", "signed in as"),
    (b"c", "Say something"),
    (b"h", "h"),
    (b"i", "hi"),
    (b"\r", "hi"),
)


async def flood_help(
    server: ServerProcess, sessions: int, paced: bool, duration: float, screen: str = "help"
) -> str:
    """`sessions` guests toggle help, as fast as the channel takes it or at the paced rate, from
    a process of their own (`attack`): reading their screens' output would otherwise take this
    process's loop, and the reference player's key → screen times with it."""
    command = [sys.executable, __file__, "--attack", str(server.port), str(sessions)]
    command += ["--duration", str(duration), "--screen", screen, *(["--paced"] if paced else [])]
    cpu = server.cpu_seconds()
    child = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert child.stdout is not None
    if await child.stdout.readline() == b"in\n":  # logged in: the flood begins
        attack_began()
    out, err = await child.communicate()
    lines = out.decode().strip().splitlines()
    if not lines:
        raise NotDelivered(f"the attackers' process ended early: {err.decode()[-300:]}")
    report = json.loads(lines[-1])
    share = (server.cpu_seconds() - cpu) / report["elapsed"]
    cut = report["cut"]
    if report["drawn"] < 10 * (sessions - len(cut)):
        raise NotDelivered(f"the {screen} screen was drawn {report['drawn']} times in all")
    when = ""
    if cut:
        said = "; ".join(sorted({line for _, *lines in cut for line in lines}))
        when = f" after {min(at for at, *_ in cut):.0f} s ({said})"
    return (
        f"{sessions} session(s) sent {report['keys'] / report['elapsed']:.0f} keys/s in all for "
        f"{report['elapsed']:.0f} s, the {screen} screen drawn {report['drawn']} times; server "
        f"CPU with them {100 * share:.0f}% of a core "
        f"(logins included); cut off {len(cut)}/{sessions}{when}"
    )


async def idle(server: ServerProcess, sessions: int, duration: float) -> str:
    """`sessions` guests who log in and do nothing: what more sessions alone cost the others
    (a whole garbage collection walks every session's objects)."""
    terms = [await login(server.port, f"idle{i}", "127.0.0.3") for i in range(sessions)]
    for term in terms:
        term.parsing = False
    attack_began()
    await asyncio.sleep(duration)
    for term in terms:
        term.close()
    return f"{sessions} session(s) idle for {duration:.0f} s"


async def attack(port: int, sessions: int, paced: bool, duration: float, screen: str) -> None:
    """The attackers' process: log in, flood for `duration` s, print one JSON line (keys sent,
    seconds, and for each session cut off: when and the last line it saw)."""
    terms = [await login(port, f"dear{i}", "127.0.0.3") for i in range(sessions)]
    key, mark = TOGGLES[screen]
    for term in terms:
        term.parsing, term.mark = False, mark
    print("in", flush=True)
    started = time.monotonic()
    flood = _paced if paced else _flat_out
    sent = await asyncio.gather(*(flood(term, key, started + duration) for term in terms))
    elapsed = time.monotonic() - started
    cut = [[t.closed_at - started, *_last_line(t)] for t in terms if t.closed_at is not None]
    for term in terms:
        term.close()
    drawn = sum(term.marked for term in terms)
    print(json.dumps({"keys": sum(sent), "elapsed": elapsed, "cut": cut, "drawn": drawn}))


async def _flat_out(term: Term, key: bytes, deadline: float) -> int:
    """Write `key` Esc pairs whenever the SSH window is open; keys written."""
    keys = 0
    while not term.closed and time.monotonic() < deadline:
        await _writable(term, deadline)
        term.write((key + ESC) * 64)
        keys += 2 * 64
    return keys


async def _paced(term: Term, key: bytes, deadline: float) -> int:
    """`key` and Esc by turns, one every 1/29 s; keys written."""
    keys, start = 0, time.monotonic()
    while not term.closed and time.monotonic() < deadline:
        term.write(ESC if keys % 2 else key)
        keys += 1
        await asyncio.sleep(max(0.0, start + keys / PACED_KEYS_PER_SECOND - time.monotonic()))
    return keys


async def _writable(term: Term, deadline: float) -> None:
    """Wait (until `deadline` at most) for the channel to take more."""
    remaining = deadline - time.monotonic()
    if remaining > 0 and not term.writable.is_set():
        try:
            await asyncio.wait_for(term.writable.wait(), remaining)
        except TimeoutError:
            return


async def honest(server: ServerProcess, duration: float) -> str:
    """The dearest honest player: screens at a fast typist's pace, each key awaited."""
    term = await login(server.port, "honest", "127.0.0.3")
    attack_began()
    started, cpu, keys = time.monotonic(), server.cpu_seconds(), 0
    while not term.closed and time.monotonic() < started + duration:
        key, shown = HONEST_KEYS[keys % len(HONEST_KEYS)]
        term.write(key)
        keys += 1
        await term.wait_for(lambda shown=shown: shown in term.text(), 10.0)
        await asyncio.sleep(HONEST_PAUSE)
    elapsed = time.monotonic() - started
    share = (server.cpu_seconds() - cpu) / elapsed
    return _verdict([term], keys, elapsed, share, started)


def _verdict(terms: list[Term], keys: int, elapsed: float, share: float, started: float) -> str:
    cut = [term for term in terms if term.closed]
    said = "; ".join(sorted({line for term in cut for line in _last_line(term)}))
    for term in terms:
        term.close()
    when = f" after {min(t.closed_at or 0 for t in cut) - started:.0f} s ({said})" if cut else ""
    return (
        f"{len(terms)} session(s) sent {keys / elapsed:.0f} keys/s in all for {elapsed:.0f} s; "
        f"server CPU with them {100 * share:.0f}% of a core; cut off {len(cut)}/{len(terms)}"
        f"{when}"
    )


def _last_line(term: Term) -> list[str]:
    """The last line of what `term` was sent (in a list; empty if nothing)."""
    text = term.raw[-400:].decode(errors="replace").strip().splitlines()
    return text[-1:] if text else []


ATTACKS = (
    Attack("baseline", "no attack", lambda server, duration: _idle(duration)),
    Attack("honest", "the dearest honest player", honest),
    Attack("idle-8", "8 sessions in the lobby doing nothing", lambda s, d: idle(s, 8, d)),
    Attack("help-1", "1 session toggling help flat out", lambda s, d: flood_help(s, 1, False, d)),
    Attack("help-4", "4 sessions toggling help flat out", lambda s, d: flood_help(s, 4, False, d)),
    Attack("help-8", "8 sessions toggling help flat out", lambda s, d: flood_help(s, 8, False, d)),
    Attack(
        "help-8-paced",
        "8 sessions toggling help at 29 keys/s each",
        lambda s, d: flood_help(s, 8, True, d),
    ),
    Attack(
        "stats-8-paced",
        "8 sessions toggling the stats screen at 29 keys/s each",
        lambda s, d: flood_help(s, 8, True, d, "stats"),
    ),
    Attack(
        "form-8-paced",
        "8 sessions opening and closing the new-table form at 29 keys/s each",
        lambda s, d: flood_help(s, 8, True, d, "form"),
    ),
)


async def _idle(duration: float) -> str:
    await asyncio.sleep(duration)
    return "none"


async def run(args: argparse.Namespace) -> None:
    """Every row asked for, one after another."""
    chosen = [a for a in ATTACKS if not args.only or a.name in args.only]
    with tempfile.TemporaryDirectory(prefix="lovelet-dear-") as tmp:
        for attack in chosen:
            say(f"{attack.name}: {attack.what}")
            print_row(await run_attack(attack, args.duration, Path(tmp)))
            sys.stdout.flush()
            if args.logs:
                shutil.copy(Path(tmp) / attack.name / "data.log", args.logs / f"{attack.name}.log")
    print(f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", choices=[a.name for a in ATTACKS], default=[])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per row (max)")
    parser.add_argument("--logs", type=Path, help="a directory to keep each row's server log in")
    parser.add_argument("--attack", nargs=2, type=int, metavar=("PORT", "SESSIONS"))
    parser.add_argument("--paced", action="store_true", help="with --attack: 29 keys/s each")
    parser.add_argument("--screen", choices=sorted(TOGGLES), default="help", help="with --attack")
    args = parser.parse_args(argv)
    if args.attack:
        asyncio.run(attack(*args.attack, args.paced, args.duration, args.screen))
    else:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
