"""Each player's feed: the events of the player's games, derived from what happened to a
game (a follow-up `Change`), kept per player and streamed by WatchPlayer.

An event's id says what it is about ("<game>:<version>:your_turn"), so the feed stores it
once however often a change is handed over again; the feed numbers events in the order they
were added, and a watcher resumes after a number (its cursor) on any worker. Events hold
only what every seat may see: seats, names, versions, deadlines, standings.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from typing import Any, cast

from genial.v1 import player_service_pb2 as pb

from ..credentials import Principal
from ..errors import ApiError, Reason
from ..followups import Change, PlayerEvents
from ..records import PLAYING, WAITING
from ..settings import Settings
from ..store import GameStore
from .my_games import MyGames, summary, timestamp_ms

BATCH = 100
"""Events a watch reads at a time."""
Event = pb.PlayerEvent
SEAT_TAKEN = pb.PLAYER_EVENT_TYPE_SEAT_TAKEN
TIMED_OUT = pb.PLAYER_EVENT_TYPE_TURN_TIMED_OUT
REMATCH = pb.PLAYER_EVENT_TYPE_REMATCH_OFFERED


def quiet(change: Change) -> bool:
    """A change with no event for anyone, of a game not over: a change after it makes the
    events it would alone (`events_of` looks at the moves' own events, at what changed in
    the metadata, and at the turn at the end)."""
    return not change.after.meta.finished and not events_of(change)


def events_of(change: Change) -> dict[str, list[pb.PlayerEvent]]:
    """The events `change` makes, by player: for every player seated in the game, seats
    taken, the start, resignations, the end and a rematch; for the player concerned, a
    turn timed out and its turn. Worked out once a change (the feed and the notifier both
    ask, whether the change is quiet and then what to do); read, never changed."""
    found = change.derived.get("player_events")
    if found is None:
        found = change.derived["player_events"] = _events_of(change)
    return cast(dict[str, list[pb.PlayerEvent]], found)


def _events_of(change: Change) -> dict[str, list[pb.PlayerEvent]]:
    before, after = change.before.meta, change.after.meta
    game_id, version = change.game_id, change.after.version
    seated = {
        seat: player
        for seat, (player, name) in enumerate(zip(after.players, after.names, strict=False))
        if player is not None and name is not None
    }
    found: dict[str, list[pb.PlayerEvent]] = defaultdict(list)

    def event(about: str, kind: pb.PlayerEventType, at: int = version, **fields: Any) -> Event:
        return Event(id=f"{game_id}:{about}", type=kind, game_id=game_id, version=at, **fields)

    def to_all(made: pb.PlayerEvent) -> None:
        for player in set(seated.values()):
            found[player].append(made)

    if before.names != after.names:  # most changes seat nobody: skip the look
        for seat, name in enumerate(after.names):
            if name is not None and before.names[seat] is None:
                to_all(event(f"0:seat_taken:{seat}", SEAT_TAKEN, 0, seat=seat, display_name=name))
    if before.status == WAITING and after.status != WAITING:
        to_all(event("0:started", pb.PLAYER_EVENT_TYPE_GAME_STARTED, 0))
    for move in change.moves:
        for happened in move.events:
            player = seated.get(happened.get("seat", -1))
            if happened["type"] == "turn_timed_out" and player is not None:
                found[player].append(
                    event(
                        f"{move.version}:timed_out", TIMED_OUT, move.version, seat=happened["seat"]
                    )
                )
    if before.resigned != after.resigned:
        for seat in range(after.seats):
            if after.is_resigned(seat) and not before.is_resigned(seat):
                to_all(event(f"seat{seat}:resigned", pb.PLAYER_EVENT_TYPE_RESIGNED, seat=seat))
    if after.finished:
        over = event(f"{version}:over", pb.PLAYER_EVENT_TYPE_GAME_OVER)
        for row in change.state.view(None)["standings"]:
            over.standings.add(**row)
        over.resigned_seats.extend(s for s in range(after.seats) if after.is_resigned(s))
        to_all(over)
    elif (mover := change.state.to_move) is not None and (player := _to_move(change, seated)):
        turn = event(f"{version}:your_turn", pb.PLAYER_EVENT_TYPE_YOUR_TURN, seat=mover)
        if (deadline := after.deadline(mover)) is not None:
            turn.turn_deadline.FromMilliseconds(timestamp_ms(deadline))
        found[player].append(turn)
    if after.rematch and not before.rematch:
        for seat, player in seated.items():
            found[player].append(
                event("rematch", REMATCH, seat=seat, rematch_game_id=after.rematch)
            )
    return found


def _serialized(change: Change) -> PlayerEvents:
    return {
        player: [(event.id, event.SerializeToString()) for event in events]
        for player, events in events_of(change).items()
    }


def _to_move(change: Change, seated: dict[int, str]) -> str | None:
    """The player whose turn begins at the change's end, if a player's (not resigned): the
    turn passed to it, or the game began (a seat that moves again keeps its turn)."""
    seat = change.state.to_move if change.after.meta.status == PLAYING else None
    if seat is None or change.after.meta.is_resigned(seat):
        return None
    if change.moves and change.moves[-1].seat == seat:
        return None
    return seated.get(seat)


class PlayerFeed:
    """The players' part of a game's follow-ups, and the watch of a player's feed."""

    def __init__(self, store: GameStore, settings: Settings, my_games: MyGames) -> None:
        self.store = store
        self.settings = settings
        self.my_games = my_games

    async def follow(self, change: Change) -> None:
        await asyncio.gather(
            *(
                self.store.add_player_events(
                    player, events, self.settings.player_events_kept, self.settings.player_ttl
                )
                for player, events in _serialized(change).items()
            )
        )
        meta = change.after.meta
        if meta.finished:
            now = time.time()
            for seat in range(meta.seats):
                if (player := meta.player(seat)) is not None and meta.names[seat] is not None:
                    game = summary(
                        change.game_id, meta, change.after.version, change.state, seat, now
                    )
                    await self.my_games.finish(player, game)

    def idle(self, change: Change) -> bool:
        return quiet(change)

    def inline(self, change: Change) -> PlayerEvents | None:
        # The end of a game also files it among each player's finished games.
        return None if change.after.meta.finished else _serialized(change)

    async def watch_player(
        self, request: pb.WatchPlayerRequest, caller: Principal
    ) -> AsyncIterator[pb.WatchPlayerResponse]:
        player = caller.require_player()
        if request.cursor and not request.cursor.isdigit():
            raise ApiError(Reason.BAD_REQUEST, "a cursor is the cursor of an answer received")
        # Followed before anything is read: an event added meanwhile wakes the loop below.
        follower = await self.store.follow_player(player)
        try:
            last = await self.store.last_player_event(player)
            after = min(int(request.cursor), last) if request.cursor else last
            games = await self.my_games.live(player)
            yield pb.WatchPlayerResponse(games=pb.LiveGames(games=games), cursor=str(after))
            while True:
                found = await self.store.player_events(player, after, BATCH)
                for number, data in found:
                    after = number
                    event = pb.PlayerEvent.FromString(data)
                    yield pb.WatchPlayerResponse(event=event, cursor=str(number))
                if len(found) == BATCH:
                    continue
                if not await follower.wait(self.settings.watch_keepalive):
                    yield pb.WatchPlayerResponse(cursor=str(after))  # keep-alive
        finally:
            follower.close()
