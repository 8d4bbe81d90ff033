"""A table's one output, as the lobby receives it."""

from __future__ import annotations

from typing import Protocol

from protocol import Message, TableSummary

from .seating import Member


class TableOutput(Protocol):
    """Where a table's output goes (the lobby's `Board`)."""

    def send(self, member: Member, message: Message) -> None:
        """A message for one member."""

    def placed(self, member: Member, code: str | None) -> None:
        """`member` is now at table `code`, or at none (it left, or the table closed)."""

    def listed(self, code: str, summary: TableSummary | None) -> None:
        """How the lobby list shows table `code` now; None once it is closed."""

    def replaced(self, member: Member) -> None:
        """Another session of the same player took `member`'s seat: end `member`."""
