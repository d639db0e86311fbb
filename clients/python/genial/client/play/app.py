"""The terminal client's app: the table, the legal moves with one key each, and the log of
what happened, following the game live over gRPC.

It shows the table the way the rulebooks picture it (each player's scoring board with its
areas and open cards; the dice in front of each player and the score sheets; the centre,
the collection zone and the collections), and keeps the seat's token so that a player who
quits can come back (`genial play --resume`).
"""

from __future__ import annotations

from collections.abc import Iterable

from grpc import StatusCode
from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Footer, Header, RichLog, Static

from genial.client import GenialClient, GenialError, Seat, kind_name
from genial.v1 import types_pb2 as types

from .command import Game, resume_command
from .narrate import event_words, move_words, status_text, table_picture
from .seats import KeptSeat, SeatBook

KEYS = "123456789abcdefghijklmnoprstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""One key per legal move, in the order the service lists them (`q` quits). The dice game
offers up to 50 moves (joker choices), so single characters run past the digits."""

LOST_SEAT = {"GAME_NOT_FOUND", "TOKEN_INVALID"}
"""Refusals after which a kept seat is of no use: the game expired, or the token is not its."""


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

    def __init__(
        self, target: str, game: Game, book: SeatBook | None = None, *, prog: str = "genial play"
    ) -> None:
        """Play `game` on the server at `target`; keep the seat in `book`, if given."""
        super().__init__()
        self.target = target
        self.game = game
        self.book = book
        self.prog = prog
        self.seat: Seat | None = None
        self.view = types.GameView()
        self.moves: list[types.Move] = []
        self.moves_version = -1
        """The version the listed moves are legal at: a move is sent expecting it."""
        self.moving = False
        self.note = ""
        self.failure = ""
        """Why the app stopped, if it could not go on."""

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
            if self.book is not None and isinstance(seat.token, str):  # a player's: no token
                name = view.players[seat.seat].display_name
                self.book.keep(KeptSeat(self.target, seat.game_id, seat.seat, seat.token, name))
            self.sub_title = f"{kind_name(view.kind)} · game {seat.game_id} · seat {seat.seat}"
            self.log_events(view, view.last_events)
            await self.show(view)
            async for update in seat.watch():
                self.log_events(update.view, update.events)
                await self.show(update.view)
        except GenialError as err:
            if self.game.resume and self.book and err.reason in LOST_SEAT:
                self.book.forget(self.target, self.game.resume)
            self.failure = f"{self.prog}: {self.target}: {self.explain(err)}"
            self.exit(return_code=1, message=self.failure)
        except NoMatches:
            # The app was closed while an answer was on its way: its widgets are gone, and
            # there is nothing left to draw.
            pass
        finally:
            await client.close()

    def explain(self, err: GenialError) -> str:
        if err.code.name == "UNAVAILABLE":
            return f"{err} (is `genial serve` running there?)"
        if err.reason == "TOKEN_INVALID":
            return f"{err} (the token does not hold a seat of game {self.game.resume})"
        return str(err)

    async def sit_down(self, client: GenialClient) -> Seat:
        game = self.game
        if game.device_id is not None and game.token is None:
            return await self.sit_down_as_guest(client, game.device_id)
        if game.resume is not None:
            assert game.token is not None
            view = await client.view(game.resume, game.token)
            seat = Seat(client, game.resume, view.viewer, game.token, view.version)
        elif game.join:
            seat = await client.join(game.join, game.name, seat=game.seat)
        else:
            assert game.kind is not None
            seats = max(game.seats or 2, game.bots + 1)
            bots = dict.fromkeys(range(1, game.bots + 1), game.strength)
            created = await client.create(game.kind, seats, bots=bots)
            seat = await client.join(created.game_id, game.name, seat=0)
        return seat

    async def sit_down_as_guest(self, client: GenialClient, device: str) -> Seat:
        """The guest's seat: taken now, or found again (by game, or the most awaited)."""
        game = self.game
        me = await client.sign_in_as_guest(device)
        if game.resume == "":
            async for mine in me.my_games():
                if mine.status != types.GAME_STATUS_FINISHED:
                    return me.seat(mine)
            raise GenialError(StatusCode.NOT_FOUND, "GAME_NOT_FOUND", "you have no game to resume")
        if game.resume is not None:
            return await me.join(game.resume)  # the seat the player holds, again
        if game.join:
            return await me.join(game.join, game.name, seat=game.seat)
        assert game.kind is not None
        seats = max(game.seats or 2, game.bots + 1)
        bots = dict.fromkeys(range(1, game.bots + 1), game.strength)
        created = await client.create(game.kind, seats, bots=bots)
        return await me.join(created.game_id, game.name, seat=0)

    def log_events(self, view: types.GameView, happened: Iterable[types.Event]) -> None:
        log = self.query_one("#log", RichLog)
        for event in happened:
            log.write(event_words(event, view))

    async def show(self, view: types.GameView) -> None:
        """Draw `view` unless a newer one is drawn already, and list the moves it allows."""
        if view.version < self.view.version:
            return
        self.view = view
        self.query_one("#table", Static).update(table_picture(view))
        if view.status == types.GAME_STATUS_FINISHED and self.book is not None:
            self.book.forget(self.target, view.game_id)
        await self.list_moves()

    def comeback(self) -> str:
        """How to come back to the seat, while the game is on ("" when it is over)."""
        if self.seat is None or self.view.status == types.GAME_STATUS_FINISHED:
            return ""
        token = self.seat.token if isinstance(self.seat.token, str) else None
        token = None if self.book is not None else token
        command = resume_command(self.prog, self.target, self.seat.game_id, token)
        return f"game {self.seat.game_id}: come back to your seat with  {command}"

    async def action_quit(self) -> None:
        """Leave, saying how to come back."""
        comeback = self.comeback()
        self.exit(message=f"You left {comeback}" if comeback else None)

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
        note = Text(f"\n{self.note}", style="italic") if self.note else Text()
        self.query_one("#status", Static).update(
            status_text(self.view, seat.seat, self.prog)
            + note
            + Text(f"\nq quits; {comeback}" if (comeback := self.comeback()) else "", style="dim")
        )
        self.query_one("#moves", Static).update(
            Text("\n").join(
                Text(f"[{key}] ", style="bold") + move_words(move, self.view)
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
