"""The choices a view offers, as the bots score and return them: the engine's choice maps."""

from __future__ import annotations

from server.engine import View, choice_to_dict


def offered(view: View) -> list[dict]:
    """`view.choices` as maps (`choice_to_dict`), in the view's order."""
    return [choice_to_dict(choice) for choice in view.choices]
