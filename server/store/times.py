"""Instants as stored: UTC ISO 8601 text of one fixed width, so text order is time order."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    """The current instant, in UTC."""
    return datetime.now(UTC)


def to_text(instant: datetime) -> str:
    """Stored form of `instant`; a naive datetime is taken to be UTC."""
    if instant.tzinfo is None:
        instant = instant.replace(tzinfo=UTC)
    return instant.astimezone(UTC).isoformat(timespec="microseconds")


def from_text(text: str | None) -> datetime | None:
    """The instant stored as `text` (None stays None)."""
    return None if text is None else datetime.fromisoformat(text)
