"""Start-up flood (issue 34): silent connections from many networks while real players log in.

Usage: python benchmarks/startup_flood.py [--attackers 200] [--duration 30] [--logins 15]
           [--reopen-delay 0.2]

A fresh `lovelet serve` (default configuration, another process) on loopback. Each attacker
has its own address in its own /24 (127.0.1.1, 127.0.2.1, ...: as many networks as a botnet
has), opens a TCP connection there, reads the server's version string and sends nothing;
when the server closes it, it opens another `--reopen-delay` seconds later, until
`--duration` seconds have passed. Meanwhile `--logins` real SSH logins (asyncssh guests with
a PTY, each from its own address in 127.1.0.0/24), one every duration/logins seconds, each
wait up to 15 s for the lobby.

Printed: the logins that reached the lobby (of those tried) and why the others did not, their
latency from TCP connect to the lobby on screen (p50, max), the attackers' connections opened
and how long the server held them (p50, max), and the server's CPU share and RSS (before →
peak) while attacked.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import _quiet  # noqa: F401 (before asyncssh, which warns as it is imported)
import asyncssh
from abuse import login
from sessions import ROOT, ServerProcess, free_port, percentile, say, settle, wait_listening

LOGIN_DEADLINE = 15.0


@dataclass
class Attack:
    """What the attackers did and what became of their connections."""

    opened: int = 0
    failed: int = 0
    held: list[float] = field(default_factory=list)
    """Seconds the server kept each connection it closed."""


@dataclass
class Logins:
    """The real logins: latency of each that reached the lobby, reasons for the others."""

    latencies: list[float] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)

    @property
    def tried(self) -> int:
        return len(self.latencies) + sum(self.failures.values())


def spawn(data_dir: Path) -> ServerProcess:
    """`lovelet serve` with the default configuration on a free loopback port."""
    port = free_port()
    env = {name: value for name, value in os.environ.items() if not name.startswith("LOVELET_")}
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "server.cli", "serve"]
    command += ["--listen", f"127.0.0.1:{port}", "--data-dir", str(data_dir)]
    log = data_dir.parent / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=out)
    return ServerProcess(process, port, log, data_dir.parent / "gc.unused")


# ---------------------------------------------------------------- attackers


async def attacker(port: int, source: str, until: float, delay: float, attack: Attack) -> None:
    """Keep one silent connection from `source` open (another once the server closes it)."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0)
            )
        except OSError:
            attack.failed += 1
        else:
            attack.opened += 1
            opened = time.monotonic()
            closed = await closed_at(reader, until)
            writer.close()
            if closed is not None:
                attack.held.append(closed - opened)
        await asyncio.sleep(delay)


async def closed_at(reader: asyncio.StreamReader, until: float) -> float | None:
    """When the server closed the connection (None: still open at `until`)."""
    try:
        async with asyncio.timeout(max(0.0, until - time.monotonic())):
            while await reader.read(4096):
                pass
    except TimeoutError:
        return None
    except OSError:
        pass
    return time.monotonic()


# ---------------------------------------------------------------- real logins


async def log_in(port: int, name: str, source: str, logins: Logins) -> None:
    """One real login, to the lobby on screen (abuse.py's client); its latency or why it
    failed."""
    started = time.monotonic()
    try:
        term = await login(port, name, source, timeout=LOGIN_DEADLINE)
    except TimeoutError:
        logins.failures[f"no lobby within {LOGIN_DEADLINE:.0f} s"] += 1
    except (OSError, asyncssh.Error) as error:
        logins.failures[f"{type(error).__name__}: {str(error)[:60]}"] += 1
    else:
        logins.latencies.append(time.monotonic() - started)
        term.close()


async def real_logins(port: int, count: int, every: float, logins: Logins) -> None:
    """`count` logins, one every `every` seconds, each from its own address."""
    tries = []
    for index in range(count):
        tries.append(
            asyncio.create_task(log_in(port, f"real{index}", f"127.1.0.{2 + index}", logins))
        )
        await asyncio.sleep(every)
    await asyncio.gather(*tries)


# ---------------------------------------------------------------- the run


async def sample_rss(server: ServerProcess, peak: list[float], stop: asyncio.Event) -> None:
    """Keep the highest RSS seen in `peak[0]`."""
    while not stop.is_set():
        peak[0] = max(peak[0], server.rss_mb())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def run(args: argparse.Namespace) -> None:
    """The server, the attackers and the logins; then the report."""
    with tempfile.TemporaryDirectory(prefix="lovelet-flood-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        server = spawn(data)
        try:
            await wait_listening(server)
            before = await settle(server)
            attack, logins, peak, stop = Attack(), Logins(), [before], asyncio.Event()
            sampler = asyncio.create_task(sample_rss(server, peak, stop))
            cpu, started = server.cpu_seconds(), time.monotonic()
            until = started + args.duration
            sources = [f"127.0.{1 + i % 255}.{1 + i // 255}" for i in range(args.attackers)]
            say(f"{args.attackers} attackers for {args.duration:.0f} s, {args.logins} logins")
            await asyncio.gather(
                *(attacker(server.port, s, until, args.reopen_delay, attack) for s in sources),
                real_logins(server.port, args.logins, args.duration / args.logins, logins),
            )
            cpu_share = (server.cpu_seconds() - cpu) / (time.monotonic() - started)
            stop.set()
            await sampler
            report(attack, logins, cpu_share, (before, peak[0]))
        finally:
            server.stop()


def report(attack: Attack, logins: Logins, cpu_share: float, rss: tuple[float, float]) -> None:
    """A few lines: the logins first."""
    latencies = logins.latencies
    print(
        f"real logins: {len(latencies)}/{logins.tried} reached the lobby; latency p50 "
        f"{percentile(latencies, 0.5):.0f} ms, max {percentile(latencies, 1.0):.0f} ms"
    )
    for reason, count in logins.failures.most_common():
        print(f"  failed {count}x: {reason}")
    print(
        f"attackers: {attack.opened} connections opened ({attack.failed} failed to connect), "
        f"{len(attack.held)} closed by the server, held p50 {percentile(attack.held, 0.5):.0f} "
        f"ms, max {percentile(attack.held, 1.0):.0f} ms"
    )
    print(f"server: CPU {100 * cpu_share:.0f}% of a core; RSS {rss[0]:.0f} → {rss[1]:.0f} MB")
    print(f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attackers", type=int, default=200, help="addresses, one /24 each")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of attack")
    parser.add_argument("--logins", type=int, default=15, help="real logins meanwhile")
    parser.add_argument(
        "--reopen-delay", type=float, default=0.2, help="seconds before an attacker reconnects"
    )
    asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
