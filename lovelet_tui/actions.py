"""Every key binding of the app in one table: screens take their bindings from it, and the
help screen lists it."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding

DIGITS = "1234567890"  # option keys in list order: the tenth option is 0


@dataclass(frozen=True, slots=True)
class KeyAction:
    """One key (or a comma-separated set of keys) bound to an action in one scope."""

    scope: str
    keys: str
    action: str
    description: str
    show: bool = True
    key_display: str | None = None
    priority: bool = False  # before the focused widget's own binding for the key


SCOPES = {
    "app": "Everywhere",
    "lobby": "Lobby",
    "table": "At a table",
    "chat": "Typing a chat line",
    "form": "New table form",
    "field": "A choice field of the form",
    "help": "Help",
    "rules": "Rules",
    "stats": "Stats",
    "replay": "Replay",
    "players": "Choosing a player",
    "friends": "Your friends",
    "profile": "A player's profile",
    "admin": "Admin command line",
    "rejoin": "Rejoin code (guests)",
}

ACTIONS: tuple[KeyAction, ...] = (
    KeyAction("app", "question_mark", "help", "Help", key_display="?"),
    KeyAction("app", "ctrl+q", "quit", "Quit", priority=True),  # modal screens too
    KeyAction(
        "app", "ctrl+t", "next_look", "Colour, monochrome, 16 colours", show=False, priority=True
    ),
    KeyAction("lobby", "n", "new_table", "New table"),
    KeyAction("lobby", "j", "join", "Join"),
    KeyAction("lobby", "w", "watch", "Watch"),
    KeyAction("lobby", "c", "chat", "Chat", priority=True),
    KeyAction("lobby", "i", "stats", "Stats"),
    KeyAction("lobby", "a", "admin", "Admin"),
    KeyAction("lobby", "r", "rejoin", "Rejoin"),
    KeyAction("lobby", "t", "tutorial", "Tutorial"),
    KeyAction("lobby", "p", "profile", "A player's profile", show=False),
    KeyAction("lobby", "f", "friends", "Your friends", show=False),
    KeyAction("table", "digits", "pick", "Pick", key_display="0-9"),
    KeyAction("table", "up", "move(-1)", "Up", show=False),
    KeyAction("table", "down", "move(1)", "Down", show=False),
    KeyAction("table", "enter", "choose", "Choose", show=False),
    KeyAction("table", "escape", "back", "Back"),
    KeyAction("table", "h", "hint", "Hint"),
    KeyAction("table", "n", "next_round", "Next round"),
    KeyAction("table", "r", "rematch", "Rematch"),
    KeyAction("table", "s", "sit", "Sit"),
    KeyAction("table", "u", "stand", "Stand up"),
    KeyAction("table", "b", "bot", "Bot"),
    KeyAction("table", "g", "start", "Start"),
    KeyAction("table", "t", "tracker", "Tracker"),
    KeyAction("table", "c", "chat", "Chat", priority=True),
    KeyAction("table", "l", "leave", "Leave"),
    KeyAction("table", "p", "profile", "A player's profile", show=False),
    KeyAction("table", "pageup", "scroll_log(-1)", "Log up", show=False),
    KeyAction("table", "pagedown", "scroll_log(1)", "Log down", show=False),
    KeyAction("chat", "enter", "submit", "Send"),
    KeyAction("chat", "escape", "leave_chat", "Stop typing"),
    KeyAction("form", "enter", "create", "Create"),
    KeyAction("form", "tab", "app.focus_next", "Next field", priority=True),
    KeyAction(
        "form", "shift+tab", "app.focus_previous", "Previous field", show=False, priority=True
    ),
    KeyAction("form", "escape", "cancel", "Cancel"),
    KeyAction("field", "left", "cycle(-1)", "Previous", key_display="←"),
    KeyAction("field", "right", "cycle(1)", "Next", key_display="→"),
    KeyAction("help", "r", "rules", "Rules"),
    KeyAction("help", "escape", "close", "Close"),
    KeyAction("rules", "left", "edition(-1)", "Previous edition", key_display="←", priority=True),
    KeyAction("rules", "right", "edition(1)", "Next edition", key_display="→", priority=True),
    KeyAction("rules", "escape", "close", "Close"),
    KeyAction("stats", "up", "move(-1)", "Up", show=False, priority=True),
    KeyAction("stats", "down", "move(1)", "Down", show=False, priority=True),
    KeyAction("stats", "enter", "open", "Open"),
    KeyAction("stats", "p", "replay_public", "Public replay"),
    KeyAction("stats", "p", "profile", "Profile"),
    KeyAction("stats", "escape", "close", "Close"),
    KeyAction("replay", "right", "step(1)", "Step", key_display="→"),
    KeyAction("replay", "left", "step(-1)", "Back", key_display="←"),
    KeyAction("replay", "v", "switch_view", "Switch view"),
    KeyAction("replay", "t", "tracker", "Tracker"),
    KeyAction("replay", "escape", "close", "Close"),
    KeyAction("replay", "pagedown", "round(1)", "Next round", key_display="PgDn"),
    KeyAction("replay", "pageup", "round(-1)", "Round start", key_display="PgUp"),
    KeyAction("replay", "home", "first", "First", key_display="Home"),
    KeyAction("replay", "end", "last", "Last", key_display="End"),
    KeyAction("players", "up", "move(-1)", "Up", show=False),
    KeyAction("players", "down", "move(1)", "Down", show=False),
    KeyAction("players", "enter", "choose", "Profile"),
    KeyAction("players", "escape", "cancel", "Cancel"),
    KeyAction("profile", "up", "move(-1)", "Up", show=False),
    KeyAction("profile", "down", "move(1)", "Down", show=False),
    KeyAction("profile", "enter", "replay", "Replay"),
    KeyAction("profile", "f", "befriend", "Add friend"),
    KeyAction("profile", "f", "unfriend", "Remove friend"),
    KeyAction("profile", "escape", "close", "Close"),
    KeyAction("friends", "up", "move(-1)", "Up", show=False),
    KeyAction("friends", "down", "move(1)", "Down", show=False),
    KeyAction("friends", "enter", "join", "Join their table"),
    KeyAction("friends", "p", "profile", "Profile"),
    KeyAction("friends", "escape", "close", "Close"),
    KeyAction("admin", "enter", "run", "Run"),
    KeyAction("admin", "escape", "cancel", "Cancel"),
    KeyAction("rejoin", "enter", "send_code", "Rejoin"),
    KeyAction("rejoin", "escape", "cancel", "Cancel"),
)


def bindings(scope: str) -> list[Binding]:
    """The Textual bindings of `scope`; "digits" becomes one `pick('d')` binding per digit."""
    result: list[Binding] = []
    for entry in ACTIONS:
        if entry.scope != scope:
            continue
        if entry.keys == "digits":
            result.extend(_digit_bindings(entry))
        else:
            result.append(
                Binding(
                    entry.keys,
                    entry.action,
                    entry.description,
                    show=entry.show,
                    key_display=entry.key_display,
                    priority=entry.priority,
                )
            )
    return result


def key_actions(scope: str) -> dict[str, str]:
    """`scope`'s key → action, for a widget that runs its own keys as they reach it (in order
    with the keys before them, where the app's binding check could come too late)."""
    return {entry.keys: entry.action for entry in ACTIONS if entry.scope == scope}


def _digit_bindings(entry: KeyAction) -> list[Binding]:
    return [
        Binding(
            digit,
            f"{entry.action}('{digit}')",
            entry.description,
            show=digit == DIGITS[0],
            key_display=entry.key_display,
        )
        for digit in DIGITS
    ]


KEY_NAMES = {
    "up": "↑",
    "down": "↓",
    "enter": "Enter",
    "escape": "Esc",
    "tab": "Tab",
    "shift+tab": "Shift+Tab",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "ctrl+q": "Ctrl+Q",
    "ctrl+t": "Ctrl+T",
}


def key_label(entry: KeyAction) -> str:
    """How the help screen names the key(s) of `entry`."""
    return entry.key_display or KEY_NAMES.get(entry.keys, entry.keys)
