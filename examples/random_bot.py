"""A lovelet bot that plays random legal moves over the bot API (docs/bot-api.md).

    python examples/random_bot.py --host localhost --port 2222 --key ~/.ssh/id_ed25519 robo

Needs only `pip install asyncssh msgpack`. Leaves the table and exits 0 when the game is over,
so each run plays a new game.
"""

import argparse
import asyncio
import random
import struct

import asyncssh
import msgpack

PROTOCOL_VERSION = 14


async def send(writer: asyncssh.SSHWriter, message: dict) -> None:
    payload = msgpack.packb(message)
    writer.write(struct.pack(">I", len(payload)) + payload)  # 4-byte big-endian length first
    await writer.drain()


async def receive(reader: asyncssh.SSHReader) -> dict:
    (size,) = struct.unpack(">I", await reader.readexactly(4))
    return msgpack.unpackb(await reader.readexactly(size))


async def play(args: argparse.Namespace) -> None:
    async with asyncssh.connect(
        args.host, args.port, username=args.name, client_keys=[args.key], known_hosts=None
    ) as conn:
        writer, reader, _ = await conn.open_session(subsystem="lovelet", encoding=None)
        await send(writer, {"type": "hello", "version": PROTOCOL_VERSION, "name": args.name})
        welcome = await receive(reader)
        if welcome["type"] != "welcome":
            raise SystemExit(f"refused: {welcome}")
        print("signed in as", welcome["name"])
        if args.join:
            await send(writer, {"type": "join", "code": args.join})
        else:
            bots = [{"seat": seat, "level": "easy"} for seat in (1, 2, 3)]
            table = {"name": "random bot", "edition": "2019", "seats": 4, "timer": None}
            options = {"takeover": False, "private": False, "hints": None, "bot_level": None}
            await send(writer, {"type": "create_table", **table, "bots": bots, **options})
            await send(writer, {"type": "start"})
        answered, continued = None, None
        while True:
            message = await receive(reader)
            if message["type"] == "error":
                print("error:", message["code"], message["message"])
            if message["type"] != "table":
                continue
            view, info = message["view"], message["info"]
            pending = view and view["pending"]
            if pending and view["choices"] and pending["decision"] != answered:
                choice = random.choice(view["choices"])  # each decision once, by its id
                await send(
                    writer, {"type": "act", "choice": choice, "decision": pending["decision"]}
                )
                answered = pending["decision"]
            if info["status"] == "round_over" and view["round"] != continued:
                await send(writer, {"type": "continue_round"})  # once a round
                continued = view["round"]
            if info["status"] == "finished":
                winners = [info["seats"][seat]["name"] for seat in view["game_winners"]]
                print("game over, winners:", ", ".join(winners))
                await send(writer, {"type": "leave"})  # give the seat up: a next run starts afresh
                writer.write_eof()  # then the server answers what we sent and closes
                await reader.read()
                return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="your nickname (the SSH username)")
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", type=int, default=2222)
    parser.add_argument("--key", required=True, help="the SSH private key that is your identity")
    parser.add_argument("--join", metavar="CODE", help="join this table instead of opening one")
    asyncio.run(play(parser.parse_args()))


if __name__ == "__main__":
    main()
