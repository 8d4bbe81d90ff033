"""Operations: what a self-hoster configures, reads and runs beside the game.

It owns the configuration (`config`: defaults < TOML < LOVELET_* < flags), logging (`logs`),
Prometheus metrics and health (`metrics`), the `lovelet admin` command (`admin`) and
the running server's control socket it announces through (`control`).
The lobby and the SSH layer log and count through it and take their settings' defaults from
`config.DEFAULTS`; their settings types build themselves from a `Config` (`from_config`). So
it may import the store, `server.services` and the protocol; never the lobby, SSH, the bus or
`server.commands`, which build on it (import-linter contracts in pyproject.toml hold this).
"""
