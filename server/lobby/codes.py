"""Codes typed by hand (a table's, a guest's rejoin code): an unknown one is a try, on a budget
of the guesser's own (a key, or a guest's name at its address)."""

from __future__ import annotations

import math
from collections.abc import Callable

from protocol import RejoinSeat
from protocol.registry import MAX_CODE

from ..services.addresses import address_key
from ..services.clock import Clock
from ..services.sanitize import clean_text
from .board import Board
from .errors import TableError
from .limits import TryBudget
from .session import Identity, Session
from .table import Table


def no_table(code: str) -> str:
    """The refusal for a code no open table has (that table may have closed)."""
    return f"No open table has the code {clean_text(code, MAX_CODE)}: here is the lobby."


def try_keys(identity: Identity) -> list[str]:
    """Whose budget a try of a code spends: the guesser's own, so that nobody else behind
    the same address (a NAT) is refused for it. A key's, wherever it comes from; a guest's
    name's at its address (an IPv6 address's /64 network): signing in again under the same
    name keeps the count."""
    if not identity.guest:
        return [f"key:{identity.id}"]
    where = address_key(identity.address) if identity.address else ""
    return [f"guest:{identity.name.casefold()}@{where}"]


class CodeDoor:
    """Finds the table or held seat a typed code names, spending tries on unknown ones."""

    def __init__(
        self, board: Board, clock: Clock, tries: TryBudget, is_admin: Callable[[Identity], bool]
    ) -> None:
        self.board = board
        self.clock = clock
        self.code_tries = tries
        self.is_admin = is_admin

    def rejoin_seat(self, session: Session, message: RejoinSeat) -> None:
        """A guest's rejoin code: a wrong one is a try on the same budget as table codes."""
        keys, now = try_keys(session.identity), self.clock.now()
        self._refuse_without_tries(keys, now)
        for table in list(self.board.tables.values()):
            table.submit(session, message)
            if session.table is not None:
                return
        self.code_tries.spend(keys, now)
        raise TableError("no_such_seat_code", "no seat is held with that code")

    def find(self, session: Session, code: str) -> Table:
        """The table with `code`. A code not in the lobby list is a try: unknown codes spend
        the guesser's budget, and with none left its every try is refused until one comes
        back. The lobby list's codes and administrators are not counted."""
        table = self.board.get(code)
        listed = table is not None and not table.private
        if listed or self.is_admin(session.identity):
            if table is None:
                raise TableError("no_such_table", no_table(code))
            return table
        keys, now = try_keys(session.identity), self.clock.now()
        self._refuse_without_tries(keys, now)
        if table is None:
            self.code_tries.spend(keys, now)
            raise TableError("no_such_table", no_table(code))
        return table

    def _refuse_without_tries(self, keys: list[str], now: float) -> None:
        """Refuse any code (table or rejoin) while these budgets have no tries left."""
        wait = self.code_tries.wait(keys, now)
        if wait > 0:
            raise TableError(
                "too_many_tries",
                f"Too many tries of codes: wait {math.ceil(round(wait, 3))} s.",
            )
