"""A complete external bot: it joins a game over gRPC with the generated stubs, follows
WatchGame, and answers each of its turns with a move chosen from ListLegalMoves.

    python bot.py --target localhost:50051 --game GAME_ID      # take a seat in a game
    python bot.py --target localhost:50051 --create cards      # a new game vs built-in bots

Replace `choose` with your own strategy; everything else is the protocol.
"""

from __future__ import annotations

import argparse
import random
import sys
import uuid

import grpc

from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import types_pb2 as types

KINDS = {
    "cards": types.GAME_KIND_CARDS,
    "dice": types.GAME_KIND_DICE,
    "tiles": types.GAME_KIND_TILES,
}


def choose(moves: list[types.Move], view: types.GameView, rnd: random.Random) -> types.Move:
    """The bot's strategy: here, any legal move. `view` is everything the seat may see."""
    return rnd.choice(moves)


def create(stub: api_grpc.GameServiceStub, kind: str, seats: int) -> str:
    """A game whose other seats are the service's greedy bots."""
    bots = [api.SeatBot(seat=s, strength=types.BOT_STRENGTH_GREEDY) for s in range(1, seats)]
    created = stub.CreateGame(api.CreateGameRequest(kind=KINDS[kind], seats=seats, bots=bots))
    return str(created.game_id)


def play(stub: api_grpc.GameServiceStub, game_id: str, name: str, seed: int) -> types.GameView:
    joined = stub.JoinGame(api.JoinGameRequest(game_id=game_id, display_name=name))
    auth = (("authorization", f"Bearer {joined.player_token}"),)
    print(f"joined {game_id} as seat {joined.seat}")
    rnd = random.Random(seed)
    view = joined.view
    seen = view.version
    while True:
        if view.status == types.GAME_STATUS_FINISHED:
            return view
        if view.status == types.GAME_STATUS_PLAYING and view.to_move == joined.seat:
            legal = stub.ListLegalMoves(api.ListLegalMovesRequest(game_id=game_id), metadata=auth)
            move = choose(list(legal.moves), view, rnd)
            made = stub.MakeMove(
                api.MakeMoveRequest(
                    game_id=game_id,
                    move=move,
                    expected_version=legal.version,
                    request_id=uuid.uuid4().hex,  # a retry of this request is applied once
                ),
                metadata=auth,
            )
            view, seen = made.view, made.version
            continue  # the same seat may move again (a re-roll, a bonus play)
        # Wait for the next change: the watch sends every move after `seen` with a fresh
        # view (from version 0 also the seats being taken).
        watch = stub.WatchGame(
            api.WatchGameRequest(game_id=game_id, from_version=seen), metadata=auth
        )
        for update in watch:
            if not update.HasField("view") or update.version < seen:
                continue  # a keep-alive
            view, seen = update.view, update.version
            if view.status == types.GAME_STATUS_FINISHED or (
                view.status == types.GAME_STATUS_PLAYING and view.to_move == joined.seat
            ):
                watch.cancel()
                break


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", default="localhost:50051")
    parser.add_argument("--game", help="the id of a game with a free seat")
    parser.add_argument("--create", choices=sorted(KINDS), help="create a game against bots")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--name", default="example bot")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with grpc.insecure_channel(args.target) as channel:
        stub = api_grpc.GameServiceStub(channel)
        game_id = args.game or create(stub, args.create or "dice", args.seats)
        final = play(stub, game_id, args.name, args.seed)
    for row in sorted(final.standings, key=lambda r: r.rank):
        print(f"seat {row.seat}: rank {row.rank}, {row.points} points")
    print("game over")
    return 0


if __name__ == "__main__":
    sys.exit(main())
