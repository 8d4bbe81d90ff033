"""The running server's control socket: `lovelet admin announce` reaches every connected
player through it.

The process that runs the lobby (`lovelet serve`, or the core of `--role core` and of
`--workers N`) listens on `control.sock` in its data directory, where the database is and
where `lovelet admin` already works. Only the data directory's owner can reach it (the
directory is 0700, the socket 0600). Scaled, the core's lobby holds every front-end's
sessions, so its notice travels to them through the broker like any other frame.

One request a connection: a JSON object on one line, answered by one JSON line. Besides
`announce`, `health` answers while the event loop runs: `python -m server.ops.control DIR`
asks it (the container image's HEALTHCHECK, deploy/Containerfile).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import sys
from collections.abc import Callable
from pathlib import Path

from protocol.registry import MAX_ADMIN_TEXT

from ..services.sanitize import clean_text
from .logs import event, log_error

SOCKET_NAME = "control.sock"
REQUEST_MAX = 64 * 1024
"""Bytes of one request line at most."""
CLIENT_TIMEOUT = 10.0
"""Seconds `lovelet admin` waits for the server's answer."""

Announce = Callable[[str], int]
"""Tell every connected player `text`; how many were told."""


class ControlError(Exception):
    """The server could not be reached, or refused the request."""


def control_path(data_dir: Path) -> Path:
    """Where the server of `data_dir` listens for `lovelet admin`."""
    return data_dir / SOCKET_NAME


def announcement(text: str) -> str:
    """`text` as players will see it: control and format characters removed, whitespace
    collapsed, at most MAX_ADMIN_TEXT characters."""
    return clean_text(text, MAX_ADMIN_TEXT)


class ControlServer:
    """The listening control socket of one running server."""

    def __init__(self, server: asyncio.AbstractServer, path: Path) -> None:
        self._server = server
        self.path = path
        self._inode = path.stat().st_ino

    async def close(self) -> None:
        """Stop listening and remove the socket (unless another server has replaced it)."""
        self._server.close()
        await self._server.wait_closed()
        with contextlib.suppress(OSError):
            if self.path.stat().st_ino == self._inode:
                self.path.unlink()


async def start_control_server(data_dir: Path, announce: Announce) -> ControlServer | None:
    """Listen on the data directory's control socket (a stale one, left by a crash, is
    replaced). None, logged, if it cannot be made: the game runs on without it."""
    path = control_path(data_dir)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    try:
        server = await asyncio.start_unix_server(
            lambda r, w: _serve(r, w, announce), path=str(path), limit=REQUEST_MAX
        )
        path.chmod(0o600)
    except OSError as err:
        log_error("no control socket: `lovelet admin announce` cannot reach this server", err)
        return None
    return ControlServer(server, path)


async def _serve(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, announce: Announce
) -> None:
    try:
        line = await asyncio.wait_for(reader.readline(), CLIENT_TIMEOUT)
        reply = _answer(line, announce)
        writer.write(json.dumps(reply).encode() + b"\n")
        await writer.drain()
    except (OSError, ValueError, TimeoutError):
        pass  # the client went away or sent too much: nothing to answer
    finally:
        writer.close()


def _answer(line: bytes, announce: Announce) -> dict[str, object]:
    try:
        request = json.loads(line)
    except ValueError:
        return {"error": "not a JSON request"}
    if not isinstance(request, dict) or request.get("command") not in ("announce", "health"):
        return {"error": "unknown command (this server knows: announce, health)"}
    if request["command"] == "health":
        return {"ok": True}
    text = announcement(str(request.get("text", "")))
    if not text:
        return {"error": "nothing to announce"}
    told = announce(text)
    event("announced", players=told, by="lovelet admin")
    return {"told": told, "text": text}


def send_announcement(data_dir: Path, text: str) -> int:
    """Ask the server running on `data_dir` to tell every connected player `text`; how many
    it told. ControlError if no server answers there, or it refuses."""
    reply = _ask(data_dir, {"command": "announce", "text": text})
    if "told" not in reply:
        raise ControlError(str(reply.get("error", "the server gave no answer")))
    return int(reply["told"])


def _ask(data_dir: Path, request: dict[str, object]) -> dict[str, object]:
    """The server's answer to one request (ControlError if none answers)."""
    path = control_path(data_dir)
    line = json.dumps(request).encode() + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(CLIENT_TIMEOUT)
            conn.connect(os.fspath(path))
            conn.sendall(line)
            reply = json.loads(conn.makefile("rb").readline() or b"{}")
    except (FileNotFoundError, ConnectionRefusedError):
        raise ControlError(
            f"no server is running on {data_dir} (nothing listens on {path}); run this where"
            " `lovelet serve` (or its core, when scaled) keeps its data directory"
        ) from None
    except (OSError, ValueError) as err:
        raise ControlError(f"the server on {data_dir} did not answer: {err}") from None
    return reply if isinstance(reply, dict) else {}


def main(argv: list[str]) -> int:
    """`python -m server.ops.control DATA_DIR`: 0 if the server keeping DATA_DIR answers
    (its event loop runs), else 1 with the reason on stderr."""
    if len(argv) != 1:
        print("usage: python -m server.ops.control DATA_DIR", file=sys.stderr)
        return 2
    try:
        healthy = _ask(Path(argv[0]), {"command": "health"}).get("ok") is True
    except ControlError as err:
        print(f"unhealthy: {err}", file=sys.stderr)
        return 1
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
