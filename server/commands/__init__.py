"""What each subcommand of the `lovelet` command (`server/cli.py`) runs.

It owns `serve` (lobby behind the SSH server), `cluster` (the same in parts joined by Redis),
`local` and `local_replay` (the app in your own terminal), `simulate`, `scenarios`, the
`wire_events` generator of protocol/events.py, `glue`, which binds one app to the lobby, and
`policy`, which binds the store to SSH's gatekeeper (bans, reserved names, sessions per key).
It is the top layer: it may import every other part of the server; nothing else in the
server imports it (an import-linter contract in pyproject.toml holds this).
"""
