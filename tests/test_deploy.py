"""deploy/: the systemd unit, the Containerfile and compose.yaml, checked statically."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from server.cli import build_parser
from server.ops.config import Config, split_host_port

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
UNIT = DEPLOY / "lovelet.service"
CONTAINERFILE = DEPLOY / "Containerfile"
COMPOSE = DEPLOY / "compose.yaml"


def seconds(text: str) -> float:
    """systemd / compose durations: '90', '90s', '1min 30s', '1m30s'."""
    units = {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)\s*([a-z]*)", text)
    assert parts, text
    return sum(float(n) * units[u] for n, u in parts)


# ----------------------------------------------------------------------------- systemd


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """section → key → every value (systemd keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"setting outside a section: {line}"
        key, sep, value = line.partition("=")
        assert sep, f"not KEY=VALUE: {line}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.fixture(scope="module")
def unit() -> dict[str, dict[str, list[str]]]:
    return parse_unit(UNIT.read_text())


def one(unit: dict[str, dict[str, list[str]]], key: str, section: str = "Service") -> str:
    values = unit[section].get(key)
    assert values and len(values) == 1, f"{key}: {values}"
    return values[0]


def test_unit_sections(unit: dict) -> None:
    assert set(unit) == {"Unit", "Service", "Install"}
    assert one(unit, "WantedBy", "Install") == "multi-user.target"
    assert "network-online.target" in one(unit, "After", "Unit")


def test_unit_runs_lovelet_serve_as_its_own_user(unit: dict) -> None:
    exec_start = one(unit, "ExecStart").split()
    assert exec_start == ["/usr/local/bin/lovelet", "serve"]
    assert build_parser().parse_args(exec_start[1:]).command == "serve"
    assert one(unit, "User") == "lovelet" or one(unit, "DynamicUser") == "yes"
    assert one(unit, "StateDirectory") == "lovelet"
    assert "LOVELET_DATA_DIR=/var/lib/lovelet" in unit["Service"]["Environment"]
    assert one(unit, "Restart") == "on-failure"


def test_unit_stops_with_sigterm_after_the_shutdown_grace(unit: dict) -> None:
    assert one(unit, "KillSignal") == "SIGTERM"
    assert seconds(one(unit, "TimeoutStopSec")) >= Config().shutdown_grace + 10


def test_unit_hardening(unit: dict) -> None:
    expected = {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "PrivateDevices": "yes",
        "ProtectKernelTunables": "yes",
        "ProtectKernelModules": "yes",
        "ProtectKernelLogs": "yes",
        "ProtectControlGroups": "yes",
        "MemoryDenyWriteExecute": "yes",
        "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
        "AmbientCapabilities": "CAP_NET_BIND_SERVICE",
        "CapabilityBoundingSet": "CAP_NET_BIND_SERVICE",
    }
    for key, value in expected.items():
        assert one(unit, key) == value, key
    assert unit["Service"]["SystemCallFilter"][0] == "@system-service"
    assert all(f.startswith("~") for f in unit["Service"]["SystemCallFilter"][1:])


def megabytes(text: str) -> float:
    """systemd sizes: '768M', '1G', '1073741824'."""
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", text).groups()  # type: ignore[union-attr]
    return float(number) * {"": 2**-20, "K": 2**-10, "M": 1, "G": 2**10, "T": 2**20}[unit]


def test_unit_caps_memory_above_a_full_server(unit: dict) -> None:
    full_server = 65 + 3 * Config().limits.max_connections  # MB: start + 3 MB per session
    assert full_server <= megabytes(one(unit, "MemoryHigh")) < megabytes(one(unit, "MemoryMax"))


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_analyze_verify_finds_nothing(tmp_path: Path) -> None:
    """`verify` with ExecStart pointed at an existing binary (lovelet is not installed there)."""
    text = UNIT.read_text().replace("ExecStart=/usr/local/bin/lovelet", "ExecStart=/bin/true")
    copy = tmp_path / "lovelet.service"
    copy.write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stderr.strip() and not done.stdout.strip(), (
        done.stdout + done.stderr
    )


# ----------------------------------------------------------------------------- Containerfile


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    kept = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    joined = re.sub(r"\\\n", " ", kept)
    found = []
    for line in joined.splitlines():
        if line.strip():
            word, _, rest = line.strip().partition(" ")
            found.append((word.upper(), " ".join(rest.split())))
    return found


@pytest.fixture(scope="module")
def containerfile() -> list[tuple[str, str]]:
    return instructions(CONTAINERFILE.read_text())


def args_of(steps: list[tuple[str, str]], word: str) -> list[str]:
    return [rest for name, rest in steps if name == word]


def test_containerfile_basics(containerfile: list[tuple[str, str]]) -> None:
    assert args_of(containerfile, "FROM") == ["python:3.11-slim"]  # the Python tested
    assert args_of(containerfile, "VOLUME") == ["/data"]
    assert args_of(containerfile, "EXPOSE") == ["2222 8080"]
    assert args_of(containerfile, "STOPSIGNAL") == ["SIGTERM"]
    assert json.loads(args_of(containerfile, "CMD")[-1]) == ["lovelet", "serve"]
    env = " ".join(args_of(containerfile, "ENV"))
    assert "LOVELET_DATA_DIR=/data" in env


def test_containerfile_installs_the_lock_then_lovelet_alone(
    containerfile: list[tuple[str, str]],
) -> None:
    """The image gets the versions the suite passed with, as the README's commands do."""
    runs = args_of(containerfile, "RUN")
    lock = runs.index("pip install -r requirements/serve.txt")
    project = next(i for i, run in enumerate(runs) if run.startswith("pip install --no-deps"))
    assert lock < project
    assert runs[project].startswith("pip install --no-deps --no-build-isolation . ")
    assert not [
        run for run in runs if "pip install" in run and run not in (runs[lock], runs[project])
    ]


def test_containerfile_runs_as_non_root(containerfile: list[tuple[str, str]]) -> None:
    users = args_of(containerfile, "USER")
    assert users and users[-1] not in ("root", "0")
    names = [name for name, _ in containerfile]
    assert names.index("USER") < names.index("CMD")
    assert any("useradd" in run and users[-1] in run for run in args_of(containerfile, "RUN"))


def test_containerfile_copies_every_package(containerfile: list[tuple[str, str]]) -> None:
    """Every COPY source exists, and every package pyproject installs is copied."""
    sources = set()
    for rest in args_of(containerfile, "COPY"):
        *from_paths, _dest = rest.split()
        for path in from_paths:
            assert (ROOT / path).exists(), path
            sources.add(path.rstrip("/"))
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "README.md" in sources and "pyproject.toml" in sources
    for pattern in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]:
        assert pattern.rstrip("*") in sources, pattern


def test_dockerignore_keeps_what_is_copied(containerfile: list[tuple[str, str]]) -> None:
    ignore = (DEPLOY / "Containerfile.dockerignore").read_text().split()
    for rest in args_of(containerfile, "COPY"):
        for path in rest.split()[:-1]:
            assert f"!{path.rstrip('/')}" in ignore or f"!{path.rstrip('/')}/" in ignore, path


# ----------------------------------------------------------------------------- compose


def test_compose_file() -> None:
    text = COMPOSE.read_text()
    try:
        import yaml
    except ImportError:  # no YAML parser installed: the same facts, as text
        assert re.search(r"^\s+- \"2222:2222\"", text, re.MULTILINE)
        assert re.search(r"^\s+- \"127.0.0.1:8080:8080\"", text, re.MULTILINE)
        assert re.search(r"^\s+LOVELET_WEB_LISTEN: \"0.0.0.0:8080\"$", text, re.MULTILINE)
        assert re.search(r"^\s+restart: unless-stopped$", text, re.MULTILINE)
        assert re.search(r"^\s+- lovelet-data:/data$", text, re.MULTILINE)
        assert re.search(r"^volumes:\n  lovelet-data:", text, re.MULTILINE)
        assert re.search(r"stop_grace_period: (\S+)", text)
        grace = re.search(r"stop_grace_period: (\S+)", text).group(1)  # type: ignore[union-attr]
    else:
        document = yaml.safe_load(text)
        service = document["services"]["lovelet"]
        assert service["ports"] == ["2222:2222", "127.0.0.1:8080:8080"]
        web = split_host_port(service["environment"]["LOVELET_WEB_LISTEN"])
        assert web == ("0.0.0.0", 8080)  # inside the container; published on loopback
        assert service["restart"] == "unless-stopped"
        assert "lovelet-data:/data" in service["volumes"]
        assert "lovelet-data" in document["volumes"]
        assert service["build"]["dockerfile"] == "deploy/Containerfile"
        assert (COMPOSE.parent / service["build"]["context"]).resolve() == ROOT
        assert all(name.startswith("LOVELET_") for name in service.get("environment", {}))
        metrics = service["environment"].get("LOVELET_METRICS_LISTEN")
        if metrics:
            port = split_host_port(metrics)[1]
            assert f":{port}/health" in " ".join(service["healthcheck"]["test"])
        grace = service["stop_grace_period"]
    assert "22:2222" in text  # the comment on serving port 22
    assert seconds(grace) >= Config().shutdown_grace + 10


def test_compose_environment_is_valid_config(tmp_path: Path) -> None:
    """The LOVELET_* values set in compose.yaml are accepted by load_config."""
    from server.ops.config import load_config

    pairs = re.findall(r"^\s+(LOVELET_[A-Z_]+): \"?([^\"\n]*)\"?$", COMPOSE.read_text(), re.M)
    assert pairs
    environ = {"LOVELET_DATA_DIR": str(tmp_path), **dict(pairs)}
    load_config({}, environ, None)


# ----------------------------------------------------------------------------- every unit

UNITS = [UNIT, DEPLOY / "lovelet-core.service", DEPLOY / "lovelet-frontend@.service"]
ROLES = {"lovelet.service": "all", "lovelet-core.service": "core"}


def unit_of(path: Path) -> dict[str, dict[str, list[str]]]:
    """The unit, with a template's instance name (`%i`) as 1."""
    return parse_unit(path.read_text().replace("%i", "1"))


def unit_environment(unit: dict[str, dict[str, list[str]]]) -> dict[str, str]:
    return dict(value.split("=", 1) for value in unit["Service"].get("Environment", []))


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_each_units_command_is_one_the_real_cli_runs(path: Path) -> None:
    """ExecStart parses with the real CLI, and its flags with the unit's environment make a
    configuration `lovelet serve` accepts, in the role the unit's name says."""
    from server.cli import _role_problem
    from server.ops.config import flags_from_args, load_config

    unit = unit_of(path)
    exec_start = one(unit, "ExecStart").split()
    assert exec_start[0] == "/usr/local/bin/lovelet"
    args = build_parser().parse_args(exec_start[1:])
    assert args.command == "serve"
    config = load_config(flags_from_args(args), unit_environment(unit), None)
    assert _role_problem(config) is None
    assert config.role == ROLES.get(path.name, "frontend")
    assert str(config.data_dir) == one(unit, "WorkingDirectory")
    assert one(unit, "StateDirectory") == Path(one(unit, "WorkingDirectory")).name


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_each_unit_does_not_restart_on_what_a_restart_cannot_cure(path: Path) -> None:
    from server.ops.exits import FAILED, INCURABLE

    unit = unit_of(path)
    assert one(unit, "Restart") == "on-failure"
    prevented = {int(status) for status in one(unit, "RestartPreventExitStatus").split()}
    assert prevented == set(INCURABLE) and FAILED not in prevented


@pytest.mark.parametrize("path", UNITS, ids=lambda p: p.name)
def test_each_unit_stops_with_sigterm_and_caps_its_memory(path: Path) -> None:
    unit = unit_of(path)
    assert one(unit, "KillSignal") == "SIGTERM"
    waits_for_rounds = ROLES.get(path.name) is not None  # a front-end keeps no round
    least = Config().shutdown_grace + 10 if waits_for_rounds else 10
    assert seconds(one(unit, "TimeoutStopSec")) >= least
    assert megabytes(one(unit, "MemoryHigh")) < megabytes(one(unit, "MemoryMax"))
    assert one(unit, "UMask") == "0077" and one(unit, "StateDirectoryMode") == "0700"


def test_no_deploy_file_says_sigterm_waits_for_rounds() -> None:
    """SIGTERM keeps tables for the next start and stops at once (docs/self-hosting.md,
    Restarts); only a round that could not be stored waits."""
    for path in [*UNITS, CONTAINERFILE, COMPOSE]:
        text = " ".join(path.read_text().split())
        assert "lets running rounds finish" not in text, path.name
        assert "SIGTERM stops" in text, path.name


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
@pytest.mark.parametrize("path", UNITS[1:], ids=lambda p: p.name)
def test_systemd_analyze_verify_finds_nothing_in_the_role_units(path: Path, tmp_path: Path) -> None:
    text = path.read_text().replace("ExecStart=/usr/local/bin/lovelet", "ExecStart=/bin/true")
    copy = tmp_path / path.name.replace("@.", "@1.")
    copy.write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and not done.stderr.strip(), done.stdout + done.stderr


# ----------------------------------------------------------------------------- health check


def healthcheck_command(containerfile: list[tuple[str, str]]) -> list[str]:
    """The HEALTHCHECK's CMD, in its exec form."""
    (check,) = args_of(containerfile, "HEALTHCHECK")
    _, _, command = check.partition("CMD ")
    return json.loads(command)


def test_the_compose_health_check_is_the_images(containerfile: list[tuple[str, str]]) -> None:
    command = healthcheck_command(containerfile)
    assert command[0] == "python" and "curl" not in command  # python:3.11-slim has no curl
    written = re.findall(r"^\s+test: (\[.*\])$", COMPOSE.read_text(), re.MULTILINE)
    assert ["CMD", *command] in [json.loads(test) for test in written]


async def test_the_health_check_passes_while_the_server_runs_and_fails_after(
    containerfile: list[tuple[str, str]], tmp_path: Path
) -> None:
    """The image's HEALTHCHECK command, run as the container runs it, against a real
    `lovelet serve` on the data directory it names."""
    import asyncio
    import signal
    import sys

    from test_ops_process import ServerProcess, fast_env

    command = healthcheck_command(containerfile)
    assert command[-1] == "/data"
    check = [sys.executable, *command[1:-1], str(tmp_path)]

    def healthy() -> int:
        return subprocess.run(check, capture_output=True, timeout=30, cwd=tmp_path).returncode

    assert await asyncio.to_thread(healthy) != 0, "nothing runs yet"
    async with ServerProcess.run(fast_env(tmp_path)) as server:
        await server.ready()
        assert await asyncio.to_thread(healthy) == 0
        server.process.send_signal(signal.SIGTERM)
        assert await server.exited(20) == 0
    assert await asyncio.to_thread(healthy) != 0
