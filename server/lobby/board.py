"""The lobby's side of its tables: which are open, how the list shows them, and what they say."""

from __future__ import annotations

import random
import secrets
import string
from collections.abc import Callable
from dataclasses import replace

from protocol import AddBot, CreateTable, Message, TableSummary

from ..bots import LEVELS
from ..engine import find_edition
from ..ops.metrics import GAME_STATUSES
from ..services.sanitize import clean_text
from . import tutorial
from .errors import TableError
from .hints import HintRule
from .runner import Deps, TableSettings
from .seating import Member, require_level
from .session import Session
from .table import Close, Host, Table, Tutor

CODE_ALPHABET = "".join(c for c in string.ascii_uppercase if c not in "IO")
PRIVATE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U
PRIVATE_CODE_LENGTH = 10  # 32**10 = 2**50 codes: never guessed at a few tries a minute
TABLE_NAME_MAX = 40


class Board:
    """The open tables, as a `TableOutput`: frames go to sessions, places and lines are kept."""

    def __init__(
        self,
        rng: random.Random,
        listing_changed: Callable[[], None],
        replaced: Callable[[Session], None],
    ) -> None:
        self.tables: dict[str, Table] = {}
        self.listing: dict[str, TableSummary] = {}  # each table's line in the lobby list
        self._rng = rng
        self._listing_changed = listing_changed
        self._replaced = replaced
        self._rounds_over: list[Callable[[], object]] = []  # called once no round is played

    def new_code(self, private: bool = False) -> str:
        """A code no open table has: four letters, or for a private table ten characters
        drawn from the system's secure random source (the lobby's rng may be seeded)."""
        while True:
            if private:
                code = "".join(secrets.choice(PRIVATE_ALPHABET) for _ in range(PRIVATE_CODE_LENGTH))
            else:
                code = "".join(self._rng.choice(CODE_ALPHABET) for _ in range(4))
            if code not in self.tables:
                return code

    def get(self, code: str) -> Table | None:
        """The table with `code` (any case, spaces ignored), if one is open."""
        return self.tables.get(code.strip().upper())

    def open(
        self, host: Session, message: CreateTable, settings: TableSettings, deps: Deps
    ) -> Table:
        """A new table as `message` asks, hosted by `host`, with its bots seated."""
        try:
            edition = find_edition(message.edition)
            edition.check_players(message.seats)
        except (KeyError, ValueError) as err:
            raise TableError("bad_table", str(err).strip("'\"")) from None
        fill = message.bot_level or LEVELS[0]
        for level in (*(bot.level for bot in message.bots), fill):
            require_level(level)
        name = clean_text(message.name, TABLE_NAME_MAX) or f"{host.name}'s table"
        code = self.new_code(message.private)
        table = Table(
            code,
            name,
            edition,
            message.seats,
            message.timer,
            settings,
            self,
            deps,
            message.takeover,
            message.private,
            HintRule(message.hints),
            bot_level=fill,
        )
        if message.bot_delay is not None:
            table.seating.programs_delay = message.bot_delay / 1000
        self.tables[code] = table
        table.submit(host, Host())
        for bot in message.bots:
            table.submit(host, AddBot(bot.seat, bot.level))
        return table

    def open_tutorial(self, host: Session, settings: TableSettings, deps: Deps) -> Table:
        """The tutorial's table for `host`, with its bots, started. Its games are not
        recorded: they count for no one's stats and are not kept across a restart. It is
        private: nobody else is shown it in the lobby."""
        code = self.new_code(private=True)
        edition = find_edition(tutorial.EDITION)
        seats = 1 + len(tutorial.BOTS)
        table = Table(
            code,
            tutorial.TABLE_NAME,
            edition,
            seats,
            None,
            settings,
            self,
            replace(deps, store=None),
            private=True,
            hints=HintRule(True),
            tutorial=True,
        )
        self.tables[code] = table
        table.submit(host, Tutor())
        return table

    def adopt(self, table: Table) -> None:
        """Open `table`, made elsewhere (rebuilt after a restart) with this board as output."""
        if table.code in self.tables:
            raise ValueError(f"a table {table.code} is open already")
        self.tables[table.code] = table

    def close_all(self, keep: bool = False) -> None:
        """Close every table; with `keep`, games in progress are left to be rebuilt."""
        for table in list(self.tables.values()):
            table.submit(None, Close(keep))

    # ---------------------------------------------------------------- TableOutput

    def send(self, member: Member, message: Message) -> None:
        """A table's message for one of its members."""
        assert isinstance(member, Session)
        member.send(message)

    def placed(self, member: Member, code: str | None) -> None:
        """A table says where `member` is now."""
        assert isinstance(member, Session)
        member.table = None if code is None else self.tables.get(code)

    def replaced(self, member: Member) -> None:
        """Another session of the same player took `member`'s seat."""
        assert isinstance(member, Session)
        self._replaced(member)

    def listed(self, code: str, summary: TableSummary | None) -> None:
        """A table's line in the lobby list changed (None: the table closed)."""
        if summary is None:
            self.tables.pop(code, None)
            self.listing.pop(code, None)
        else:
            self.listing[code] = summary
        self._listing_changed()
        if self._rounds_over and not self.rounds_in_progress():
            waiting, self._rounds_over = self._rounds_over, []
            for callback in waiting:
                callback()

    # ---------------------------------------------------------------- counts

    def rounds_in_progress(self) -> int:
        """How many tables are in the middle of a round that a restart would lose (kept
        tables are rebuilt)."""
        return sum(
            summary.status == "playing" and not self.tables[code].kept
            for code, summary in self.listing.items()
            if code in self.tables
        )

    def games_in_progress(self) -> int:
        """Tables in a game (a round, or the pause after one)."""
        return sum(s.status in GAME_STATUSES for s in self.listing.values())

    def when_rounds_over(self, callback: Callable[[], object]) -> None:
        """Call `callback()` once no table is in the middle of a round a restart would lose
        (at once if none is)."""
        if self.rounds_in_progress():
            self._rounds_over.append(callback)
        else:
            callback()
