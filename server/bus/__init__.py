"""The seam between SSH front-ends and the game core when they run as separate processes.

`lovelet serve` alone needs none of this: its sessions attach to the in-process `Lobby`.
With a broker (Redis), each front-end's sessions attach to a `FrontEnd` instead, which has
the lobby's `attach` and the gatekeeper's `admit`, and carries the same frames through Redis
to the one `CoreHost`, which attaches them to the real lobby. Neither the lobby and its
tables nor the apps can tell the difference. `web_logins` keeps the browsers' web logins in
the same Redis, for every front-end. docs/scaling.md describes the whole design.
"""
