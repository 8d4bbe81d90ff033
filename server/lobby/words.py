"""Durations in words, for what players are told."""

from __future__ import annotations


def idle_time(seconds: float) -> str:
    """'45 seconds', '1 minute', '30 minutes': a duration in words."""
    if seconds < 90:
        count, unit = round(seconds), "second"
    else:
        count, unit = round(seconds / 60), "minute"
    return f"{count} {unit}{'' if count == 1 else 's'}"
