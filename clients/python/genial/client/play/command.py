"""The command line of `genial play` (and of `genial-play`, its name in the genial-client
distribution). It loads Textual only to run the app, so that `genial` works without it."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from genial.client import DEFAULT_TARGET, Kind, Strength

from .mine import device_id, device_path, my_games
from .seats import SeatBook, default_path

MISSING_TEXTUAL = (
    "{prog} needs Textual, which comes with the `play` extra: "
    "pip install 'genial[play]' (or 'genial-client[play]' for the client alone)"
)
DESCRIPTION = "play a game in the terminal, against bots or people"
UI_PACKAGES = ("textual", "rich")
"""What the app imports beyond the SDK; both come with the `play` extra."""


@dataclass(frozen=True, slots=True)
class Game:
    """What to play: a new game (`kind`, the bots and the seats), a game to `join`, or a seat
    to `resume` with its `token`; as the guest of `device_id`, whose seats are bound to the
    player (then `resume` "" is the player's game where it is most awaited)."""

    kind: Kind | None = None
    bots: int = 0
    strength: Strength = "greedy"
    seats: int | None = None
    join: str | None = None
    seat: int | None = None
    name: str = "player"
    resume: str | None = None
    token: str | None = None
    device_id: str | None = None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kind", nargs="?", choices=["cards", "dice", "tiles"], help="the game to create"
    )
    parser.add_argument(
        "--bots", type=int, default=0, choices=range(4), help="seats for the service's bots"
    )
    parser.add_argument(
        "--strength",
        choices=["random", "greedy", "strong"],
        default="greedy",
        help="how well the bots play",
    )
    parser.add_argument(
        "--seats",
        type=int,
        choices=range(2, 5),
        help="seats in all (default: you and the bots, at least 2); open ones wait for people",
    )
    parser.add_argument("--join", metavar="GAME_ID", help="join a game rather than create one")
    parser.add_argument("--seat", type=int, help="with --join: the seat to take")
    parser.add_argument("--name", default="player", help="your name at the table")
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="GAME_ID",
        help="come back to a seat you hold (without GAME_ID: the one you sat down at last); "
        f"its token is kept in {default_path()}",
    )
    parser.add_argument(
        "--token", help="with --resume GAME_ID: the seat's player token, if it was not kept"
    )
    parser.add_argument(
        "--no-keep",
        dest="keep",
        action="store_false",
        help="do not keep the seat's token (the screen shows it, to come back with --token)",
    )
    parser.add_argument(
        "--guest",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="play as a guest player, signed in by this computer's device id (kept in "
        f"{device_path()}): your seats follow you from run to run, and --resume finds them; "
        "--no-guest: seat tokens only",
    )
    parser.add_argument(
        "--mine", action="store_true", help="list your games (as the guest) and exit"
    )
    parser.add_argument(
        "--target", help=f"the server's gRPC address, host:port (default: {DEFAULT_TARGET})"
    )
    parser.set_defaults(play_prog=parser.prog)


def game_of(args: argparse.Namespace, book: SeatBook) -> tuple[str, Game]:
    """The server to talk to and what to play there, from the command line; a seat to
    resume is looked up in `book`."""
    prog = args.play_prog
    if sum(x is not None for x in (args.kind, args.join, args.resume)) != 1:
        raise SystemExit(
            f"{prog}: name a game to create (cards, dice, tiles), or --join one, or --resume"
        )
    if args.token is not None and not args.resume:
        raise SystemExit(f"{prog}: --token needs --resume GAME_ID")
    if args.seat is not None and args.join is None:
        raise SystemExit(f"{prog}: --seat goes with --join")
    target = args.target or DEFAULT_TARGET
    if args.resume is None:
        return target, Game(
            args.kind,
            args.bots,
            args.strength,
            args.seats,
            args.join,
            args.seat,
            args.name,
            device_id=device_id(device_path()) if args.guest else None,
        )
    if args.token is not None:
        return target, Game(resume=args.resume, token=args.token)
    kept = book.find(args.resume or None, args.target)
    if kept is not None:
        return kept.target, Game(resume=kept.game_id, token=kept.token)
    if args.guest:  # the guest's seats are found by the server
        return target, Game(resume=args.resume, device_id=device_id(device_path()))
    which = f"game {args.resume}" if args.resume else "any game"
    raise SystemExit(
        f"{prog}: no seat of {which} is kept in {book.path}; pass --resume GAME_ID --token"
    )


def resume_command(prog: str, target: str, game_id: str, token: str | None) -> str:
    """The command that brings a player back to the seat: with its token, when that is not
    kept."""
    words = [prog, "--resume", game_id]
    if token is not None:
        words += ["--token", token]
        if target != DEFAULT_TARGET:
            words += ["--target", target]
    return " ".join(words)


def run(args: argparse.Namespace) -> int:
    """`genial play`: run the app until the player quits (or list the player's games)."""
    if args.mine:
        if not args.guest:
            raise SystemExit(f"{args.play_prog}: --mine lists a guest's games: drop --no-guest")
        target = args.target or DEFAULT_TARGET
        print(asyncio.run(my_games(target, device_id(device_path()), args.play_prog)))
        return 0
    try:
        from .app import PlayApp  # noqa: PLC0415  (Textual loads only to play)
    except ImportError as err:
        if (err.name or "").partition(".")[0] not in UI_PACKAGES:
            raise
        raise SystemExit(MISSING_TEXTUAL.format(prog=args.play_prog)) from None
    book = SeatBook(default_path())
    target, game = game_of(args, book)
    app = PlayApp(target, game, book if args.keep else None, prog=args.play_prog)
    app.run()
    return app.return_code or 0


def main(argv: Sequence[str] | None = None) -> int:
    """`genial-play`, the same command on its own."""
    parser = argparse.ArgumentParser(prog="genial-play", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
