"""The one-line chat input: shown and focused only while the player types a line.

Keys typed quickly (or over a slow link) reach the app in one burst, and the app hands each to
the widget focused at that moment. So the Chat key is a priority binding that opens and focuses
the input at once, and the input takes Enter and Esc in order with the text before them; keys
that still reach it once closed go back to the app.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.screen import Screen

from lovelet_tui.actions import bindings, key_actions
from lovelet_tui.widgets.plain_input import PlainInput
from protocol import ChatLine
from protocol.registry import MAX_CHAT


class ChatInput(PlainInput):
    """Enter closes it with the line typed, Esc with none (both post `Closed`)."""

    DEFAULT_CSS = """
    ChatInput {
        display: none;
    }
    """
    BINDINGS = bindings("chat")  # for the key bar and help: `on_key` runs them, in order
    CLOSING = key_actions("chat")

    class Closed(Message):
        """The input closed; `text` is the line to send ("" when left with Esc)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self) -> None:
        super().__init__(
            placeholder="Say something (Enter sends, Esc leaves)", max_length=MAX_CHAT, compact=True
        )

    def open(self) -> None:
        """Show the input and give it the focus now, so the next key typed goes to it."""
        self.display = True
        self.screen.set_focus(self)

    async def on_key(self, event: events.Key) -> None:
        if self.display and event.key not in self.CLOSING:
            return  # typed into the line by the Input
        event.prevent_default()
        event.stop()
        if self.display:
            await self.run_action(self.CLOSING[event.key])
        else:
            self.app.post_message(events.Key(event.key, event.character))

    def action_leave_chat(self) -> None:
        """Close without sending."""
        self._close("")

    async def action_submit(self) -> None:
        """Close, sending the line."""
        self._close(self.value.strip())

    def _close(self, text: str) -> None:
        self.value = ""
        self.display = False
        self.screen.set_focus(None)
        self.post_message(self.Closed(text))


def typing_chat(screen: Screen) -> bool:
    """Whether the player is typing a chat line on `screen` (so the Chat key types a "c")."""
    return isinstance(screen.focused, ChatInput)


def chat_text(line: ChatLine) -> Text:
    """A chat line as plain text: the sender's name and words are never read as markup."""
    return Text.assemble((line.sender, "bold"), ": ", line.text)
