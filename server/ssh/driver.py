"""A Textual driver that bridges one app to one terminal byte stream (an SSH channel, or a
browser's WebSocket: server/web/), and the app hardening for it.

What it needs of Textual's internals (the xterm parser, the app's error hook, its stdio
redirection) it reaches through `server.ssh.compat`.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from codecs import getincrementaldecoder
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, Protocol, TextIO

from rich.console import Console
from textual import events
from textual.constants import ESCAPE_DELAY
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message

from server.ssh import compat
from server.ssh.input import PASTE_CHARS_PER_KEY, InputPump, KeyBudget, call_later_weakly

if TYPE_CHECKING:
    from textual.app import App

log = logging.getLogger(__name__)

ENTER_APP_MODE = (
    "\x1b[?1049h"  # alternate screen
    "\x1b[?25l"  # hide cursor
    "\x1b[?2004h"  # bracketed paste
    "\x1b[?7l"  # no line wrap
)
MOUSE_ON = "\x1b[?1000h\x1b[?1006h"  # button presses only, SGR coordinates; never 1003
MOUSE_OFF = "\x1b[?1006l\x1b[?1000l"
SYNC_OUTPUT_QUERY = "\x1b[?2026$p"
RESTORE_TERMINAL = (
    "\x1b[?2004l"  # bracketed paste off
    f"{MOUSE_OFF}"
    "\x1b[?7h"  # line wrap on
    "\x1b[0m"  # reset attributes
    "\x1b[?1049l"  # leave alternate screen
    "\x1b[?25h"  # show cursor
)
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
PARSER_WAIT = ESCAPE_DELAY + 0.001
"""Seconds after input that the parser is asked whether a wait has ended: after a lone Esc
it waits `ESCAPE_DELAY` (Textual's, from $ESCDELAY) for a sequence to follow."""
HANDLED_WAIT = 0.05
"""Seconds an input event may take to show on the screen before the next is handed over
regardless (the screen it was sent to may be gone)."""
OUTPUT_OVERFLOW = "Your connection is too slow to keep up; disconnected."
PASTE_TOO_LONG = "That paste was too long; disconnected."
INPUT_FLOOD = "Too much input; disconnected."
INPUT_DROPPED = "You are typing faster than the server accepts: some keys were dropped."


class Channel(Protocol):
    """The part of a stream (an asyncssh channel, a WebSocket's adapter) the driver writes to."""

    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...


class PasteWatch:
    """Follows bracketed-paste markers in the input; reports pastes longer than a limit.

    Textual's parser buffers a paste until its end marker, so an endless paste would grow
    without bound. Markers split across reads are found by keeping the last few characters.
    """

    def __init__(self, max_chars: int) -> None:
        self._max = max_chars
        self._pasting = False
        self._length = 0
        self._carry = ""

    @property
    def pasting(self) -> bool:
        """Inside a paste (start marker seen, end marker not yet)."""
        return self._pasting

    def watch(self, text: str) -> bool:
        """Account for `text`; False once an open paste exceeds the limit."""
        window = self._carry + text
        start = 0
        while (index := window.find(PASTE_END if self._pasting else PASTE_START, start)) >= 0:
            self._pasting = not self._pasting
            self._length = 0
            start = index + len(PASTE_START)
        if self._pasting:
            self._length += len(window) - max(start, len(self._carry))
        self._carry = window[-(len(PASTE_START) - 1) :]
        return self._length <= self._max


class TerminalDriver(Driver):
    """Drives one Textual app over one terminal byte stream: no threads, signals or termios.

    Output: `write()` buffers, `flush()` (once per frame) sends one channel write. While the
    channel is paused (slow client) frames are dropped and a full repaint follows the resume;
    past `hard_limit` unsent bytes, or after `stall_timeout` seconds paused, `disconnect` is
    called. Input: the `pump` hands over a chunk of bytes at a time and waits until the app
    has handled the events made of it (the SSH window reopens only as the app consumes). Each
    event costs `keys` budget: events over budget are dropped with a notice to the player, and
    a flood of them calls `disconnect`, as does a bracketed paste longer than `max_paste`. A
    lone Esc is resolved by a `call_later` timer.
    """

    def __init__(
        self,
        app: App[Any],
        *,
        channel: Channel,
        hard_limit: int,
        stall_timeout: float,
        max_paste: int,
        pump: InputPump,
        keys: KeyBudget,
        disconnect: Callable[[str], None],
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._session_app = app  # kept here, not read back from the base class's attributes
        self._event_loop = asyncio.get_running_loop()
        self._wants_mouse = mouse
        self._channel: Channel | None = channel
        self._hard_limit = hard_limit
        self._stall_timeout = stall_timeout
        self._stall_handle: asyncio.TimerHandle | None = None
        self._disconnect = disconnect
        self._paste = PasteWatch(max_paste)
        self._out: list[str] = []
        self._paused = False
        self._cut_off = False
        self._dropped_frames = 0
        self._stale = False
        self._app_mode = False
        self._input_enabled = True
        self._pump = pump
        self._keys = keys
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._parser = compat.XTermParser(debug=False)
        self._parsed: deque[Message] = deque()
        self._tick_handle: asyncio.TimerHandle | None = None
        self._retry_handle: asyncio.TimerHandle | None = None
        self._handing = 0  # the event the app is handling, counted (or the wait after it)

    @property
    def keys_dropped(self) -> int:
        """Input events dropped for going over the key budget."""
        return self._keys.dropped

    @property
    def unsent_output(self) -> int:
        """Bytes written to the channel that the client has not taken yet."""
        return self._channel.get_write_buffer_size() if self._channel is not None else 0

    @property
    def dropped_frames(self) -> int:
        """Frames discarded because the client was not keeping up."""
        return self._dropped_frames

    # Output

    def write(self, data: str) -> None:
        """Buffer output until the next flush."""
        self._out.append(data)

    def flush(self) -> None:
        """Send the buffered frame, or drop it while the channel is paused."""
        if not self._out:
            return
        data = "".join(self._out)
        self._out.clear()
        if self._cut_off:
            return
        if self._paused and self._app_mode:
            self._dropped_frames += 1
            self._stale = True
            return
        self._send(data)

    def _send(self, data: str) -> None:
        channel = self._channel
        if channel is None:
            return
        try:
            channel.write(data.encode("utf-8", "replace"))
        except OSError:
            self._channel = None
            return
        if channel.get_write_buffer_size() > self._hard_limit:
            self._overflow()

    def _overflow(self) -> None:
        """The client is hopelessly behind: send no more frames and let the session drop it."""
        self._cancel_stall()
        if not self._cut_off and self._channel is not None:
            self._cut_off = True
            self._disconnect(OUTPUT_OVERFLOW)

    def pause_output(self) -> None:
        """The channel's send buffer is above its high-water mark."""
        self._paused = True
        if self._stall_handle is None:
            self._stall_handle = self._event_loop.call_later(self._stall_timeout, self._overflow)

    def resume_output(self) -> None:
        """The channel drained; repaint everything if frames were dropped."""
        self._paused = False
        self._cancel_stall()
        if self._stale and self._app_mode:
            self._stale = False
            self._session_app.call_later(self._repaint)

    def _cancel_stall(self) -> None:
        if self._stall_handle is not None:
            self._stall_handle.cancel()
            self._stall_handle = None

    def _repaint(self) -> None:
        """Send a full frame (runs in the app's task)."""
        app = self._session_app
        if self._app_mode and app.is_running:
            app.screen.refresh()

    def detach(self) -> None:
        """The channel is gone: discard all further output and input."""
        self._channel = None
        self.disable_input()
        self._cancel_stall()

    # Application mode

    def start_application_mode(self) -> None:
        """Switch the client's terminal to full-screen app mode. Its size is the one the app
        was started with (and later changes come through `resize`): a resize to the same size
        here would only have the app lay out and draw its first screen twice."""
        mouse = MOUSE_ON if self._wants_mouse else ""
        self._send(ENTER_APP_MODE + mouse + SYNC_OUTPUT_QUERY)
        self._app_mode = True
        self._pump.attach(self._consume)

    def stop_application_mode(self) -> None:
        """Restore the client's terminal (never dropped, even while paused)."""
        self.disable_input()
        self.restore_terminal()

    def restore_terminal(self) -> None:
        """Leave app mode if still in it; safe to call more than once."""
        if not self._app_mode:
            return
        self._app_mode = False
        self._out.clear()
        self._send(RESTORE_TERMINAL)

    def disable_input(self) -> None:
        """Stop turning input into events, and release the parser's state."""
        self._input_enabled = False
        self._pump.close()
        self._parsed.clear()
        self._cancel_tick()
        self._cancel_retry()
        compat.close_parser(self._parser)

    def close(self) -> None:
        """Release timers."""
        self._cancel_tick()
        self._cancel_retry()
        self._cancel_stall()

    # Input

    def _consume(self, data: bytes) -> bool:
        """Turn a chunk of input into events and hand the first to the app; True when one
        went (the pump then waits for `release`)."""
        if not self._input_enabled:
            return False
        text = self._decode(data)
        if not self._paste.watch(text):
            self._kick(PASTE_TOO_LONG)
            return False
        self._cancel_tick()
        if text:
            self._parsed.extend(self._parser.feed(text))
            self._tick_handle = self._event_loop.call_later(PARSER_WAIT, self._tick)
        if self._retry_handle is not None:  # an event is with the app: `_handled` goes on
            return True
        return self._hand_next()

    def _hand_next(self) -> bool:
        """Hand the next event the key budget admits to the app; True if one went (`_handled`
        follows once the screen shows what it did)."""
        while self._parsed and self._input_enabled:
            if self._admit(self._parsed.popleft()):
                self._pump.input_started()
                self._handing += 1
                handing = self._handing
                self._retry_handle = call_later_weakly(HANDLED_WAIT, self._handled, handing)
                return self._session_app.call_after_refresh(self._refreshed, handing)
        return False

    def _refreshed(self, handing: int) -> None:
        """In the app's task: go on outside it (an event posted from within the app's context
        would carry the app with it, and the parser reuses its event objects)."""
        self._event_loop.call_soon(self._handled, handing, context=contextvars.Context())

    def _handled(self, handing: int) -> None:
        """The screen shows what event `handing` did (or `HANDLED_WAIT` passed: a screen
        removed before its refresh never says): hand the app the next event once the session
        is within its share of the server's time; with none left, the pump goes on. One event
        at a time, so a session's dear keys are paid for before more are taken."""
        if handing != self._handing:
            return  # already handled, or input ended
        self._handing += 1
        self._cancel_retry()
        self._pump.input_handled()
        if not self._input_enabled:
            return
        wait = self._pump.cost_wait()
        if wait > 0:
            self._retry_handle = call_later_weakly(wait, self._handled, self._handing)
        elif not self._hand_next():
            self._pump.release()

    def _cancel_retry(self) -> None:
        if self._retry_handle is not None:
            self._retry_handle.cancel()
            self._retry_handle = None

    def _admit(self, message: Message) -> bool:
        """Hand `message` to the app if the key budget allows; True if it did."""
        verdict = self._keys.admit(input_cost(message))
        if verdict == KeyBudget.ACCEPT:
            self.process_message(message)
            return True
        if verdict == KeyBudget.FLOOD:
            self._kick(INPUT_FLOOD)
        elif verdict == KeyBudget.DROP_AND_NOTIFY:
            app = self._session_app
            app.call_later(app.notify, INPUT_DROPPED, severity="warning")
        return False

    def _kick(self, reason: str) -> None:
        self.disable_input()
        self._disconnect(reason)

    def resize(self, width: int, height: int) -> None:
        """The client's terminal changed size (already clamped by the caller)."""
        size = Size(width, height)
        self.send_message(events.Resize(size, size))

    def send_message(self, message: Message) -> None:
        """Post to the app directly: everything runs on the event loop thread."""
        self._session_app.post_message(message)

    def _tick(self) -> None:
        """The parser's wait for what follows a lone Esc is over: it is a key."""
        self._tick_handle = None
        if not self._input_enabled:
            return
        self._parsed.extend(self._parser.tick())
        if self._retry_handle is None:  # not waiting on an event handed earlier
            self._hand_next()

    def _cancel_tick(self) -> None:
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    # Nothing may act on the server machine

    def open_url(self, url: str, new_tab: bool = True) -> None:
        """Ignored: a browser would open on the server."""

    def deliver_binary(
        self,
        binary: BinaryIO | TextIO,
        *,
        delivery_key: str,
        save_path: Path,
        open_method: Literal["browser", "download"] = "download",
        encoding: str | None = None,
        mime_type: str | None = None,
        name: str | None = None,
    ) -> None:
        """Ignored: the file would be written on the server."""
        binary.close()


def input_cost(message: Message) -> float:
    """What one input event costs of the key budget: a paste by its length."""
    if isinstance(message, events.Paste):
        return 1 + len(message.text) // PASTE_CHARS_PER_KEY
    return 1


class _NullFile:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def prepare_app(
    app: App[Any],
    driver_factory: Callable[..., Driver],
    on_error: Callable[[BaseException], None],
    color_system: str = "256",
) -> None:
    """Make `app` safe to run as one of many sessions in this process.

    Installs the driver factory, pins the colour depth, routes unhandled exceptions to
    `on_error` (Textual's rich traceback, with local variables, is printed nowhere) and keeps
    the app from redirecting the process-wide stdout/stderr.
    """
    compat.install_stdio_guard()
    app.driver_class = driver_factory  # type: ignore[assignment]
    app.console = app_console(color_system)
    app.error_console = Console(file=_NullFile())  # type: ignore[arg-type]
    compat.route_errors(app, on_error)


def app_console(color_system: str) -> Console:
    """The console an app renders with, made as Textual makes it but at the server's colour
    depth (Textual's reads it from the process's environment)."""
    return Console(
        color_system=color_system,  # type: ignore[arg-type]
        file=_NullFile(),  # type: ignore[arg-type]
        markup=True,
        highlight=False,
        emoji=False,
        legacy_windows=False,
        no_color=False,
        force_terminal=True,
        safe_box=False,
        soft_wrap=False,
    )
