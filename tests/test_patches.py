"""The patches of Textual's, Rich's and asyncssh's internals are optional and fail-safe.

`render_patches` chooses them; a library at a version they were not verified with runs as
released, with one warning naming it. The SSH end-to-end tests (tests/test_e2e_ssh.py) run
with every patch and with none.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from sshclient import SSHTerminal
from test_ops_process import ServerProcess, fast_env
from textual.cache import LRUCache
from textual.strip import Strip

from lovelet_tui import compat as tui_compat
from server.ops.config import RENDER_PATCHES, load_config
from server.render import strips
from server.ssh import compat, hooks

INSTALLED = {library: versions[0] for library, versions in compat.VERIFIED.items()}
LIBRARY_CODE = {  # a patched method of each library, as the library defines it
    "textual": (
        (Strip, "divide", strips._divide),
        (LRUCache, "clear", compat._lru_clear),
    ),
}


@pytest.fixture(autouse=True)
def patches_as_they_were() -> Iterator[None]:
    """Each test leaves the process with the patches it found."""
    was = compat.patches_installed()
    yield
    compat.install_patches(was, INSTALLED)


def libraries_own(library: str) -> bool:
    """Whether the library's patched methods are its own code now."""
    return all(owner.__dict__[name] is code for owner, name, code in LIBRARY_CODE[library])


def test_the_setting_names_every_patch() -> None:
    assert RENDER_PATCHES == compat.PATCH_NAMES


def test_every_patch_goes_in_and_comes_out() -> None:
    compat.uninstall_patches()
    assert libraries_own("textual")
    assert compat.install_patches(RENDER_PATCHES, INSTALLED) == RENDER_PATCHES
    assert not libraries_own("textual") and hooks.SKIP_NEEDLESS_IGNORES.on
    assert tui_compat.in_use("repaint_rows") and tui_compat.in_use("shared_stylesheet")
    assert compat.install_patches((), INSTALLED) == ()
    assert libraries_own("textual")
    assert not tui_compat.in_use("repaint_rows") and not hooks.SKIP_NEEDLESS_IGNORES.on


def test_some_patches_only(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "server.ssh.compat")
    assert compat.install_patches(("cbc_countermeasure", "strips"), INSTALLED) == (
        "strips",
        "cbc_countermeasure",
    )
    assert Strip.__dict__["divide"] is not strips._divide and hooks.SKIP_NEEDLESS_IGNORES.on
    assert LRUCache.__dict__["clear"] is compat._lru_clear
    assert "render patches on: strips, cbc_countermeasure; off: chops," in caplog.text


def test_an_unverified_library_runs_as_released_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "server.ssh.compat")
    newer = {**INSTALLED, "textual": "99.0.0"}
    in_force = compat.install_patches(RENDER_PATCHES, newer)
    assert in_force == ("cbc_countermeasure",)
    assert libraries_own("textual")
    assert not tui_compat.in_use("shared_stylesheet")
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert (
        warnings[0]
        .getMessage()
        .startswith(
            "textual 99.0.0 is not a version lovelet's patches were verified with (8.2.8): "
            "running without strips, chops,"
        )
    )


def test_off_and_lists_read_from_the_environment() -> None:
    config = load_config(flags={}, environ={"LOVELET_RENDER_PATCHES": "off"}, config_path=None)
    assert config.render_patches == ()
    environ = {"LOVELET_RENDER_PATCHES": "chops, strips", "LOVELET_PACED_COLLECTOR": "off"}
    config = load_config(flags={}, environ=environ, config_path=None)
    assert config.render_patches == ("strips", "chops")
    assert config.paced_collector == "off"


async def test_a_server_on_an_unverified_textual_warns_and_serves(tmp_path: Path) -> None:
    """A real `lovelet serve` that finds Textual 99.0.0 installed (a fake distribution ahead
    of the real one on its path) says so once, runs without the Textual patches, and a
    player plays."""
    fake = tmp_path / "site"
    info = fake / "textual-99.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: textual\nVersion: 99.0.0\n")
    env = {**fast_env(tmp_path / "data"), "PYTHONPATH": str(fake)}
    async with ServerProcess.run(env) as server:
        _, port = await server.ready()
        await server.event(
            "render patches on: cbc_countermeasure; off: strips, chops, lru_clear, "
            "inner_outer, repaint_rows, shared_stylesheet"
        )
        warned = [line for line in server.stderr if "textual 99.0.0" in line]
        assert len(warned) == 1 and '"level":"warning"' in warned[0], server.output
        async with SSHTerminal.connect(port, username="ana") as ana:
            await ana.wait_for_text("signed in as")
