"""The `genial` command."""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
from collections.abc import Sequence

from genial import engine
from genial.bots import arena
from genial.client import ladder
from genial.client.play import command as play

from .settings import Settings
from .webhooks import dead_letters


def demo(kind: str, seats: int, seed: int | None) -> int:
    """Play one game between random players and narrate it."""
    rnd = random.Random(seed)
    game = engine.new_game(kind, seats, rnd.randbytes(16) if seed is not None else None)
    print(f"A game of {kind} for {seats} seats.")
    moves = 0
    while not game.is_over():
        seat = game.to_move
        assert seat is not None
        move = rnd.choice(game.legal_moves())
        game, events = game.apply(seat, move)
        moves += 1
        print(f"seat {seat}: {dict(move)}")
        for event in events:
            if event["type"] in ("round_over", "game_over"):
                print(f"  {event}")
    print(f"Over after {moves} moves. Standings:")
    for row in sorted(game.standings(), key=lambda r: r["rank"]):
        print(f"  {row['rank']}. seat {row['seat']} ({row['points']} points)")
    return 0


async def players(args: argparse.Namespace) -> int:
    """`genial players create-bot NAME` and `genial players revoke-bot-key KEY`."""
    from .players import bot_accounts  # noqa: PLC0415  (the store loads only when used)
    from .store import open_store  # noqa: PLC0415

    settings = Settings.load(args)
    store = open_store(settings)
    try:
        if args.action == "create-bot":
            player, key = await bot_accounts.create_bot(store, args.name)
            print(f"bot account {player} ({args.name})")
            print(f"API key (shown once; keep it secret): {key}")
            return 0
        if await bot_accounts.revoke_bot_key(store, settings, args.key):
            print("revoked: every worker refuses it within a second")
            return 0
        print("no such API key", file=sys.stderr)
        return 1
    finally:
        await store.close()


def build_parser() -> argparse.ArgumentParser:
    """The command line, every subcommand with its arguments."""
    parser = argparse.ArgumentParser(prog="genial", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("demo", help="watch random players play a game in the terminal")
    p.add_argument("--game", choices=sorted(engine.GAMES), default="cards")
    p.add_argument("--seats", type=int, default=3, choices=range(2, 5))
    p.add_argument("--seed", type=int, default=None)
    p = commands.add_parser(
        "arena", help="play bots against each other; win rates with 95%% intervals"
    )
    arena.add_arguments(p)
    p = commands.add_parser("serve", help="serve the API over gRPC and HTTP")
    Settings.add_arguments(p)
    p = commands.add_parser("webhooks", help="webhook notifications that failed: list, replay")
    dead_letters.add_arguments(p)
    p = commands.add_parser("play", help=play.DESCRIPTION)
    play.add_arguments(p)
    p = commands.add_parser("players", help="bot accounts: create one, revoke its API key")
    accounts = p.add_subparsers(dest="action", required=True)
    made = accounts.add_parser("create-bot", help="create a bot account; prints its API key once")
    made.add_argument("name", help="the bot's display name")
    revoked = accounts.add_parser("revoke-bot-key", help="revoke a bot account's API key")
    revoked.add_argument("key", help="the API key, or its key id (after gbk_, before the dot)")
    for each in (made, revoked):
        each.add_argument("--redis-url", help="the store (env GENIAL_REDIS_URL)")
        each.add_argument("--redis-cluster", action="store_true", default=None)
    p = commands.add_parser(
        "ladder", help="the built-in bots on a server's ladder; their ratings, with uncertainty"
    )
    ladder.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        from .server import run  # noqa: PLC0415  (grpc and redis load only when serving)

        run(Settings.load(args))
        return 0
    if args.command == "arena":
        return arena.main(args)
    if args.command == "webhooks":
        return dead_letters.main(args)
    if args.command == "play":
        return play.run(args)
    if args.command == "ladder":
        return ladder.main(args)
    if args.command == "players":
        return asyncio.run(players(args))
    return demo(args.game, args.seats, args.seed)


if __name__ == "__main__":
    sys.exit(main())
