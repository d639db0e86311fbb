"""`genial play`: a terminal client for people, over gRPC.

It shows the table the way the rulebooks picture it (each player's scoring board and open
cards; the dice in front of each player and the score sheets; the centre, the collection
zone and the collections), lists the legal moves with one key each, and follows the other
players' moves live. Play against the service's bots (`genial play cards --bots 3`), or
with people: `genial play dice --seats 3` shows a game id, and each friend runs
`genial play --join GAME_ID`.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Footer, Header, RichLog, Static

from genial.client import (
    DEFAULT_TARGET,
    GenialClient,
    GenialError,
    Kind,
    Seat,
    Strength,
    kind_name,
)
from genial.v1 import cards_pb2, dice_pb2, tiles_pb2
from genial.v1 import types_pb2 as types

KEYS = "123456789abcdefghijklmnoprstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""One key per legal move, in the order the service lists them (`q` quits). The dice game
offers up to 50 moves (joker choices), so single characters run past the digits."""

COLORS = ("red", "green", "blue", "orange", "yellow", "purple")
"""The colours in the proto's Color order: Color value n is COLORS[n - 1]."""
TERMINAL_COLORS = {
    "red": "red",
    "green": "green",
    "blue": "blue",
    "orange": "dark_orange",
    "yellow": "yellow",
    "purple": "magenta",
}
STYLES = {color: f"bold {name}" for color, name in TERMINAL_COLORS.items()}
COLOR_ORDERED = {"markers", "sheet", "centre", "collection", "crosses", "lost", "tiles"}
"""The repeated int fields that count something per colour, in Color order."""
CARDS_TRACK = 10
"""The last column of a scoring board in the card game."""


# ---- words and pictures ---------------------------------------------------------------------


def descriptor(message: Message) -> Descriptor:
    # The stubs type DESCRIPTOR as a union with the C implementation's class.
    return cast(Descriptor, message.DESCRIPTOR)


def swatch(color: str, glyph: str = "■") -> Text:
    return Text(glyph, style=STYLES[color])


def chip(color: str) -> Text:
    """A die, a tile or half a card: a block of its colour with the colour's initial, which
    tells the colours apart on a terminal without colours too."""
    return Text(f" {color[0].upper()} ", style=f"bold black on {TERMINAL_COLORS[color]}")


def chips(colors: Iterable[int]) -> Text:
    """Chips for Color values; "-" for none."""
    return Text(" ").join(chip(COLORS[c - 1]) for c in colors) or Text("-")


def colored_word(word: str) -> Text:
    """An enum value's word, its colours in colour: "red-green" (a card) shows both."""
    parts = [Text(part, style=STYLES.get(part, "")) for part in word.split("-")]
    return Text("-").join(parts)


def enum_word(enum: EnumDescriptor, value: int) -> str:
    """An enum value as the engine names it (the proto's convention: the enum's name in
    UPPER_SNAKE_CASE, then the engine's word): COLOR_RED is "red", CARD_RED_GREEN
    "red-green"."""
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
    return enum.values_by_number[value].name.removeprefix(prefix).lower().replace("_", "-")


def cards_text(cards: Iterable[int]) -> Text:
    """Cards as their two colours side by side."""
    pictures = []
    for card in cards:
        first, second = enum_word(cards_pb2.Card.DESCRIPTOR, card).split("-")
        pictures.append(chip(first) + chip(second))
    return Text(" ").join(pictures)


def member(message: Message) -> tuple[str, Message]:
    """The innermost member of a tagged union and its name: Move(dice=DiceMove(score=...))
    is ("score", DiceScore), Event(round_over=...) is ("round_over", RoundOver)."""
    name = ""
    while len(oneofs := descriptor(message).oneofs) == 1:
        chosen = message.WhichOneof(oneofs[0].name)
        if chosen is None:
            break
        # A game's own member ("cards", "dice", "tiles") says nothing its contents don't.
        name = chosen if chosen not in ("cards", "dice", "tiles") else name
        message = getattr(message, chosen)
    return name, message


def value_text(field: FieldDescriptor, value: object) -> Text:
    if field.enum_type is not None:
        assert isinstance(value, int)
        return colored_word(enum_word(field.enum_type, value))
    if isinstance(value, Message):
        return Text("(") + fields_text(value, skip_seat=False) + Text(")")
    return Text(str(value))


def fields_text(message: Message, *, skip_seat: bool = True) -> Text:
    """A message's fields as words, empty ones left out: "card red-green first red"."""
    parts: list[Text] = []
    for field in descriptor(message).fields:
        if field.name == "seat" and skip_seat:
            continue  # the actor is named before the event
        value = getattr(message, field.name)
        words: Text | None = None
        if field.is_repeated and field.name in COLOR_ORDERED:
            counts = [Text(f"{c} {n}", STYLES[c]) for c, n in zip(COLORS, value, strict=True) if n]
            words = Text(", ").join(counts) if counts else None
        elif field.is_repeated:
            words = Text(", ").join(value_text(field, item) for item in value) if value else None
        elif field.type == FieldDescriptor.TYPE_BOOL:
            if value:
                parts.append(Text(field.name.replace("_", " ")))
        elif field.message_type is not None:
            words = value_text(field, value) if message.HasField(field.name) else None
        elif value:
            words = value_text(field, value)
        if words is not None:
            parts.append(Text(f"{field.name.replace('_', ' ')} ") + words)
    return Text(" ").join(parts)


def describe(message: Message) -> Text:
    """A move or an event in words: "play card red-green first red"."""
    name, inner = member(message)
    words = fields_text(inner)
    return Text(name.replace("_", " ")) + (Text(" ") + words if words else Text())


def seat_name(view: types.GameView, seat: int) -> str:
    """The name a seat joined with, with its number when another seat has the same one (the
    service names bots by strength)."""
    name = view.players[seat].display_name if seat < len(view.players) else ""
    if not name:
        return f"seat {seat}"
    twins = sum(player.display_name == name for player in view.players)
    return f"{name} {seat}" if twins > 1 else name


def player_header(view: types.GameView, seat: int) -> Text:
    text = Text(seat_name(view, seat), style="bold")
    if view.HasField("viewer") and view.viewer == seat:
        text.append(" (you)", style="italic")
    if seat < len(view.points) and any(view.points):
        text.append(f"  {view.points[seat]} VP")
    if view.HasField("to_move") and view.to_move == seat:
        text.append("  ◀ to move", style="reverse")
    return text


def bar(filled: int, length: int, color: str) -> Text:
    return swatch(color, "■" * filled) + Text("·" * max(0, length - filled), style="dim")


def colour_rows(graphics: Iterable[Text], counts: Iterable[int | Text]) -> Table:
    """One row per colour, as on the boards and sheets: the name, a picture, a number."""
    rows = Table.grid(padding=(0, 1))
    for color, graphic, count in zip(COLORS, graphics, counts, strict=True):
        rows.add_row(
            Text(color, STYLES[color]), graphic, count if isinstance(count, Text) else str(count)
        )
    return rows


def layout(top: list[Text], players: list[RenderableType], bottom: list[Text]) -> RenderableType:
    """What the table shows first, the players side by side as far as the width allows, and
    what comes after them."""
    return Group(*top, Text(), Columns(players, padding=(1, 4)), *bottom)


def cards_table(view: types.GameView) -> RenderableType:
    """Each player's scoring board (a marker per colour, columns 0-10) and open cards."""
    table = view.cards
    phase = enum_word(cards_pb2.CardsPhase.DESCRIPTOR, table.phase)
    bonus = f" · bonus plays {table.bonus_plays}" if table.bonus_plays else ""
    players: list[RenderableType] = []
    for player in table.players:
        markers = (
            bar(column, CARDS_TRACK, c) for c, column in zip(COLORS, player.markers, strict=True)
        )
        players.append(
            Group(
                player_header(view, player.seat) + Text(f"   hand {player.hand_size}"),
                Text("open ") + cards_text(player.open_cards),
                colour_rows(markers, player.markers),
            )
        )
    hand = [Text(), Text("your hand ") + cards_text(table.hand)] if table.hand else []
    top = [Text(f"deck {table.deck_size} · discard {table.discard_size} · {phase}{bonus}")]
    return layout(top, players, hand)


def dice_table(view: types.GameView) -> RenderableType:
    """The dice in front of each player, and each player's score sheet by section."""
    table = view.dice
    phase = enum_word(dice_pb2.DicePhase.DESCRIPTOR, table.phase)
    players: list[RenderableType] = []
    for player in table.players:
        rows = []
        for color, crosses in zip(COLORS, player.sheet, strict=True):
            boxes, left = [], crosses
            for size in table.sections:
                boxes.append(swatch(color, "✕" * min(left, size)) + Text("□" * max(0, size - left)))
                left = max(0, left - size)
            rows.append(Text("│").join(boxes))
        players.append(
            Group(
                player_header(view, player.seat),
                Text("dice ") + chips(player.dice),
                colour_rows(rows, player.sheet),
            )
        )
    return layout([Text(f"{phase} · rerolls left {table.rerolls_left}")], players, [])


def tiles_table(view: types.GameView) -> RenderableType:
    """The centre, the collection zone, and each player's collection against the line."""
    table = view.tiles
    phase = enum_word(tiles_pb2.TilesPhase.DESCRIPTOR, table.phase)
    bonus = f" · bonus moves {table.bonus_moves}" if table.bonus_moves else ""
    centre = [value for value, n in enumerate(table.centre, 1) for _ in range(n)]
    players: list[RenderableType] = []
    for player in table.players:
        tracks = (
            bar(n, table.line_length, c) for c, n in zip(COLORS, player.collection, strict=True)
        )
        counts = (
            Text(str(n)) + (Text(" line", style="bold") if value in player.lines else Text())
            for value, n in enumerate(player.collection, 1)
        )
        players.append(Group(player_header(view, player.seat), colour_rows(tracks, counts)))
    top = [
        Text(f"reserve {table.reserve_size} · {phase}{bonus}"),
        Text("centre ") + chips(centre),
        Text("zone   ") + chips(table.zone),
    ]
    return layout(top, players, [])


TABLES = {"cards": cards_table, "dice": dice_table, "tiles": tiles_table}


def table_picture(view: types.GameView) -> RenderableType:
    kind = view.WhichOneof("table")
    return TABLES[kind](view) if kind else Text("")


def status_text(view: types.GameView, seat: int, note: str) -> Text:
    if view.status == types.GAME_STATUS_WAITING:
        text = Text(f"Waiting for players: others join with  genial play --join {view.game_id}")
    elif view.status == types.GAME_STATUS_FINISHED:
        ranks = ", ".join(
            f"{s.rank}. {seat_name(view, s.seat)} ({s.points} VP)"
            for s in sorted(view.standings, key=lambda s: s.rank)
        )
        text = Text("Game over: ", style="bold") + Text(ranks) + Text("   press q to quit")
    elif view.to_move == seat:
        text = Text(f"Move {view.version + 1}: your turn, press a move's key", style="bold")
    else:
        text = Text(f"Move {view.version + 1}: {seat_name(view, view.to_move)} is playing")
    return text + Text(f"\n{note}", style="italic") if note else text


# ---- the app --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Game:
    """What to play: a new game (`kind`, the bots and the seats), or one to `join`."""

    kind: Kind | None
    bots: int = 0
    strength: Strength = "greedy"
    seats: int | None = None
    join: str | None = None
    seat: int | None = None
    name: str = "player"


class PlayApp(App[None]):
    """The table, the moves with their keys, and the log of what happened."""

    TITLE = "genial"
    CSS = """
    #table-box { width: 3fr; padding: 0 1; }
    #side { width: 2fr; }
    #status { height: auto; padding: 0 1; background: $boost; }
    #moves { height: auto; max-height: 50%; padding: 0 1; }
    #log { border-top: solid $primary; padding: 0 1; }
    """
    BINDINGS = [Binding("q", "quit", "quit")]

    def __init__(self, target: str, game: Game) -> None:
        super().__init__()
        self.target = target
        self.game = game
        self.seat: Seat | None = None
        self.view = types.GameView()
        self.moves: list[types.Move] = []
        self.moves_version = -1
        """The version the listed moves are legal at: a move is sent expecting it."""
        self.moving = False
        self.note = ""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal():
            with VerticalScroll(id="table-box"):
                yield Static(id="table")
            with Vertical(id="side"):
                yield Static(id="status")
                yield Static(id="moves")
                yield RichLog(id="log", wrap=True, min_width=20)
        yield Footer()

    def on_mount(self) -> None:
        self.follow()

    @work(exclusive=True, group="follow")
    async def follow(self) -> None:
        """Sit down, then follow the game until it is over."""
        client = GenialClient.connect(self.target)
        try:
            self.seat = seat = await self.sit_down(client)
            view = await seat.view()
            self.sub_title = f"{kind_name(view.kind)} · game {seat.game_id} · seat {seat.seat}"
            await self.show(view)
            async for update in seat.watch():
                log = self.query_one("#log", RichLog)
                for event in update.events:
                    log.write(self.event_line(update.view, event))
                await self.show(update.view)
        except GenialError as err:
            hint = " (is `genial serve` running there?)" if err.code.name == "UNAVAILABLE" else ""
            self.exit(return_code=1, message=f"genial play: {self.target}: {err}{hint}")
        finally:
            await client.close()

    async def sit_down(self, client: GenialClient) -> Seat:
        game = self.game
        if game.join:
            return await client.join(game.join, game.name, seat=game.seat)
        assert game.kind is not None
        seats = max(game.seats or 2, game.bots + 1)
        bots = dict.fromkeys(range(1, game.bots + 1), game.strength)
        created = await client.create(game.kind, seats, bots=bots)
        return await client.join(created.game_id, game.name, seat=0)

    def event_line(self, view: types.GameView, event: types.Event) -> Text:
        _, inner = member(event)
        seat = descriptor(inner).fields_by_name.get("seat")
        who = f"{seat_name(view, getattr(inner, seat.name))}: " if seat else ""
        return Text(who, style="bold") + describe(event)

    async def show(self, view: types.GameView) -> None:
        """Draw `view` unless a newer one is drawn already, and list the moves it allows."""
        if view.version < self.view.version:
            return
        self.view = view
        self.query_one("#table", Static).update(table_picture(view))
        await self.list_moves()

    async def list_moves(self) -> None:
        assert self.seat is not None
        view, seat = self.view, self.seat
        if view.status == types.GAME_STATUS_PLAYING and view.to_move == seat.seat:
            listed = await seat.client.legal_moves(seat.game_id, seat.token)
            # The game may have moved on while the list was asked for: keep only a list for
            # the view on the screen.
            if listed.version == self.view.version:
                self.moves, self.moves_version = list(listed.moves)[: len(KEYS)], listed.version
        else:
            self.moves = []
        self.query_one("#status", Static).update(status_text(self.view, seat.seat, self.note))
        self.query_one("#moves", Static).update(
            Text("\n").join(
                Text(f"[{key}] ", style="bold") + describe(move)
                for key, move in zip(KEYS, self.moves, strict=False)
            )
        )

    async def on_key(self, event: events.Key) -> None:
        if event.character is None or self.moving:
            return
        index = KEYS.find(event.character)
        if 0 <= index < len(self.moves):
            event.stop()
            self.make(self.moves[index])

    @work(group="move")
    async def make(self, move: types.Move) -> None:
        assert self.seat is not None
        self.moving, self.note = True, ""
        try:
            made = await self.seat.move(move, expected_version=self.moves_version)
        except GenialError as err:
            # Mostly STALE_VERSION: the game moved on (a turn timer ran out); list again.
            self.note = f"refused: {err.reason or err.code.name}: {err.message}"
            await self.list_moves()
        else:
            await self.show(made.view)
        finally:
            self.moving = False


# ---- the command ----------------------------------------------------------------------------


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
        "--target", default=DEFAULT_TARGET, help="the server's gRPC address, host:port"
    )


def game_of(args: argparse.Namespace) -> Game:
    if (args.kind is None) == (args.join is None):
        raise SystemExit("genial play: name a game to create (cards, dice, tiles) or --join one")
    return Game(args.kind, args.bots, args.strength, args.seats, args.join, args.seat, args.name)


def run(args: argparse.Namespace) -> int:
    """`genial play`: run the app until the player quits."""
    app = PlayApp(args.target, game_of(args))
    app.run()
    return app.return_code or 0
