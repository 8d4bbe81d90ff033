"""The app's one way out: a link that carries encoded client frames to the server side."""

from __future__ import annotations

from typing import Protocol


class Link(Protocol):
    """Where the app sends frames; the server side answers through `LoveletApp.deliver`."""

    def send(self, frame: bytes) -> None:
        """Carry one encoded client message."""
        ...

    def close(self) -> None:
        """The app is done with the link (it is quitting)."""
        ...
