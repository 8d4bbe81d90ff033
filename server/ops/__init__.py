"""Operations: what a self-hoster configures, reads and runs beside the game.

It owns the configuration (`config`: defaults < TOML < LOVELET_* < flags), logging (`logs`),
Prometheus metrics and health (`metrics`), the admission policy from the store (`policy`) and
the offline `lovelet admin` command (`admin`). It may import the store, the lobby's and SSH's
settings types, SSH's gatekeeper and `server.services`; never `server.commands`, which builds
on it.
"""
