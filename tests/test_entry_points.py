"""Every `lovelet` command a user types, run as the installed console script in its own process.

`play` draws a screen, so it runs on a pseudo-terminal read by pyte and is played by keys.
`serve` is also run as a process, over real SSH, by tests/test_ops_process.py; the `admin`
subcommands that change bans by tests/test_ops_limits.py.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_helpers import phase, read_panel, read_table_line, screen_text
from ptyterm import LOVELET, PtyTerminal, lovelet_lines

ROOT = Path(__file__).resolve().parent.parent
ROUND_TIMEOUT = 60.0
"""Seconds a whole round by keys may take (the app starts in a few seconds)."""
CONFIRM = "y: yes · any other key: no"
ROUND = re.compile(r"Round \d+: ")


# ---------------------------------------------------------------- lovelet play


@pytest.mark.parametrize("edition", ["2019", "classic"])
async def test_play_runs_in_a_terminal_and_a_round_is_played_by_keys(edition: str) -> None:
    rng = random.Random(11)
    command = [LOVELET, "play", "--edition", edition, "--players", "3", "--bots", "easy"]
    async with PtyTerminal.spawn([*command, "--bot-delay", "0"], size=(100, 30)) as term:
        # a round's headline (round 1's may have scrolled out of the log already: with bots
        # that act at once, a round where the player is knocked out early is over at once)
        await term.wait_for(
            lambda: ROUND.search(screen_text(term)) is not None, "the game", ROUND_TIMEOUT
        )
        decisions = await play_round(term, rng)
        assert decisions > 0, "the player decided at least once in the round"
        await term.send_keys("\x11")  # ctrl+q, in a running game: asks first
        await term.wait_for(lambda: "Quit lovelet?" in screen_text(term), "the confirmation")
        await term.send_keys("y")
        assert await term.exited() == 0, term.output
    restored = term.raw[term.raw.rindex(b"\x1b[?1049h") :]
    assert b"\x1b[?1049l" in restored, "the terminal's own screen came back"
    assert b"Traceback" not in term.raw, term.output


async def play_round(term: PtyTerminal, rng: random.Random) -> int:
    """Pick a random option at every decision until the summary of a round in which the player
    decided; the decisions made."""
    decisions = 0
    while True:
        await term.wait_for(
            lambda: phase(term) is not None or confirming(term), "a decision", ROUND_TIMEOUT
        )
        if confirming(term):  # playing the Princess by choice: yes
            await term.send_keys("y")
            await term.wait_for(lambda: not confirming(term), "the confirmation taken")
            continue
        if phase(term) == "over" or (phase(term) == "next" and decisions):
            return decisions
        if phase(term) == "next":  # knocked out before a turn: the next round, then
            await term.send_keys("n")
            await term.wait_for(lambda: phase(term) != "next", "the next round")
            continue
        panel, table_line = read_panel(term), read_table_line(term)
        assert panel is not None
        await term.send_keys(rng.choice(panel.options).key)
        decisions += 1
        await term.wait_for(
            lambda p=panel, t=table_line: read_panel(term) != p or read_table_line(term) != t,
            "the key taken",
        )


def confirming(term: PtyTerminal) -> bool:
    """The app asks to confirm what cannot be undone."""
    return CONFIRM in screen_text(term)


def test_play_refuses_a_player_count_the_edition_has_not() -> None:
    done = lovelet("play", "--edition", "classic", "--players", "5")
    assert done.returncode == 2 and not done.stdout
    [said] = lovelet_lines(done.stderr.splitlines())
    assert said.startswith("lovelet play: "), done.stderr


def test_play_refuses_a_negative_bot_delay() -> None:
    done = lovelet("play", "--bot-delay", "-1")
    assert done.returncode == 2
    assert "--bot-delay: must be between 0 and 30, got -1" in done.stderr


# ---------------------------------------------------------------- lovelet scenario, simulate


def test_scenario_runs_files_and_directories_and_fails_on_a_broken_one(tmp_path: Path) -> None:
    scenarios = ROOT / "tests" / "scenarios" / "classic"
    good = scenarios / "baron_player_lower_knocked_out.toml"
    broken = tmp_path / "broken.toml"
    broken.write_text(good.read_text().replace("eliminated = [0]", "eliminated = [1]"))
    passed = lovelet("scenario", str(scenarios))
    assert passed.returncode == 0, passed.stdout + passed.stderr
    lines = passed.stdout.splitlines()
    assert len(lines) == len(list(scenarios.glob("*.toml"))) > 10
    assert all(line.startswith("PASS ") for line in lines)
    failed = lovelet("scenario", str(good), str(broken))
    assert failed.returncode == 1
    assert failed.stdout.splitlines()[0] == f"PASS {good}"
    assert failed.stdout.splitlines()[1].startswith(f"FAIL {broken}: ")


def test_simulate_reports_games_rounds_and_win_shares_repeatably() -> None:
    args = ("simulate", "--edition", "classic", "--players", "3", "--games", "50", "--seed", "7")
    first, again = lovelet(*args), lovelet(*args)
    assert first.returncode == 0, first.stderr
    games, speed, shares = first.stdout.splitlines()
    assert games.startswith("50 games, ") and " rounds in " in games
    assert speed.endswith(" rounds/s")
    assert shares.startswith("win share per seat: 0: ") and shares.count("%") == 3
    assert again.stdout.splitlines()[2] == shares, "the same seed plays the same games"
    refused = lovelet("simulate", "--edition", "premium", "--players", "2")
    assert refused.returncode == 2
    assert lovelet_lines(refused.stderr.splitlines())[0].startswith("lovelet simulate: ")


# ---------------------------------------------------------------- lovelet config init, admin


def test_config_init_writes_a_commented_file_once_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    written = lovelet("config", "init", "--data-dir", str(tmp_path))
    assert (written.returncode, written.stdout) == (0, f"wrote {path}\n"), written.stderr
    text = path.read_text()
    assert text.startswith("# lovelet configuration (TOML).")
    assert all(
        line.startswith("#") or not line.strip() or line.startswith("[")
        for line in text.splitlines()
    ), "every key is commented out"
    path.write_text("# mine\n")
    again = lovelet("config", "init", "--data-dir", str(tmp_path))
    assert again.returncode == 1 and "already exists (use --force" in again.stderr
    assert path.read_text() == "# mine\n"
    forced = lovelet("config", "init", str(path), "--force")
    assert forced.returncode == 0 and path.read_text() == text


def test_admin_subcommands_ban_list_lift_and_set_the_motd(tmp_path: Path) -> None:
    def admin(*args: str) -> str:
        done = lovelet("admin", "--data-dir", str(tmp_path), *args)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    missing = lovelet("admin", "--data-dir", str(tmp_path), "players")
    assert missing.returncode == 1 and "no database at" in missing.stderr
    banned = admin("ban", "address", "10.0.0.0/8", "--for", "2d", "--reason", "flood")
    assert banned.startswith("Ban 1: address 10.0.0.0/8, until ")
    listed = admin("bans")
    assert "10.0.0.0/8" in listed and "flood" in listed
    assert admin("unban", "1").startswith("Lifted ban 1: address 10.0.0.0/8.")
    assert "10.0.0.0/8" not in admin("bans")
    assert "lifted " in admin("bans", "--all")
    assert admin("players") == "No keyed players yet.\n"
    assert admin("motd", "Tournament at 8") == "Message of the day set.\n"
    assert admin("motd") == "Tournament at 8\n"
    assert admin("motd", "--clear") == "Message of the day removed.\n"
    assert admin("motd") == "No message of the day.\n"


# ---------------------------------------------------------------- running the console script


def lovelet(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the `lovelet` console script with `args`; what it printed and its exit status."""
    return subprocess.run(
        [LOVELET, *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


# ---------------------------------------------------------------- python -m server.cli


BARE_PYTHON = [sys._base_executable, "-S"]  # type: ignore[attr-defined]
"""The interpreter this venv was made from, without site-packages: none of lovelet's
dependencies (a system `python3`)."""


def test_a_python_without_the_dependencies_goes_on_in_the_checkouts_venv() -> None:
    run = subprocess.run(
        [*BARE_PYTHON, "-m", "server.cli", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("usage: lovelet")


def test_without_a_venv_it_says_in_one_line_how_to_set_up(tmp_path: Path) -> None:
    for package in ("server", "protocol"):
        shutil.copytree(ROOT / package, tmp_path / package)
    run = subprocess.run(
        [*BARE_PYTHON, "-m", "server.cli", "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.returncode == 1
    assert run.stderr == (
        "lovelet: this Python has no platformdirs; set up with python3 -m venv .venv && "
        ".venv/bin/pip install -r requirements/serve.txt && .venv/bin/pip install --no-deps "
        "--no-build-isolation . (see README.md)\n"
    )
