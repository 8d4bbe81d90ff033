"""Game-level services that the lobby, the store and the SSH layer use.

It owns the bots' worker-process pool (`bot_pool`), the rating rule (`rating`), rebuilding a
stored game (`replay`), the engine's view as the protocol's record (`views`), the catalogue
of editions and bot levels (`catalogue`), the sanitising of every client string (`sanitize`),
which names look alike (`lookalikes`), what per-address limits count as one address
(`addresses`) and the asyncio clock the lobby runs on (`clock`). It may import the engine, the
bots, the store and the lobby's `Clock` interface (`server.lobby.clock`); never the rest of the
lobby, SSH, the bus, operations, the render patches or the entry points (import-linter
contracts in pyproject.toml hold this).
"""
