"""`python -m server.cli` in a checkout, run by a Python that lacks lovelet's dependencies (a
system `python3`): go on in the checkout's own `.venv`, which the README's commands make, or
say in one line how to make it. Imports nothing but the standard library."""

from __future__ import annotations

import os
import sys
from importlib.util import find_spec
from pathlib import Path

VENV_PYTHON = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "python"
"""The interpreter of the checkout's virtual environment."""
IMPORTED = ("platformdirs", "msgpack", "textual", "asyncssh")
"""Third-party packages the command line imports before any subcommand runs."""
NOT_SET_UP = (
    "lovelet: this Python has no {missing}; set up with "
    "python3 -m venv .venv && .venv/bin/pip install -r requirements/serve.txt && "
    ".venv/bin/pip install --no-deps --no-build-isolation . (see README.md)"
)


def go_on_in_checkout_venv() -> None:
    """Return if the dependencies are importable; else re-run this command in the checkout's
    `.venv`, or exit with how to set it up."""
    missing = next((name for name in IMPORTED if find_spec(name) is None), None)
    if missing is None:
        return
    if VENV_PYTHON.exists() and Path(sys.executable).absolute() != VENV_PYTHON:
        os.execv(VENV_PYTHON, [str(VENV_PYTHON), "-m", "server.cli", *sys.argv[1:]])
    sys.exit(NOT_SET_UP.format(missing=missing))
