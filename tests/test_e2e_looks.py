"""Over real SSH: the look (colour, 16 colours, monochrome) from the client's TERM and NO_COLOR,
and Ctrl+T going through them; what pyte shows of focus and selection without colour."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from e2e_helpers import Server, running_server, screen_lines, wait_text
from sshclient import SSHTerminal

from server.lobby import TableSettings

FROZEN = TableSettings(bot_delay=60, grace=60, round_pause=60)
SGR = re.compile(rb"\x1b\[([0-9;:]*)m")
COLOUR_PARAMS = re.compile(r"3[0-8]|4[0-8]|9[0-7]|10[0-7]")
"""SGR parameters that set a colour (39 and 49, the terminal's default colours, are none)."""
EXTENDED = re.compile(r"(?:^|;)[34]8(?:;|$)")
"""An SGR sequence with 38 or 48: a colour beyond the terminal's 16."""


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with running_server(tmp_path, FROZEN) as running:
        yield running


def colour_codes(raw: bytes) -> set[str]:
    """The SGR sequences in `raw` that set a foreground or background colour."""
    sequences = {match.group(1).decode() for match in SGR.finditer(raw)}
    return {
        params
        for params in sequences
        if any(COLOUR_PARAMS.fullmatch(param) for param in re.split("[;:]", params))
    }


def reversed_line(term: SSHTerminal, text: str) -> bool:
    """Whether `text` is on the screen, in reverse video."""
    for y, line in enumerate(screen_lines(term)):
        x = line.find(text)
        if x >= 0:
            row = term.screen.buffer[y]
            return all(row[x + i].reverse for i in range(len(text)))
    return False


@pytest.mark.parametrize(
    ("term_type", "env"),
    [("vt100", {}), ("dumb", {}), ("xterm-256color", {"NO_COLOR": "1"})],
)
async def test_colourless_terminals_get_no_colour_and_still_see_focus(
    server: Server, term_type: str, env: dict[str, str]
) -> None:
    async with SSHTerminal.connect(server.port, username="host") as host:
        await wait_text(host, "signed in as host")
        await host.send_keys("n", "enter")
        await wait_text(host, "Before the game")
        async with SSHTerminal.connect(
            server.port, username="mono", term=term_type, env=env
        ) as term:
            await wait_text(term, "host's table")
            assert colour_codes(bytes(term.raw)) == set()
            assert reversed_line(term, "host's table")  # the selected row
            await term.send_keys("n")
            await wait_text(term, "Turn timer")
            await term.send_keys("tab")
            await term.wait_for(lambda: reversed_line(term, "Edition      ‹"), "the focused field")
            await term.send_keys("tab")
            await term.wait_for(lambda: reversed_line(term, "Seats        ‹"), "the next field")
            assert not reversed_line(term, "Edition      ‹")
            assert colour_codes(bytes(term.raw)) == set()
            await term.send_keys("escape")
            await term.wait_for(lambda: "Turn timer" not in term.text, "the form to close")
            await term.send_keys("ctrl+t")
            await wait_text(term, "Switched to 16 colours")
            assert colour_codes(bytes(term.raw))


async def test_colour_terminals_get_colour_until_they_switch_to_monochrome(
    server: Server,
) -> None:
    async with SSHTerminal.connect(server.port, username="ana", term="xterm-256color") as term:
        await wait_text(term, "signed in as ana")
        assert colour_codes(bytes(term.raw))
        await term.send_keys("ctrl+t")
        await wait_text(term, "Switched to monochrome")
        seen = len(term.raw)
        await term.send_keys("n")
        await wait_text(term, "Turn timer")
        await term.send_keys("tab")
        await term.wait_for(lambda: reversed_line(term, "Edition      ‹"), "the focused field")
        assert colour_codes(bytes(term.raw[seen:])) == set()


@pytest.mark.parametrize(("term_type", "extended"), [("xterm", False), ("xterm-256color", True)])
async def test_sixteen_colour_terms_get_only_the_terminals_own_colours(
    server: Server, term_type: str, extended: bool
) -> None:
    async with SSHTerminal.connect(server.port, username="ana", term=term_type) as term:
        await wait_text(term, "signed in as ana")
        await term.send_keys("n")
        await wait_text(term, "Turn timer")
        codes = colour_codes(bytes(term.raw))
    assert codes
    assert any(EXTENDED.search(params) for params in codes) is extended
