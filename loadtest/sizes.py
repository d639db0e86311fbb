"""The stored-size probe: what a live game keeps in Redis, played to its end with random
legal moves as a client would play it."""

from __future__ import annotations

import asyncio
import random
from dataclasses import asdict, dataclass
from typing import Any

import redis.asyncio as aioredis

from genial.service.store.record_codec import unpack
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2

from .slots import FINISHED, bearer


@dataclass
class Stored:
    """The most a live game of a kind kept in Redis (MEMORY USAGE, so with Redis's overhead)."""

    kind: str
    seats: int
    moves: int = 0
    record_bytes: int = 0
    """The game's record at its largest, as MEMORY USAGE counts it."""
    value_bytes: int = 0
    state_bytes: int = 0
    meta_bytes: int = 0
    """The stored (compressed) value, and the state and metadata in it, at that time."""
    log_bytes_per_entry: float = 0.0
    snapshot_bytes_per_move: float = 0.0
    """The game's snapshots (one every 32 moves), a move."""
    request_bytes_per_entry: float = 0.0
    """The game's request ids (one a move, the last 64-128 kept), a move."""


async def stored_size(
    redis_client: aioredis.Redis, stub: Any, kind: types_pb2.GameKind, seats: int
) -> Stored:
    """Play one game of a kind to its end with random legal moves, as a client would, and
    track what it keeps in Redis: the game hash at its largest while live, and the log."""
    rnd = random.Random(kind * 10 + seats)
    created = await stub.CreateGame(api.CreateGameRequest(kind=kind, seats=seats))
    game_id = created.game_id
    tokens = []
    for seat in range(seats):
        joined = await stub.JoinGame(api.JoinGameRequest(game_id=game_id, display_name=f"s{seat}"))
        tokens.append(joined.player_token)
    view = joined.view
    game_key, log_key, requests_key, snapshots_key = (
        f"genial:{{{game_id}}}:{k}" for k in ("game", "log", "req", "snap")
    )
    stored = Stored(types_pb2.GameKind.Name(kind).removeprefix("GAME_KIND_").lower(), seats)
    while view.status != FINISHED:
        auth = bearer(tokens[view.to_move])
        legal = await stub.ListLegalMoves(api.ListLegalMovesRequest(game_id=game_id), metadata=auth)
        moved = await stub.MakeMove(
            api.MakeMoveRequest(
                game_id=game_id,
                move=rnd.choice(legal.moves),
                request_id=f"m{legal.version + 1}",
            ),
            metadata=auth,
        )
        view = moved.view
        stored.moves += 1
        if view.status == FINISHED:
            break  # a finished game is not live: its metadata and TTL change
        size = int(await redis_client.memory_usage(game_key, samples=0) or 0)
        if size > stored.record_bytes:
            value = await redis_client.get(game_key)
            assert isinstance(value, bytes), value  # the client does not decode answers
            record = unpack(value)
            stored.record_bytes, stored.value_bytes = size, len(value)
            stored.state_bytes, stored.meta_bytes = len(record.state), len(record.meta)
    entries = int(await redis_client.xlen(log_key))
    stored.log_bytes_per_entry = (
        int(await redis_client.memory_usage(log_key, samples=0) or 0) / entries
    )
    stored.snapshot_bytes_per_move = (
        int(await redis_client.memory_usage(snapshots_key, samples=0) or 0) / stored.moves
    )
    stored.request_bytes_per_entry = (
        int(await redis_client.memory_usage(requests_key, samples=0) or 0) / stored.moves
    )
    return stored


async def stored_sizes(redis_client: aioredis.Redis, stub: Any) -> list[dict[str, Any]]:
    """One game of each kind, for two seats and for four, side by side."""
    sizes = [
        stored_size(redis_client, stub, kind, seats)
        for kind in (types_pb2.GAME_KIND_CARDS, types_pb2.GAME_KIND_DICE, types_pb2.GAME_KIND_TILES)
        for seats in (2, 4)
    ]
    return [asdict(s) for s in await asyncio.gather(*sizes)]
