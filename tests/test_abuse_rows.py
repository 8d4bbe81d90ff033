"""benchmarks/abuse.py measures what it says: its env row reaches a live session's channel
requests, and a row whose attack is not delivered fails the run.

Each row runs as the benchmark runs it: a real `lovelet serve` process, the reference player
and the probe logging in over SSH, the attack from 127.0.0.3.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def abuse(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return importlib.import_module("abuse")


async def test_the_env_row_floods_a_live_session_until_the_server_cuts_it_off(
    abuse: ModuleType, tmp_path: Path
) -> None:
    (env,) = [attack for attack in abuse.ATTACKS if attack.name == "env"]
    row = await abuse.run_attack(env, 5.0, tmp_path)
    assert row.failure is None, row.verdict
    answered = re.match(r"(\d+) of 10,000 requests of 30 KB answered", row.verdict)
    assert answered is not None and int(answered[1]) >= 1, row.verdict
    assert "then cut off, told why" in row.verdict


async def test_a_row_whose_attack_is_not_delivered_fails_the_run(
    abuse: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def env_before_the_pty(server: Any, duration: float) -> str:
        """The env flood sent while opening the session: the server's cut-off at its limit
        leaves no session, and the login fails."""
        env = {f"X{i:05d}": "v" * 100 for i in range(1000)}
        term = await abuse.login(server.port, "envy", "127.0.0.3", env=env)
        term.close()
        return "a session under attack"

    undelivered = abuse.Attack("env-early", "env requests before the PTY", env_before_the_pty)
    monkeypatch.setattr(abuse, "ATTACKS", (undelivered,))
    failed = await abuse.run(abuse.argparse.Namespace(only=[], duration=2.0))
    out = capsys.readouterr().out
    assert failed == ["env-early"]
    assert "  FAIL: attack failed: ChannelOpenError: PTY request failed" in out
    assert "FAIL: 1 of 1 rows measured nothing: env-early" in out
