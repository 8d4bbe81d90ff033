"""The README's commands are the ones CI runs, and each way of starting the tests finds them.

The README's commands themselves (a new virtual environment, an install) take a minute and the
network: they are run by `.ci/run` on a fresh machine, not here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
CI = (ROOT / ".ci" / "run").read_text()


def readme_command(after: str) -> str:
    """The one-line `sh` block that follows the README line `after`."""
    match = re.search(re.escape(after) + r"\n\n```sh\n(.+)\n```\n", README)
    assert match is not None, f"no command block after {after!r} in README.md"
    return match[1]


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    command = readme_command("Run the tests:")
    assert CI.rstrip("\n").splitlines()[-1] == command
    assert CI.count(command) == 1


def test_both_readme_commands_install_the_lock_into_a_new_virtual_environment() -> None:
    """Debian's and Ubuntu's python3 refuse `pip install` outside one (PEP 668); the lock's
    exact versions go in first, then lovelet itself with nothing more (`--no-deps`), built
    with the locked setuptools (`--no-build-isolation`)."""
    serve = readme_command("`--data-dir` / `LOVELET_DATA_DIR`):")
    test = readme_command("Run the tests:")
    for command, lock, project in ((serve, "serve", "."), (test, "test", "-e .")):
        venv, dependencies, install, run = command.split(" && ")
        assert venv == "python3 -m venv .venv"
        assert dependencies == f".venv/bin/pip install -r requirements/{lock}.txt"
        assert install == f".venv/bin/pip install --no-deps --no-build-isolation {project}"
        assert run.startswith(".venv/bin/")
    assert serve.endswith(" && .venv/bin/lovelet serve")


def test_bare_pytest_from_the_checkout_imports_the_tests_package() -> None:
    """`pytest` (not `python -m pytest`) does not put the checkout on sys.path by itself."""
    pytest = Path(sys.executable).with_name("pytest")
    done = subprocess.run(
        [str(pytest), "--collect-only", "tests/test_lobby.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tests/test_lobby.py::" in done.stdout
