"""Logging: JSON lines parse, text lines stay on one line, helpers carry their fields."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest

from server.ops import logs


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    noisy = {name: logging.getLogger(name).level for name in logs.NOISY_LOGGERS}
    yield
    for handler in root.handlers[:]:
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)
    for name, old in noisy.items():
        logging.getLogger(name).setLevel(old)
    logging.captureWarnings(False)


def capture(format: str, level: str = "info") -> io.StringIO:
    stream = io.StringIO()
    logs.setup_logging(format, level, stream=stream)
    return stream


def json_lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_json_lines_parse_with_fields(restore_logging: None) -> None:
    stream = capture("json")
    logging.getLogger("some.module").info("hello %s", "world", extra={"fields": {"n": 3}})
    logs.log_login("10.0.0.1", "SHA256:abc", "alice", "SSH-2.0-OpenSSH_9.6", "xterm", (80, 24))
    logs.log_login("10.0.0.2", None, "bob", None, None, None)
    first, login, guest = json_lines(stream)
    assert first["message"] == "hello world" and first["n"] == 3
    assert first["logger"] == "some.module" and first["level"] == "info"
    assert first["time"].endswith("Z")
    assert login == {
        "time": login["time"],
        "level": "info",
        "logger": logs.EVENTS,
        "message": "login",
        "address": "10.0.0.1",
        "identity": "SHA256:abc",
        "name": "alice",
        "client": "SSH-2.0-OpenSSH_9.6",
        "term": "xterm",
        "size": "80x24",
    }
    assert guest["identity"] == "guest" and "term" not in guest


def test_every_helper_writes_one_parseable_line(restore_logging: None) -> None:
    stream = capture("json", "debug")
    logs.log_started("0.0.0.0:2222", "SHA256:x", None, "0.1.0", "uvloop")
    logs.log_connect("::1")
    logs.log_refused("::1", "per_address")
    logs.log_disconnect("::1", "alice", 12.34567, "closed")
    logs.log_game_start("ABCD", "2019", 2, 2)
    logs.log_game_end("ABCD", "2019", 300.0, 5, "alice")
    logs.log_game_end("ABCD", "2019", 10.0, 1)
    logs.log_table_closed("ABCD")
    logs.log_admin_action("SHA256:admin", "kick", "mallory")
    logs.log_stopping(3, 60.0)
    logs.log_stopped()
    lines = json_lines(stream)
    assert [line["message"] for line in lines] == [
        "server started",
        "connect",
        "refused",
        "disconnect",
        "game start",
        "game end",
        "game end",
        "table closed",
        "admin action",
        "server stopping",
        "server stopped",
    ]
    assert lines[3]["duration_seconds"] == 12.346
    assert lines[5]["winner"] == "alice" and lines[5]["abandoned"] is False
    assert lines[6]["abandoned"] is True and "winner" not in lines[6]
    assert lines[8]["level"] == "warning"


def test_errors_carry_context_and_a_traceback_without_locals(restore_logging: None) -> None:
    stream = capture("json")
    secret_hand = "Princess"  # noqa: F841 - a local that must never reach the log

    def fail() -> None:
        hidden = "Countess"  # noqa: F841
        raise RuntimeError("boom")

    try:
        fail()
    except RuntimeError as err:
        logs.log_error("handling a message failed", err, table="ABCD", name="alice")
    (line,) = json_lines(stream)
    assert line["level"] == "error" and line["table"] == "ABCD"
    assert line["error"] == "RuntimeError: boom"
    assert "Traceback" in line["exception"] and "fail()" in line["exception"]
    assert "Princess" not in stream.getvalue() and "Countess" not in stream.getvalue()


def test_reserved_field_names_do_not_clobber(restore_logging: None) -> None:
    stream = capture("json")
    logging.getLogger("x").warning("real", extra={"fields": {"message": "fake", "level": 1}})
    (line,) = json_lines(stream)
    assert line["message"] == "real" and line["level"] == "warning"
    assert line["field_message"] == "fake" and line["field_level"] == 1


def test_json_survives_odd_values(restore_logging: None) -> None:
    stream = capture("json")
    logs.event("odd", path=object.__new__(object), text="line\nbreak\x1b[31m", n=float("inf"))
    (line,) = [json.loads(x, parse_constant=pytest.fail) for x in stream.getvalue().splitlines()]
    assert line["text"] == "line\nbreak\x1b[31m" and line["n"] == "inf"


def test_text_lines_quote_values_and_stay_on_one_line(restore_logging: None) -> None:
    stream = capture("text")
    logs.log_login("10.0.0.1", None, "evil\nname=x", None, "xterm 256", (80, 24))
    logging.getLogger("a").info("multi\nline\x1b]0;title\x07")
    out = stream.getvalue().splitlines()
    assert len(out) == 2
    assert " INFO lovelet.events: login address=10.0.0.1 identity=guest " in out[0]
    assert 'name="evil\\nname=x"' in out[0] and 'term="xterm 256"' in out[0]
    assert "size=80x24" in out[0]
    assert "\x1b" not in stream.getvalue()


def test_level_filters_and_noisy_libraries_are_quieter(restore_logging: None) -> None:
    stream = capture("text", "warning")
    logging.getLogger("x").info("hidden")
    logging.getLogger("x").warning("shown")
    assert "hidden" not in stream.getvalue() and "shown" in stream.getvalue()
    capture("text", "info")
    assert logging.getLogger("asyncssh").level == logging.WARNING
    capture("text", "debug")
    assert logging.getLogger("asyncssh").level == logging.DEBUG


def test_setup_replaces_previous_handlers(restore_logging: None) -> None:
    first = capture("text")
    second = capture("json")
    logging.getLogger("x").warning("once")
    assert first.getvalue() == "" and len(json_lines(second)) == 1


@pytest.mark.parametrize(("fmt", "level"), [("xml", "info"), ("text", "loud")])
def test_bad_arguments(restore_logging: None, fmt: str, level: str) -> None:
    with pytest.raises(ValueError):
        logs.setup_logging(fmt, level)


def test_stopwatch_measures() -> None:
    watch = logs.Stopwatch()
    assert 0 <= watch.elapsed() < 5
