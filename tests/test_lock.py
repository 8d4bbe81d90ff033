"""The lock (requirements/*.txt, made by `.ci/lock`) agrees with pyproject.toml and with itself.

Every package is pinned to one version with hashes; every dependency pyproject.toml names is
locked at a version its range allows (a range changed without refreshing the lock fails here);
the server's lock is the test lock's versions, so the server runs what the suite passed with.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from server.ssh.compat import VERIFIED

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ("serve", "test", "compile")
PIN = re.compile(r"^([A-Za-z0-9._-]+)==(\S+?)(?: ;.*)? \\$")


def locked(name: str) -> dict[str, str]:
    """requirements/NAME.txt as {package: version}; each entry checked to carry hashes."""
    lines = (ROOT / "requirements" / f"{name}.txt").read_text().splitlines()
    versions: dict[str, str] = {}
    for number, line in enumerate(lines):
        if not line or line[0] in " #":
            continue
        match = PIN.match(line)
        assert match, f"requirements/{name}.txt: not an exact pin: {line!r}"
        assert lines[number + 1].strip().startswith("--hash=sha256:"), line
        versions[canonicalize_name(match[1])] = match[2]
    return versions


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


@pytest.mark.parametrize(
    ("lock", "extras"), [("serve", ()), ("test", ("test",)), ("compile", ("test",))]
)
def test_every_dependency_is_locked_within_its_range(lock: str, extras: tuple[str, ...]) -> None:
    versions = locked(lock)
    wanted = [Requirement(r) for r in project()["dependencies"]]
    wanted += [
        Requirement(r) for extra in extras for r in project()["optional-dependencies"][extra]
    ]
    for requirement in wanted:
        version = versions.get(canonicalize_name(requirement.name))
        assert version is not None, f"{requirement.name} is not in requirements/{lock}.txt"
        assert requirement.specifier.contains(version, prereleases=True), (
            f"requirements/{lock}.txt has {requirement.name} {version}, outside "
            f"pyproject.toml's {requirement.specifier}: run bash .ci/lock"
        )


def test_the_build_backend_is_locked_within_the_build_systems_range() -> None:
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    for lock in LOCKS:
        versions = locked(lock)
        for requirement in map(Requirement, build):
            assert requirement.specifier.contains(versions[canonicalize_name(requirement.name)])


@pytest.mark.parametrize("lock", ["serve", "compile"])
def test_the_other_locks_take_the_test_locks_versions(lock: str) -> None:
    tested = locked("test")
    differ = {
        name: (version, tested[name])
        for name, version in locked(lock).items()
        if name in tested and tested[name] != version
    }
    assert differ == {}
    if lock == "serve":
        assert set(locked("serve")) <= set(tested)


def test_the_locked_libraries_are_those_the_patches_were_verified_with() -> None:
    """CI installs the lock: on it, every patch of a library's internals is in force (a new
    Textual, Rich or asyncssh in the lock means verifying the patches with it first)."""
    test_lock = locked("test")
    unverified = {
        lib: test_lock[lib] for lib, known in VERIFIED.items() if test_lock[lib] not in known
    }
    assert unverified == {}
