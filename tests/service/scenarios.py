"""Whole-game scenarios, written once and played through any transport."""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field

from genial import engine
from genial.service import convert
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, whole_history

KINDS = {
    "cards": types.GAME_KIND_CARDS,
    "dice": types.GAME_KIND_DICE,
    "tiles": types.GAME_KIND_TILES,
}


@dataclass
class Table:
    """A game and the tokens of its seats, as the players hold them."""

    game_id: str
    kind: str
    seats: int
    tokens: list[str] = field(default_factory=list)


def open_table(client: ApiClient, kind: str, seats: int, **options: object) -> Table:
    created = client.call(
        "CreateGame",
        api.CreateGameRequest(kind=KINDS[kind], seats=seats, options=types.GameOptions(**options)),
    )
    table = Table(created.game_id, kind, seats)
    for seat in range(seats):
        joined = client.call(
            "JoinGame", api.JoinGameRequest(game_id=table.game_id, display_name=f"player {seat}")
        )
        assert joined.seat == seat
        table.tokens.append(joined.player_token)
    return table


def play_to_the_end(
    client: ApiClient,
    table: Table,
    rnd: random.Random,
    max_moves: int = 5000,
    only_seats: set[int] | None = None,
) -> types.GameView:
    """The seats (all, or `only_seats` while bots play the others) follow ListLegalMoves
    until the game is over."""
    deadline = time.monotonic() + 120
    while max_moves and time.monotonic() < deadline:
        view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
        if view.status == types.GAME_STATUS_FINISHED:
            return view  # type: ignore[no-any-return]
        seat = view.to_move
        if only_seats is not None and seat not in only_seats:
            time.sleep(0.02)  # a bot's turn
            continue
        max_moves -= 1
        legal = client.call(
            "ListLegalMoves",
            api.ListLegalMovesRequest(game_id=table.game_id),
            table.tokens[seat],
        )
        if not legal.moves:
            continue  # a bot or a timer moved in between

        move = rnd.choice(legal.moves)
        made = client.call(
            "MakeMove",
            api.MakeMoveRequest(
                game_id=table.game_id,
                move=move,
                expected_version=legal.version,
                request_id=f"{table.game_id}-{legal.version}",
            ),
            table.tokens[seat],
        )
        assert made.version == legal.version + 1
        assert made.view.viewer == seat
    raise AssertionError("the game did not end")


def replay_history(client: ApiClient, table: Table) -> engine.GameState:
    """Check the history against the revealed seed, and return the replayed game."""
    history = whole_history(client, table.game_id)
    assert history.seed, "the seed is revealed once the game is over"
    seed = bytes.fromhex(history.seed)
    assert hashlib.sha256(seed).hexdigest() == history.seed_sha256
    game = engine.new_game(table.kind, table.seats, seed, convert.options(history.options))
    for version, entry in enumerate(history.entries, start=1):
        assert entry.version == version
        game, events = game.apply(entry.seat, convert.engine_move(table.kind, entry.move))
        assert [convert.proto_event(table.kind, e) for e in events] == list(entry.events)
    assert game.is_over()
    return game
