"""A player's games: ListMyGames, and the summary of one game for a player.

The list of a player's live games is a hint (a game id is added before the join that
seats the player is written, so a failed join leaves a game the player has no seat at):
the summaries come from each game's own record, read at the time of the call, so they are
never stale, and what the hint gets wrong is repaired as it is read (games that are gone or
not the player's are dropped, finished ones move to the finished list). The finished list
keeps a summary of each of the player's last finished games, written when the game ended
(`feed`) or when a read found it over.
"""

from __future__ import annotations

import asyncio
import time

from genial import engine
from genial.v1 import player_service_pb2 as pb

from .. import convert, records
from ..credentials import Principal
from ..errors import ApiError, Reason
from ..records import FINISHED, PLAYING, GameMeta
from ..settings import Settings
from ..store import GameStore, Record
from ..views import STATUS


def timestamp_ms(seconds: float) -> int:
    # Whole milliseconds, as the views have them.
    return round(seconds * 1000)


def summary(
    game_id: str, meta: GameMeta, version: int, state: engine.GameState, seat: int, now: float
) -> pb.MyGame:
    """Game `game_id` as `ListMyGames` shows it to the player of `seat`."""
    game = pb.MyGame(
        game_id=game_id,
        kind=convert.kind_enum(meta.kind),
        status=STATUS[meta.status],
        seats=meta.seats,
        seat=seat,
        version=version,
        resigned=meta.is_resigned(seat),
        rematch_game_id=meta.rematch or "",
    )
    to_move = state.to_move if meta.status == PLAYING else None
    if to_move is not None:
        game.to_move = to_move
        game.your_turn = to_move == seat and not meta.is_resigned(seat)
        if (deadline := meta.deadline(to_move)) is not None:
            game.turn_deadline.FromMilliseconds(timestamp_ms(deadline))
    if meta.reserved(seat, now) is not None:
        game.invited = True
        game.reserved_until.FromMilliseconds(timestamp_ms(meta.reserved_until))
    if meta.status == FINISHED:
        for row in state.view(None)["standings"]:
            game.standings.add(**row)
    return game


def seat_for(meta: GameMeta, player: str, now: float) -> int | None:
    """The player's seat in a game: taken, or reserved for it and still kept."""
    seat = meta.seat_of(player)
    if seat is not None:
        return seat
    for s in range(meta.seats):
        if meta.reserved(s, now) == player:
            return s
    return None


def _order(game: pb.MyGame, meta: GameMeta) -> tuple[int, float]:
    """Your turn (soonest deadline first, then those without a timer), then the other live
    games (the latest move first): `ListMyGames`' order."""
    if game.your_turn:
        deadline = game.turn_deadline.ToMilliseconds() if game.HasField("turn_deadline") else 0
        return 0, deadline or float("inf")
    return 1, -meta.turn_started


class MyGames:
    def __init__(self, store: GameStore, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    async def live(self, player: str) -> list[pb.MyGame]:
        """The player's live games, read from the games themselves, in `ListMyGames`' order;
        the list's stale hints are repaired on the way."""
        game_ids = await self.store.my_games(player, self.settings.live_games_per_player)
        read = await asyncio.gather(*(self.store.read(game_id) for game_id in game_ids))
        now = time.time()
        games = []
        for game_id, (record, _) in zip(game_ids, read, strict=True):
            found = await self._live_game(player, game_id, record, now)
            if found is not None:
                games.append(found)
        return [game for _, game in sorted(games, key=lambda found: found[0])]

    async def _live_game(
        self, player: str, game_id: str, record: Record | None, now: float
    ) -> tuple[tuple[int, float], pb.MyGame] | None:
        """A live game's summary and place in the order; None if the hint was wrong."""
        meta = records.decode_meta(record.meta) if record is not None else None
        seat = seat_for(meta, player, now) if meta is not None else None
        if record is None or meta is None or seat is None:
            await self.store.remove_my_game(player, game_id)  # a failed join, or gone
            return None
        game = summary(game_id, meta, record.version, records.decode_state(record.state), seat, now)
        if meta.finished:
            await self.finish(player, game)
            return None
        return _order(game, meta), game

    async def finish(self, player: str, game: pb.MyGame) -> None:
        await self.store.finish_my_game(
            player,
            game.game_id,
            time.time(),
            game.SerializeToString(),
            self.settings.finished_games_per_player,
            self.settings.player_ttl,
        )

    async def list_my_games(
        self, request: pb.ListMyGamesRequest, caller: Principal
    ) -> pb.ListMyGamesResponse:
        player = caller.require_player()
        size = request.page_size or 20
        if not 1 <= size <= self.settings.max_page_size:
            raise ApiError(Reason.BAD_PAGE, f"page_size is 1-{self.settings.max_page_size}")
        if request.page_token and not request.page_token.isdigit():
            raise ApiError(Reason.BAD_PAGE, "bad page_token")
        start = int(request.page_token or 0)
        games = await self.live(player)
        finished = await self.store.finished_games(player, self.settings.finished_games_per_player)
        games += [pb.MyGame.FromString(raw) for raw in finished]
        response = pb.ListMyGamesResponse(games=games[start : start + size])
        if start + size < len(games):
            response.next_page_token = str(start + size)
        return response
