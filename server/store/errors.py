"""What can go wrong opening or using the database."""

from __future__ import annotations


class StoreError(Exception):
    """A database problem the operator must fix; the message says how."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer lovelet than this one."""


class MigrationError(StoreError):
    """A migration failed; the database is left at the last version that succeeded."""
