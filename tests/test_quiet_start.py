"""No `lovelet` command prints a library's warning to its user.

Each command runs as the installed console script in a fresh interpreter (a library warns as it
is imported, once a process), and its stderr holds no `...Warning` line: a dependency release
once made every command print five of asyncssh's. lovelet's own warnings still show.
"""

from __future__ import annotations

import re
import signal
import subprocess
import warnings
from pathlib import Path

import pytest
from cryptography.utils import CryptographyDeprecationWarning
from e2e_helpers import screen_text
from ptyterm import LOVELET, PtyTerminal
from test_ops_process import START_TIMEOUT, ServerProcess, environment, fast_env

from server.commands.quiet import quiet_library_warnings

ROOT = Path(__file__).resolve().parent.parent
WARNING_LINE = re.compile(r"\b\w*Warning\b")
"""What Python's warning display prints: `file:line: CategoryWarning: message`."""
SCENARIO = ROOT / "tests" / "scenarios" / "classic" / "baron_player_lower_knocked_out.toml"


def warning_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if WARNING_LINE.search(line)]


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("serve", "--help"),
        ("admin", "--help"),
        ("admin", "bans"),
        ("config", "init"),
        ("scenario", str(SCENARIO)),
        ("simulate", "--games", "1"),
        ("replay", "1"),
        ("play", "--players", "9"),
    ],
    ids=" ".join,
)
def test_a_command_prints_no_library_warning(tmp_path: Path, args: tuple[str, ...]) -> None:
    env = environment({"LOVELET_DATA_DIR": str(tmp_path), "LOVELET_CONFIG": str(tmp_path / "c")})
    done = subprocess.run(
        [LOVELET, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert warning_lines(done.stderr) == [], done.stderr


async def test_serve_prints_no_library_warning(tmp_path: Path) -> None:
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        await server.ready()
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(START_TIMEOUT) == 0
    assert warning_lines("\n".join(server.stderr + server.stdout)) == [], server.output


async def test_play_prints_no_library_warning_before_or_after_the_game() -> None:
    command = [LOVELET, "play", "--players", "2", "--bots", "easy", "--bot-delay", "0"]
    async with PtyTerminal.spawn(command, size=(100, 30)) as term:
        await term.wait_for(lambda: "Round 1" in screen_text(term), "the game")
        await term.send_keys("\x11")  # ctrl+q, in a running game: asks first
        await term.wait_for(lambda: "Quit lovelet?" in screen_text(term), "the confirmation")
        await term.send_keys("y")
        assert await term.exited() == 0, term.output
    raw = bytes(term.raw)
    outside_the_app = raw[: raw.index(b"\x1b[?1049h")] + raw[raw.rindex(b"\x1b[?1049l") :]
    assert warning_lines(outside_the_app.decode(errors="replace")) == [], term.output


def test_only_the_known_warnings_from_their_own_modules_are_filtered() -> None:
    """The filter is narrow: the same category from another module, and lovelet's own
    warnings, still show."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet_library_warnings()
        for module in ("asyncssh.crypto.misc", "asyncssh.crypto.dsa", "asyncssh.connection"):
            warn("DSA is deprecated", CryptographyDeprecationWarning, module)
        warn("lovelet's own", DeprecationWarning, "server.ssh.keys")
        warn("lovelet's own", UserWarning, "asyncssh.crypto.misc")
    shown = [(str(w.message), w.category) for w in caught]
    assert shown == [
        ("DSA is deprecated", CryptographyDeprecationWarning),  # from asyncssh.connection
        ("lovelet's own", DeprecationWarning),
        ("lovelet's own", UserWarning),
    ]


def warn(message: str, category: type[Warning], module: str) -> None:
    warnings.warn_explicit(message, category, f"{module.replace('.', '/')}.py", 1, module=module)
