"""A lovelet bot that plays random legal moves over the bot API (docs/bot-api.md).

    python examples/random_bot.py --host localhost --port 2222 --key ~/.ssh/id_ed25519 robo
    lovelet arena --games 20 -- python examples/random_bot.py --stdio

Over SSH it opens a table with three easy bots, plays it, leaves and exits 0, so each run plays
a new game (`--join CODE` sits at a table someone opened instead). With `--stdio` it speaks on
stdin and stdout and plays every table it is seated at until stdin ends: that is how `lovelet
arena` runs it. `--json` speaks JSON lines (the `lovelet-json` subsystem) instead of msgpack.
Needs lovelet's `protocol` package (`pip install lovelet`) and, over SSH, asyncssh.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
from typing import TYPE_CHECKING, Any, TextIO

from protocol.client import Client

if TYPE_CHECKING:
    import asyncssh

TABLE = {"name": "random bot", "edition": "2019", "seats": 4, "timer": None}
OPTIONS = {"takeover": False, "private": False, "hints": None, "bot_level": None, "bot_delay": 0}
EASY_BOTS = [{"seat": seat, "level": "easy"} for seat in (1, 2, 3)]


def answer(client: Client, message: dict[str, Any], log: TextIO) -> bytes:
    """What to send back for one message: a random legal choice for each decision of ours
    (once each), and `continue_round` once each round is over. Refusals are said on `log`."""
    if message["type"] == "error":
        print("error:", message["code"], message["message"], file=log)
    if message["type"] != "table":
        return b""
    decision = client.decision(message)
    if decision is not None:
        return client.act(decision, random.choice(decision.choices))
    return client.next_round(message)


def play_stdio(client: Client) -> None:
    """Play every table the server seats us at, on stdin and stdout, until stdin ends."""
    os.write(1, client.hello())
    while data := os.read(0, 65536):
        for message in client.feed(data):
            if reply := answer(client, message, sys.stderr):  # stdout carries the protocol
                os.write(1, reply)


async def play_ssh(client: Client, args: argparse.Namespace) -> None:
    """Sign in over SSH, open (or join) a table, play it, leave."""
    import asyncssh  # only over SSH

    subsystem = "lovelet-json" if args.json else "lovelet"
    async with asyncssh.connect(
        args.host, args.port, username=args.name, client_keys=[args.key], known_hosts=None
    ) as conn:
        writer, reader, _ = await conn.open_session(subsystem=subsystem, encoding=None)
        writer.write(client.hello())
        if args.join:
            writer.write(client.send({"type": "join", "code": args.join}))
        else:
            table = {"type": "create_table", **TABLE, "bots": EASY_BOTS, **OPTIONS}
            writer.write(client.send_all([table, {"type": "start"}]))
        while data := await reader.read(65536):
            for message in client.feed(data):
                if message["type"] == "welcome":
                    print("signed in as", message["name"])
                elif message["type"] == "table" and message["info"]["status"] == "finished":
                    await leave(client, message, writer, reader)
                    return
                writer.write(answer(client, message, sys.stdout))
    raise SystemExit("the server closed the session before the game was over")


async def leave(
    client: Client,
    table: dict[str, Any],
    writer: asyncssh.SSHWriter[bytes],
    reader: asyncssh.SSHReader[bytes],
) -> None:
    """Say who won, give the seat up (so a next run starts afresh) and end the session."""
    winners = [table["info"]["seats"][seat]["name"] for seat in table["view"]["game_winners"]]
    print("game over, winners:", ", ".join(winners))
    writer.write(client.send({"type": "leave"}))
    writer.write_eof()  # then the server answers what we sent and closes
    await reader.read()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", default="robo", help="your nickname (the SSH user)")
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=2222)
    parser.add_argument("--key", help="the SSH private key that is your identity")
    parser.add_argument("--join", metavar="CODE", help="join this table instead of opening one")
    parser.add_argument("--stdio", action="store_true", help="speak on stdin/stdout (the arena)")
    parser.add_argument("--json", action="store_true", help="JSON lines instead of msgpack")
    args = parser.parse_args()
    client = Client(args.name, json=args.json)
    if args.stdio:
        play_stdio(client)
    elif args.key is None:
        parser.error("--key is needed over SSH")
    else:
        asyncio.run(play_ssh(client, args))


if __name__ == "__main__":
    main()
