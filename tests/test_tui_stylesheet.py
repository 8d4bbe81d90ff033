"""Apps in one process share their parsed CSS (`lovelet_tui.compat.SharedStylesheet`): a
session parses no CSS that another one parsed with the same theme, and a screen opened later
parses only its own."""

from __future__ import annotations

from test_tui_support import FakeLink, served
from textual.color import Color

from lovelet_tui.colour import Look
from lovelet_tui.compat import SharedStylesheet

SIZE = (80, 24)


async def test_a_second_app_parses_none_of_the_css_the_first_parsed() -> None:
    first, second = served(FakeLink(), "Ana"), served(FakeLink(), "Bo")
    async with first.run_test(size=SIZE):
        rules = first.stylesheet.rules
    async with second.run_test(size=SIZE):
        again = second.stylesheet.rules
    assert len(rules) > 50 and len(again) == len(rules)
    assert all(mine is theirs for mine, theirs in zip(again, rules, strict=True))


async def test_an_app_in_another_theme_gets_the_css_parsed_with_its_own_colours() -> None:
    colours: list[Color] = []
    for look in (Look.COLOUR, Look.SIXTEEN, Look.COLOUR):
        app = served(FakeLink(), "Ana", look=look)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            colours.append(app.query_one("#welcome").styles.background)
    colour, sixteen, colour_again = colours
    assert sixteen != colour and colour_again == colour
    assert sixteen.ansi is not None and colour.ansi is None  # the theme of 16 ANSI colours


def test_a_reparse_parses_nothing_again_unless_the_variables_changed() -> None:
    sheet = SharedStylesheet(variables={"accent": "red"})
    sheet.add_source("Screen { background: $accent; }", read_from=("test", "reparse"))
    rules = sheet.rules
    sheet.reparse()  # as Textual does when a screen brings CSS of its own
    assert len(sheet.rules) == 1 and sheet.rules[0] is rules[0]
    sheet.set_variables({"accent": "blue"})  # a new theme
    sheet.reparse()
    (rule,) = sheet.rules
    assert rule.styles.background == Color.parse("blue")
