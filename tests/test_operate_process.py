"""Operating `lovelet serve --workers N` as real processes with a real redis-server: which
process wrote each log line, JSON on every line, one metrics endpoint for every process.

Synchronisation is on what the processes print and what players' screens show, never on
sleeps.
"""

from __future__ import annotations

import asyncio
import json
import signal
import stat
import subprocess
from pathlib import Path

import asyncssh
from e2e_helpers import wait_text
from prometheus_client.parser import text_string_to_metric_families
from ptyterm import LOVELET
from redis_helpers import free_port, redis_server
from sshclient import SSHTerminal
from test_ops_process import LISTENING, ServerProcess, fast_env, said
from test_scaling_process import SIZE, core_process, frontend_process, wait_online

from server.bus.broker import BACKOFF_MAX
from server.bus.frontend import BACK, RESTARTING
from server.ops.gather import read_metrics

ROLES = {"supervisor", "core", "frontend"}
LOGINS = 16
"""Logins at most until both front-ends have one (all on one: a chance of 2**-15)."""


def records(lines: list[str], stream: str) -> list[dict]:
    """Every line as a JSON object; a line that is not one fails the test, named."""
    entries = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        assert isinstance(entry, dict), f"not a JSON object on {stream}: {line!r}"
        entries.append(entry)
    return entries


def front_ends_listening(server: ServerProcess, count: int) -> set[tuple[str, int]] | None:
    """The (front-end, pid) pairs that printed the listening line, once there are `count`."""
    said_listening = [json.loads(line) for line in server.stdout if "is listening on" in line]
    named = {(e["frontend"], e["pid"]) for e in said_listening if LISTENING.match(e["message"])}
    return named if len(named) >= count else None


async def test_json_logs_every_line_of_workers_names_its_process(tmp_path: Path) -> None:
    async with (
        redis_server() as redis,
        ServerProcess.run(fast_env(tmp_path), ["--workers", "2", "--broker", redis.url]) as server,
    ):
        _, port = await server.listening()
        await server.wait_for(lambda: front_ends_listening(server, 2), "both front-ends", 60)
        async with SSHTerminal.connect(port, username="ana", size=SIZE) as ana:
            await wait_online(ana, "ana")
        login = await server.event("login", name="ana")
        await server.event("disconnect", name="ana")
        await server.event("session detached", name="ana")
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(60) == 0
    out, err = records(server.stdout, "stdout"), records(server.stderr, "stderr")
    for entry in out + err:
        assert entry["role"] in ROLES and isinstance(entry["pid"], int), entry
    assert login["role"] == "frontend" and login["frontend"], login
    attached = [e for e in err if e["message"] == "session attached" and e["name"] == "ana"]
    assert attached and attached[0]["frontend"] == login["frontend"], "the core names it"
    assert front_ends_listening(server, 2), "each front-end says it is listening, named"
    assert any(e["role"] == "core" and "is running" in e["message"] for e in out)


async def test_text_logs_keep_the_banner_and_name_the_process(tmp_path: Path) -> None:
    env = {**fast_env(tmp_path), "LOVELET_LOG_FORMAT": "text"}
    async with ServerProcess.run(env) as server:
        await server.ready()
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(20) == 0
    assert LISTENING.match(server.stdout[0]) and said(server.stdout[0]) == server.stdout[0]
    assert server.stdout[1].startswith("host key fingerprint: SHA256:")
    started = next(line for line in server.stderr if "server started" in line)
    assert f"[all pid {server.process.pid}]" in started


def logins_by_process(text: str) -> dict[str, float]:
    """Guest logins counted by each front-end, from the one endpoint's text."""
    (family,) = (f for f in text_string_to_metric_families(text) if f.name == "lovelet_logins")
    return {
        s.labels["process"]: s.value
        for s in family.samples
        if s.name == "lovelet_logins_total"
        and s.labels["kind"] == "guest"
        and s.labels["role"] == "frontend"
    }


async def test_one_endpoint_serves_every_process_of_workers(tmp_path: Path) -> None:
    metrics_port = free_port()
    async with redis_server() as redis:
        args = ["--workers", "2", "--broker", redis.url]
        args += ["--metrics-listen", f"127.0.0.1:{metrics_port}"]
        async with ServerProcess.run(fast_env(tmp_path), args) as server:
            _, port = await server.listening()
            await server.wait_for(lambda: front_ends_listening(server, 2), "both front-ends", 60)
            seen: dict[str, float] = {}
            for n in range(LOGINS):  # the kernel spreads connections: log in until both have
                async with SSHTerminal.connect(port, username=f"p{n}", size=SIZE) as term:
                    await wait_online(term, f"p{n}")
                text = await read_metrics("127.0.0.1", metrics_port)
                assert text is not None
                seen = logins_by_process(text)
                if len(seen) == 2 and all(seen.values()):
                    break
            assert seen.keys() == {"frontend-1", "frontend-2"} and sum(seen.values()) == n + 1
            assert 'lovelet_process_up{process="core",role="core"} 1.0' in text
            assert 'lovelet_tables{process="core",role="core"}' in text
            assert 'process_resident_memory_bytes{process="supervisor",role="supervisor"}' in text
            server.process.send_signal(signal.SIGTERM)
            assert await server.exited(60) == 0


def admin(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`lovelet admin --data-dir DATA_DIR ARGS`, as an operator runs it."""
    command = [LOVELET, "admin", "--data-dir", str(data_dir), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


async def test_a_backup_taken_while_the_server_runs_is_private_and_restores(
    tmp_path: Path,
) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    copy, elsewhere = tmp_path / "lovelet-backup.db", tmp_path / "restored"
    async with ServerProcess.run(fast_env(tmp_path / "data")) as server:
        _, port = await server.ready()
        async with SSHTerminal.connect(port, username="ana", key=key, size=SIZE) as ana:
            await wait_online(ana, "ana")
            made = await asyncio.to_thread(admin, tmp_path / "data", "backup", str(copy))
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(20) == 0
    assert made.returncode == 0, made.stderr
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    restored = admin(elsewhere, "restore", str(copy))
    assert restored.returncode == 0, restored.stderr
    listed = admin(elsewhere, "players")
    assert key.get_fingerprint("sha256") in listed.stdout, listed.stdout
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o700


async def test_a_front_end_makes_its_data_directory_private(tmp_path: Path) -> None:
    shared = tmp_path / "frontend"
    shared.mkdir(mode=0o755)  # made by hand, to copy the host key in (docs/scaling.md)
    shared.chmod(0o755)
    async with (
        redis_server() as redis,
        core_process(tmp_path / "core", redis.url),
        frontend_process(shared, redis.url),
    ):
        assert stat.S_IMODE(shared.stat().st_mode) == 0o700
        assert stat.S_IMODE((tmp_path / "core").stat().st_mode) == 0o700


def attached_again(lines: list[str]) -> bool:
    """The front-end gave the core its session again (it logged in while none was)."""
    return any("attached 1 sessions" in line for line in lines)


def retries_at_most(lines: list[str]) -> int:
    """How many times the broker has retried at its longest backoff."""
    return sum(f"retrying in {BACKOFF_MAX:.1f} s" in line for line in lines)


async def test_a_redis_outage_longer_than_frontend_timeout_drops_no_session(
    tmp_path: Path,
) -> None:
    """Redis away for longer than `frontend_timeout` (3 s here): the core heard nobody
    meanwhile, so it counts no front-end as dead once Redis is back."""
    async with (
        redis_server() as redis,
        core_process(tmp_path, redis.url) as core,
        frontend_process(tmp_path, redis.url) as (_, port),
        SSHTerminal.connect(port, username="ana", size=SIZE) as ana,
    ):
        await wait_online(ana, "ana")
        await redis.kill()
        await wait_text(ana, RESTARTING[:40])
        # 0.1 + 0.2 + 0.4 + 0.8 + 1.6 + 2 + 2 s of retries: past the 3 s frontend_timeout
        await core.wait_line(
            core.stderr, lambda _: retries_at_most(core.stderr) >= 2, "an outage", 30
        )
        await redis.start()
        await wait_text(ana, BACK, timeout=20)
        await wait_online(ana, "ana")
        await core.wait_line(
            core.stderr, lambda _: attached_again(core.stderr), "the sessions re-attached", 20
        )
        assert not ana.closed
    assert not [line for line in core.stderr if "silent for" in line], core.output
