"""Game-level services below the store: what the store, the lobby and the SSH layer share.

It owns the bots' worker-process pool (`bot_pool`), the rating rule (`rating`), the engine's
view as the protocol's record (`views`), the catalogue of editions and bot levels
(`catalogue`), the sanitising of every client string (`sanitize`), which names look alike
(`lookalikes`), what per-address limits count as one address (`addresses`) and time
(`clock`: the `Clock` the lobby asks for, and the asyncio one it runs on). It imports the
engine, the bots and the protocol only: the layers contract in pyproject.toml puts it below
the store.
"""
