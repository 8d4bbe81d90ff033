"""The layering contracts and the style gates hold for the whole tree."""

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "lovelet_tui")
CONTRACTS = [
    contract["name"]
    for contract in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
]


def _run(
    *command: str, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env=env)


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    """`lint-imports` (the console script next to this Python) on the packages under `tree`."""
    script = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return _run(str(script), "--no-cache", cwd=tree, env=env)


def test_import_contracts_hold() -> None:
    result = lint_imports(ROOT)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in output
    for name in CONTRACTS:
        assert f"{name} KEPT" in output


ENGINE, BOTS, LAYERS = "The engine is pure", "The bots see only", "Layers:"
LOBBY = "The lobby knows no terminal"
INJECTED = {
    "server/engine/events.py": ("import asyncio", {ENGINE, BOTS}),
    "server/engine/game.py": ("from server.lobby import Lobby", {ENGINE, BOTS, LAYERS}),
    "server/bots/easy.py": ("from server.lobby import Lobby", {BOTS, LAYERS}),
    "lovelet_tui/narrate.py": ("import server.engine", {"The TUI knows no rules"}),
    "protocol/codec.py": ("import socket", {"The protocol does no I/O"}),
    "server/services/rating.py": ("from server.store import Store", {LAYERS}),
    "server/store/__init__.py": ("from server.lobby import Lobby", {LAYERS}),
    "server/store/recorder.py": ("from server.ops.logs import log_error", {LAYERS}),
    "server/lobby/lobby.py": ("import asyncssh", {"Only server.ssh imports asyncssh", LOBBY}),
    "server/lobby/codes.py": ("from server.ssh.limits import address_key", {LAYERS}),
    "server/lobby/chat.py": ("from server.commands import serve", {LAYERS, LOBBY}),
    "server/ops/config.py": ("from server.lobby import LobbySettings", {LAYERS}),
    "server/ops/metrics.py": ("from server.ssh.limits import SSHLimits", {LAYERS}),
}
"""file: (a forbidden import appended to it, the starts of the contracts it breaks: the bots
import the engine, so what the engine may not import, the bots may not either; one layers
contract catches every import of a part above the importer)."""


@pytest.mark.parametrize("path", sorted(INJECTED))
def test_the_contracts_fail_on_an_injected_forbidden_import(tmp_path: Path, path: str) -> None:
    """A copy of the tree with one forbidden import added: its contracts, only, are broken."""
    for package in PACKAGES:
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / package, tmp_path / package, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    line, contracts = INJECTED[path]
    with (tmp_path / path).open("a") as source:
        source.write(f"\n{line}  # injected by the test\n")
    result = lint_imports(tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    kept = len(CONTRACTS) - len(contracts)
    assert f"Contracts: {kept} kept, {len(contracts)} broken." in output, output
    broken = {name for name in CONTRACTS if f"{name} BROKEN" in output}
    assert {next(c for c in contracts if name.startswith(c)) for name in broken} == contracts
    assert line not in (ROOT / path).read_text(), "the copy was changed, not the tree"


CHOICE_CONVERTERS = re.compile(r"\bchoice_(?:to|from)_wire\b")


def test_one_module_converts_choices_between_engine_and_wire() -> None:
    """Only server/services/views.py turns an engine choice into the protocol's or back."""
    users = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "server").rglob("*.py")
        if CHOICE_CONVERTERS.search(path.read_text())
    }
    assert users == {"server/services/views.py"}


def test_ruff_check_is_clean() -> None:
    result = _run(sys.executable, "-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run(sys.executable, "-m", "ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
