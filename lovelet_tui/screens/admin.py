"""The admin command line: one line such as `ban bob 1d`, checked here, answered by toasts."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from lovelet_tui.actions import bindings
from lovelet_tui.admin_command import USAGE, AdminSyntaxError, parse_admin
from lovelet_tui.messages import send
from lovelet_tui.widgets.key_bar import KeyBar
from lovelet_tui.widgets.plain_input import FieldInput
from lovelet_tui.widgets.too_small import TooSmall
from protocol.registry import MAX_ADMIN_TEXT

MAX_LINE = MAX_ADMIN_TEXT + 80  # a command word, a target and a duration before the text


class AdminScreen(ModalScreen[None]):
    """Enter sends the command and closes; a line that does not parse stays, with why."""

    CSS_PATH = "admin.tcss"
    BINDINGS = bindings("admin")
    AUTO_FOCUS = "#line"

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(id="box"):
            yield Label("Admin command", id="title")
            yield FieldInput(
                placeholder="e.g. kick bob", max_length=MAX_LINE, compact=True, id="line"
            )
            yield Static(id="problem")
            yield Static(Text("\n".join(USAGE), style="dim"), id="usage")
        yield KeyBar()

    def action_run(self) -> None:
        """Send the command, or say why the line is not one."""
        try:
            command = parse_admin(self.query_one("#line", FieldInput).value)
        except AdminSyntaxError as err:
            self.query_one("#problem", Static).update(Text(str(err), style="bold red"))
            return
        send(self, command)
        self.dismiss()

    def action_cancel(self) -> None:
        """Close without sending."""
        self.dismiss()
