"""`run_bot`: a bot that plays online, on the ladder, with the built-in bots' signature.

::

    from genial.bots import make_bot
    from genial.client.bot import run_bot

    bots = {kind: make_bot(kind, "greedy", seed=1) for kind in ("dice", "tiles")}
    asyncio.run(run_bot(lambda view, moves: bots[view["kind"]].choose(view, moves),
                        device_id="my-bot-0123456789abcdef", name="My bot",
                        kinds=("dice", "tiles"), rated=True))

`choose(view, legal_moves)` gets what a built-in bot's `choose` gets: the seat's view and
its legal moves in the engine's shape (dicts); the view converted from the API's message by
`genial.service.convert.engine_view` (public, and tested against the service's own views),
the moves the engine's for that view (`legal_moves`); it returns one of the moves. So an
arena bot goes online unchanged.
This module needs the `genial` distribution (the converter, and the engine your bot likely
uses); the rest of the SDK needs only `genial-client`.

The bot signs in (a bot account by its API key, from `genial players create-bot`; or a
guest by its device id: the same id is the same player, with the same ratings), keeps a
ticket open per kind (FindMatch), hears of its games on WatchPlayer (reconnecting by
itself), plays every game it sits at, many at once, and comes back to its live games
after a restart. Once it finished `games` games, or when `finish` is set, it withdraws its
tickets and returns when the games it is in are over; when `stop` is set (for instance by
a signal handler: `loop.add_signal_handler(SIGTERM, stop.set)`), it withdraws its tickets
and leaves its games at once (it comes back to them when it runs again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from genial import engine
from genial.service.convert import engine_move, engine_view, proto_move
from genial.v1 import match_service_pb2 as mm
from genial.v1 import match_service_pb2_grpc as mm_grpc
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types

from .client import DEFAULT_TARGET, GenialClient, Kind, kind_name, kind_value
from .errors import GenialError
from .player import PlayerSession
from .seat import Seat

log = logging.getLogger("genial.client.bot")

Choose = Callable[[dict[str, Any], list[dict[str, Any]]], Mapping[str, Any]]
"""A bot's choice: the seat's view and its legal moves (engine shapes) to one of the moves."""
POLL_SECONDS = 1.0
"""How often the bot looks at its tickets (a matched one is opened again)."""
RETRY_SECONDS = (0.5, 10.0)
REFUSED_MOVE = frozenset({grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION})
"""How the server refuses a move that is not legal (the engine's reasons)."""


def legal_moves(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal moves of the seat a view (engine shape, `engine_view`) is shown to, when
    it is that seat's turn, as the server lists them: the engine's moves of a state dealt
    from the view, which depend on nothing the view hides (tested on every position of
    random games of each kind)."""
    # The hidden parts are dealt from a fixed seed: they never change the seat's moves.
    return engine.from_view(view, engine.Rng(bytes(16))).legal_moves()


@dataclass
class BotStats:
    """What a bot did: the games it finished, and the moves it made."""

    games: int = 0
    moves: int = 0
    finished: list[str] = field(default_factory=list)


async def run_bot(
    choose: Choose,
    *,
    device_id: str = "",
    api_key: str = "",
    name: str = "",
    target: str = DEFAULT_TARGET,
    kinds: Sequence[Kind] = ("dice",),
    rated: bool = True,
    min_seats: int = 2,
    max_seats: int = 4,
    accept_bots: bool = False,
    options: types.GameOptions | None = None,
    games: int | None = None,
    at_once: int = 4,
    stop: asyncio.Event | None = None,
    finish: asyncio.Event | None = None,
    stats: BotStats | None = None,
    client: GenialClient | None = None,
) -> BotStats:
    """Play online, at most `at_once` games at a time (a worker serves a bounded number of
    watches to one address), until `games` games are finished (None: no bound) or `finish`
    is set, and the games in progress then are over; or until `stop` is set. What the bot
    did (`stats`, if given, is kept up to date as it plays). See the module's docstring."""
    own = client is None
    client = client or GenialClient.connect(target)
    try:
        if bool(device_id) == bool(api_key):
            raise ValueError("run_bot signs in by a device_id or by an api_key: one of them")
        if api_key:
            me = PlayerSession.with_api_key(client, api_key)
        else:
            me = await client.sign_in_as_guest(device_id, name)
        ends = (stop or asyncio.Event(), finish or asyncio.Event())
        bot = _Bot(client, me, choose, ends, games, stats or BotStats(), at_once)
        asks = [
            mm.FindMatchRequest(
                kind=kind_value(kind),
                min_seats=min_seats,
                max_seats=max_seats,
                options=options,
                rated=rated,
                accept_bots=accept_bots,
            )
            for kind in kinds
        ]
        await bot.run(asks)
        return bot.stats
    finally:
        if own:
            await client.close()


class _Bot:
    def __init__(
        self,
        client: GenialClient,
        me: PlayerSession,
        choose: Choose,
        ends: tuple[asyncio.Event, asyncio.Event],
        games: int | None,
        stats: BotStats,
        most: int,
    ) -> None:
        self.client = client
        self.me = me
        self.choose = choose
        self.stop, self.finish = ends
        self.budget = games
        self.most = most
        self.stats = stats
        self.playing: dict[str, asyncio.Task[None]] = {}
        self.done: set[str] = set()
        self.tickets: dict[int, str] = {}
        self._stub = mm_grpc.MatchServiceStub(client.channel)  # type: ignore[no-untyped-call]

    def _enough(self) -> bool:
        return self.budget is not None and self.stats.games >= self.budget

    async def run(self, asks: list[mm.FindMatchRequest]) -> None:
        watch = asyncio.create_task(self._watch())
        try:
            while not self.stop.is_set():
                pause = POLL_SECONDS
                if self._enough() or self.finish.is_set():
                    await self._withdraw()
                    if not self.playing:
                        return
                else:
                    try:
                        await self._tickets(asks)
                    except GenialError as err:  # again at the next look, not before it may
                        log.warning("tickets: %s", err)
                        pause = max(POLL_SECONDS, err.retry_after or 0.0)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.stop.wait(), pause)
        finally:
            watch.cancel()
            with contextlib.suppress(GenialError):
                await self._withdraw()
            for task in self.playing.values():
                task.cancel()
            await asyncio.gather(watch, *self.playing.values(), return_exceptions=True)

    async def _withdraw(self) -> None:
        """Cancel the tickets; a game one was matched to first is played."""
        for kind, ticket_id in list(self.tickets.items()):
            got = await self._call("CancelMatch", mm.CancelMatchRequest(ticket_id=ticket_id))
            del self.tickets[kind]
            if got.ticket.status == mm.TICKET_STATUS_MATCHED:
                self._play(got.ticket.game_id)

    async def _call(self, method: str, request: Any) -> Any:
        return await self.client._unary(getattr(self._stub, method), request, self.me)

    async def _tickets(self, asks: list[mm.FindMatchRequest]) -> None:
        """Every kind with a ticket waiting (while games remain to play); a matched ticket's
        game played."""
        for ask in asks:
            ticket_id = self.tickets.get(ask.kind)
            if ticket_id is not None:
                got = await self._call(
                    "GetMatchTicket", mm.GetMatchTicketRequest(ticket_id=ticket_id)
                )
                if got.ticket.status == mm.TICKET_STATUS_WAITING:
                    continue
                del self.tickets[ask.kind]
                if got.ticket.status == mm.TICKET_STATUS_MATCHED:
                    self._play(got.ticket.game_id)
            if len(self.playing) >= self.most or (
                self.budget is not None and self.stats.games + len(self.playing) >= self.budget
            ):
                continue  # enough games under way
            found = await self._call("FindMatch", ask)
            self.tickets[ask.kind] = found.ticket.ticket_id

    async def _watch(self) -> None:
        """Every game the player's feed names, played (its live games first)."""
        async for answer in self.me.watch():
            if answer.HasField("games"):
                for game in answer.games.games:
                    self._play(game.game_id)
            elif answer.event.type in (
                pb.PLAYER_EVENT_TYPE_GAME_STARTED,
                pb.PLAYER_EVENT_TYPE_YOUR_TURN,
            ):
                self._play(answer.event.game_id)

    def _play(self, game_id: str) -> None:
        if game_id not in self.playing and game_id not in self.done:
            self.playing[game_id] = asyncio.create_task(self._game(game_id))

    async def _game(self, game_id: str) -> None:
        """Play one game to its end on one watch of it: act on each view it brings (a move's
        answer brings the next view of the bot's own turn), and look again after errors (a
        worker gone, a bot that failed; a rate limit for as long as it says). A move costs
        one call (`_act`), which keeps a bot playing many games at once under the
        per-player rate limit longer."""
        backoff = RETRY_SECONDS[0]
        try:
            while True:
                try:
                    view = await self.client.view(game_id, self.me)
                    seat = Seat(self.client, game_id, view.viewer, self.me, view.version)
                    if await self._act(seat, view):
                        return
                    async for update in seat.watch(from_version=seat.version):
                        backoff = RETRY_SECONDS[0]
                        # Its own moves come back on the watch after their answers did.
                        if update.version > seat.version and await self._act(seat, update.view):
                            return
                except Exception as err:  # logged, and the game taken up again
                    asked = _logged(game_id, err)
                    await asyncio.sleep(max(backoff, asked or 0.0))
                    backoff = min(backoff * 2, RETRY_SECONDS[1])
        finally:
            self.playing.pop(game_id, None)
            self.done.add(game_id)

    def _choose(
        self, shown: dict[str, Any], listed: list[dict[str, Any]] | None
    ) -> Mapping[str, Any]:
        """The bot's choice from the seat's view, among `listed` or the view's legal moves."""
        return self.choose(shown, listed if listed is not None else legal_moves(shown))

    async def _act(self, seat: Seat, known: types.GameView | None) -> bool:
        """Make the seat's moves while it is its turn, each chosen from the view of the
        version it is made at (`known`, then each move's answer; read again when the game
        moved on meanwhile); whether the game is over.

        The legal moves are the engine's, worked out from the view (`legal_moves`): one call
        a move. The server stays the judge: a move it refuses is chosen again from the list
        it gives (another version of the rules, a seat played for meanwhile)."""
        view = known
        asking = False
        while True:
            if view is None:
                view = await seat.view()
            if view.status == types.GAME_STATUS_FINISHED:
                self.stats.games += 1
                self.stats.finished.append(seat.game_id)
                return True
            if not view.HasField("to_move") or view.to_move != seat.seat:
                return False
            kind = kind_name(view.kind)
            listed: list[dict[str, Any]] | None = None
            if asking:
                from_server = await seat.legal_moves()
                if seat.version != view.version:
                    view = None
                    continue  # the game moved on since the view
                if not from_server:
                    return False  # played for the seat (resigned, or timed out)
                listed = [engine_move(kind, m) for m in from_server]
            chosen = await asyncio.to_thread(self._choose, engine_view(view), listed)
            try:
                answer = await seat.move(proto_move(kind, chosen), expected_version=view.version)
            except GenialError as err:
                if err.reason == "STALE_VERSION":
                    view = None
                elif err.code in REFUSED_MOVE and not asking:
                    asking = True
                else:
                    raise
                continue
            asking = False
            self.stats.moves += 1
            view = answer.view


def _logged(game_id: str, err: Exception) -> float | None:
    """Logs why a game's loop stopped; the seconds the service asked to wait, if it did. A
    rate limit met is one line: the service said when to come back, it is not a fault."""
    asked = err.retry_after if isinstance(err, GenialError) else None
    if asked is None:
        log.warning("game %s failed; again", game_id, exc_info=err)
    else:
        log.warning("game %s: %s", game_id, err)
    return asked
