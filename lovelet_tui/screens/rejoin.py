"""A guest's way back: type the one-time rejoin code the table gave at sit-down."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from lovelet_tui.actions import bindings
from lovelet_tui.messages import send
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.plain_input import FieldInput
from protocol import RejoinSeat
from protocol.registry import MAX_CODE


class RejoinScreen(ModalScreen[None]):
    """Enter sends the code typed and closes; the table, or a refusal, follows."""

    DEFAULT_CSS = """
    RejoinScreen { align: center middle; }
    RejoinScreen #box {
        width: 50; height: auto; border: round $accent; padding: 0 1; background: $surface;
    }
    """
    BINDINGS = bindings("rejoin")
    AUTO_FOCUS = "#code"

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):
            yield Label("Your rejoin code (e.g. KQXM-TRWA)")
            yield FieldInput(max_length=MAX_CODE, compact=True, id="code")
        yield KeyBar()

    def action_send_code(self) -> None:
        """Send the code, if any was typed."""
        code = self.query_one("#code", FieldInput).value.strip()
        if code:
            send(self, RejoinSeat(code))
        self.dismiss()

    def action_cancel(self) -> None:
        """Close without sending."""
        self.dismiss()
