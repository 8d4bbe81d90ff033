"""The one-line chat input: shown and focused only while the player types a line."""

from __future__ import annotations

from rich.text import Text
from textual.message import Message

from lovelet_tui.actions import bindings
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
    BINDINGS = bindings("chat")

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
