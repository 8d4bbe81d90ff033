"""The one-line chat input: shown and focused only while the player types a line."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message
from textual.widgets import Input

from lovelet_tui.actions import bindings
from protocol import ChatLine
from protocol.registry import MAX_CHAT


class ChatInput(Input):
    """Enter closes it with the line typed, Esc with none (both post `Closed`). No blinking."""

    DEFAULT_CSS = """
    ChatInput {
        display: none;
        height: 1;
        border: none;
        padding: 0 1;
    }
    """
    BINDINGS = bindings("chat")

    class Closed(Message):
        """The input closed; `text` is the line to send ("" when left with Esc)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, placeholder: str = "Say something (Enter sends, Esc leaves)") -> None:
        super().__init__(placeholder=placeholder, max_length=MAX_CHAT)
        self.cursor_blink = False

    def open(self) -> None:
        """Show the input and give it the focus."""
        self.display = True
        self.focus()

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


def chat_text(line: ChatLine) -> Text:
    """A chat line as plain text: the sender's name and words are never read as markup."""
    return Text.assemble((line.sender, "bold"), ": ", line.text)
