"""Every move that is not in the legal list is refused, with the reason docs/api.md documents
and the engine gives for that state; so are moves out of turn, in finished, waiting and
unknown games, malformed moves, moves of another game's kind, and moves with tokens of
other games. A refused move changes nothing."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from genial import engine
from genial.service import convert
from genial.v1 import cards_pb2, color_pb2, dice_pb2, tiles_pb2
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.reliability.conftest import Spawn
from tests.reliability.harness import (
    LoggedWorker,
    StoreAccess,
    assert_no_internal_errors,
    count,
    documented_errors,
)
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient
from tests.service.scenarios import Table, open_table, play_to_the_end

CARDS_SAMPLE = 24
"""Illegal card moves tried at each state (all 92 at every eighth state)."""


DOCUMENTED = documented_errors()
COLORS = [c for c in color_pb2.Color.values() if c]


def every_move(kind: str, rnd: random.Random) -> list[types.Move]:
    """Every move of a game of `kind` (for the dice, a sample of the joker combinations)."""
    if kind == "cards":
        moves = [
            types.Move(cards=cards_pb2.CardsMove(play=cards_pb2.CardsPlay(card=card, first=c)))
            for card in cards_pb2.Card.values()
            if card
            for c in COLORS
        ]
        moves.append(types.Move(cards=cards_pb2.CardsMove(swap=cards_pb2.CardsSwap())))
        moves.append(
            types.Move(cards=cards_pb2.CardsMove(decline_swap=cards_pb2.CardsDeclineSwap()))
        )
        return moves
    if kind == "dice":
        jokers = [dice_pb2.DiceJoker(group=g, color=c) for g in COLORS for c in COLORS]
        combos = [[], *([j] for j in jokers), *(rnd.sample(jokers, 2) for _ in range(8))]
        return [
            types.Move(dice=dice_pb2.DiceMove(roll=dice_pb2.DiceRoll())),
            types.Move(dice=dice_pb2.DiceMove(reroll=dice_pb2.DiceReroll())),
            *(
                types.Move(dice=dice_pb2.DiceMove(score=dice_pb2.DiceScore(jokers=j)))
                for j in combos
            ),
        ]
    return [
        types.Move(tiles=tiles_pb2.TilesMove(reveal=tiles_pb2.TilesReveal())),
        types.Move(tiles=tiles_pb2.TilesMove(take=tiles_pb2.TilesTake())),
        *(
            types.Move(tiles=tiles_pb2.TilesMove(alternative=tiles_pb2.TilesAlternative(color=c)))
            for c in COLORS
        ),
    ]


def malformed_moves(kind: str) -> list[types.Move]:
    """Moves no engine move comes from: empty, unspecified or unknown enum values, and the
    moves of the other two games."""
    others = [
        m
        for k in ("cards", "dice", "tiles")
        if k != kind
        for m in every_move(k, random.Random(0))[:3]
    ]
    bad_play = types.Move()
    bad_play.cards.play.card = 999
    bad_play.cards.play.first = color_pb2.COLOR_RED
    unspecified = types.Move(
        cards=cards_pb2.CardsMove(play=cards_pb2.CardsPlay(first=color_pb2.COLOR_RED))
    )
    empty_inner = types.Move()
    getattr(empty_inner, kind).SetInParent()
    bad_color = types.Move()
    bad_color.tiles.alternative.color = 77
    moves = [types.Move(), empty_inner, *others]
    moves += [bad_play, unspecified] if kind == "cards" else []
    moves += [bad_color] if kind == "tiles" else []
    return moves


def key(move: types.Move) -> bytes:
    return move.SerializeToString(deterministic=True)


def expected_refusal(
    state: engine.GameState, kind: str, seat: int, move: types.Move
) -> tuple[str, str]:
    """What the engine says of `move` by `seat` in `state`, as the API's (code, reason)."""
    try:
        engine_move = convert.engine_move(kind, move)
    except convert.BadMessage:
        return "INVALID_ARGUMENT", "MALFORMED_MOVE"
    try:
        state.apply(seat, engine_move)
    except engine.IllegalMove as err:
        # A move no game could take is the request's fault; any other, the game's state.
        malformed = err.reason == engine.Reason.MALFORMED_MOVE
        return "INVALID_ARGUMENT" if malformed else "FAILED_PRECONDITION", err.reason
    raise AssertionError(f"the engine takes {engine_move}, which ListLegalMoves left out")


def refusal(
    client: ApiClient, table: Table, move: types.Move, token: str | None, **extra: object
) -> tuple[str, str]:
    with pytest.raises(CallError) as err:
        client.call(
            "MakeMove", api.MakeMoveRequest(game_id=table.game_id, move=move, **extra), token
        )
    found = (err.value.code, err.value.reason)
    assert found in DOCUMENTED, f"undocumented refusal {found}: {err.value.message}"
    return found


@pytest.fixture
def worker(redis_url: str, spawn: Spawn) -> LoggedWorker:
    (worker,) = spawn(redis_url, 1)
    return worker


@pytest.fixture
def clients(worker: LoggedWorker) -> Iterator[list[ApiClient]]:
    both: list[ApiClient] = [GrpcClient(worker.grpc_port), RestClient(worker.http_port)]
    yield both
    for client in both:
        client.close()


@pytest.mark.parametrize(("kind", "seats"), [("cards", 3), ("dice", 2), ("tiles", 3)])
def test_every_move_outside_the_legal_list_is_refused_with_the_engines_reason(
    redis_url: str, worker: LoggedWorker, clients: list[ApiClient], kind: str, seats: int
) -> None:
    access = StoreAccess(redis_url)
    rnd = random.Random(kind)
    table = open_table(clients[0], kind, seats)
    universe = every_move(kind, rnd)
    malformed = malformed_moves(kind)
    tried = 0
    reasons: set[str] = set()
    while True:
        client = clients[tried % 2]
        view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
        if view.status == types.GAME_STATUS_FINISHED:
            break
        seat = view.to_move
        legal = client.call(
            "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), table.tokens[seat]
        )
        state = access.state(table.game_id)
        assert legal.version == view.version
        listed = {key(m) for m in legal.moves}
        illegal = [m for m in universe if key(m) not in listed]
        if kind == "cards" and view.version % 8:
            illegal = rnd.sample(illegal, min(CARDS_SAMPLE, len(illegal)))
        for move in illegal + malformed:
            expected = expected_refusal(state, kind, seat, move)
            found = refusal(client, table, move, table.tokens[seat], expected_version=view.version)
            assert found == expected, (move, found, expected)
            reasons.add(found[1])
            tried += 1
        # Out of turn: the mover's own legal move, with every other seat's token.
        for other in range(seats):
            if other != seat:
                move = rnd.choice(legal.moves)
                assert refusal(client, table, move, table.tokens[other]) == (
                    "FAILED_PRECONDITION",
                    "NOT_YOUR_TURN",
                )
                tried += 1
        # Nothing refused changed the game; then a legal move takes it on.
        assert access.record(table.game_id).version == view.version
        made = client.call(
            "MakeMove",
            api.MakeMoveRequest(game_id=table.game_id, move=rnd.choice(legal.moves)),
            table.tokens[seat],
        )
        assert made.version == view.version + 1
    # Finished: every move of every seat is GAME_OVER.
    for seat in range(seats):
        for move in universe:
            assert refusal(clients[seat % 2], table, move, table.tokens[seat]) == (
                "FAILED_PRECONDITION",
                "GAME_OVER",
            )
            tried += 1
    assert "NOT_YOUR_TURN" not in reasons or kind != "tiles"
    assert len(reasons) >= 2, reasons
    assert_no_internal_errors([worker])
    count(illegal_moves_tried=tried)


def test_moves_in_unknown_waiting_and_other_games_are_refused(
    worker: LoggedWorker, clients: list[ApiClient]
) -> None:
    grpc_client = clients[0]
    table = open_table(grpc_client, "cards", 2)
    other = open_table(grpc_client, "cards", 2)
    waiting = grpc_client.call(
        "CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_CARDS, seats=3)
    ).game_id
    joined = grpc_client.call(
        "JoinGame", api.JoinGameRequest(game_id=waiting, display_name="early")
    )
    legal = grpc_client.call(
        "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), table.tokens[0]
    )
    move = legal.moves[0]
    tried = 0
    for client in clients:
        cases: list[tuple[str, types.Move, str | None, tuple[str, str]]] = [
            ("AAAAAAAAAAAAAAAA", move, table.tokens[0], ("NOT_FOUND", "GAME_NOT_FOUND")),
            ("no such game", move, table.tokens[0], ("INVALID_ARGUMENT", "BAD_GAME_ID")),
            ("", move, table.tokens[0], ("INVALID_ARGUMENT", "BAD_GAME_ID")),
            (waiting, move, joined.player_token, ("FAILED_PRECONDITION", "GAME_NOT_STARTED")),
            (table.game_id, move, other.tokens[0], ("PERMISSION_DENIED", "TOKEN_INVALID")),
            (table.game_id, move, other.tokens[1], ("PERMISSION_DENIED", "TOKEN_INVALID")),
            (table.game_id, move, joined.player_token, ("PERMISSION_DENIED", "TOKEN_INVALID")),
            (table.game_id, move, None, ("UNAUTHENTICATED", "TOKEN_MISSING")),
        ]
        for game_id, m, token, expected in cases:
            target = Table(game_id, "cards", 2)
            if client is clients[1] and not game_id:
                continue  # an empty path segment is another route over REST
            assert refusal(client, target, m, token) == expected, (game_id, token)
            tried += 1
        assert refusal(client, table, move, table.tokens[0], request_id="x" * 65) == (
            "INVALID_ARGUMENT",
            "BAD_REQUEST_ID",
        )
        tried += 1
    assert grpc_client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view.version == 0
    play_to_the_end(grpc_client, table, random.Random(5))
    count(foreign_moves_tried=tried)


def test_seats_that_do_not_exist_are_refused_with_a_documented_reason(
    clients: list[ApiClient],
) -> None:
    """What the gRPC fuzzer found once, asked every run: JoinGame for seat 7 of 2, or -1."""
    game_id = (
        clients[0]
        .call("CreateGame", api.CreateGameRequest(kind=types.GAME_KIND_TILES, seats=2))
        .game_id
    )
    for client in clients:
        for seat in (7, 2, -1):
            with pytest.raises(CallError) as err:
                client.call(
                    "JoinGame",
                    api.JoinGameRequest(game_id=game_id, display_name=f"x{seat}", seat=seat),
                )
            found = (err.value.code, err.value.reason)
            assert found in DOCUMENTED, f"undocumented refusal {found}: {err.value.message}"
            assert found[0] == "INVALID_ARGUMENT"
    count(bad_seats_tried=6)
