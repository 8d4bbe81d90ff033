"""docs/configuration.md and docs/self-hosting.md stay in step with server/ops/config.py."""

from __future__ import annotations

from pathlib import Path

from server.ops.config import SETTINGS, configuration_reference

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_configuration_md_holds_the_generated_reference() -> None:
    text = (DOCS / "configuration.md").read_text()
    assert configuration_reference() in text, (
        "regenerate the table in docs/configuration.md from "
        "server.ops.config.configuration_reference()"
    )


def test_configuration_md_names_every_key_variable_and_flag() -> None:
    text = (DOCS / "configuration.md").read_text()
    for setting in SETTINGS:
        for name in (setting.key, setting.env, setting.flag):
            assert f"`{name}`" in text, name


def test_self_hosting_covers_the_operations_topics() -> None:
    text = (DOCS / "self-hosting.md").read_text()
    for needle in (
        "lovelet serve",
        "pip",
        "LOVELET_DATA_DIR",
        "config.toml",
        "configuration.md",
        "CAP_NET_BIND_SERVICE",
        "sshd_config",
        "ssh-keygen -lf",
        "admin backup",
        "WAL",
        "migrat",
        "deploy/lovelet.service",
        "deploy/Containerfile",
        "deploy/compose.yaml",
        "/metrics",
        "/health",
        "lovelet admin",
        "admins",
        "limits.per_address",
        "shutdown_grace",
    ):
        assert needle in text, needle
