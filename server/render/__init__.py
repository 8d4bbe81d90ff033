"""What a server holding hundreds of Textual apps does to keep rendering cheap.

It owns the patches that cut Textual's per-frame costs (`strips`: strips that reference
counting frees; `chops`: a partial update renders only the lines it repaints) and the paced
garbage collector (`collector`). `server.ssh.compat` installs the patches; `lovelet serve`
starts the collector. It may import Textual, Rich and the standard library only: nothing of
the game, the lobby, SSH or the protocol (an import-linter contract in pyproject.toml holds
this).
"""
