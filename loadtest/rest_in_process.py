"""A REST move's CPU in one process: the gateway's ASGI app called directly, with no socket
and no HTTP server, on the in-process store. It measures the gateway's and the move path's
own work (docs/performance.md, "Round three"), which `make bench` sees only beside uvicorn,
the kernel and Redis; with `--profile`, cProfile's view of the same moves.

    python -m loadtest.rest_in_process [--moves 5000] [--profile]

Seat-token dice moves on 20 games of two seats, replaced as they finish; the CPU time is the
whole process's (the few lines that call the app included), over the moves after a warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import time
from collections.abc import Sequence
from typing import Any

import uvloop
from litestar.types import ASGIApp, Message

from genial.service.app import GameApp
from genial.service.http import create_app
from genial.service.settings import Settings
from genial.service.store import MemoryStore

from .slots import Game

GAMES = 20
WARMUP = 2000


async def call(
    app: ASGIApp, method: str, path: str, body: bytes, token: str | None = None
) -> tuple[int, Any]:
    """One request through the app; its status and its JSON body."""
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope: Any = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8080),
        "state": {},
    }
    sent: list[Message] = []
    delivered = False

    async def receive() -> Any:
        nonlocal delivered
        if delivered:  # nothing more: the app has what it reads
            await asyncio.Event().wait()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    await app(scope, receive, send)
    answer = b"".join(m.get("body", b"") for m in sent[1:])  # type: ignore[misc]
    return sent[0]["status"], json.loads(answer)  # type: ignore[typeddict-item]


async def new_game(app: ASGIApp) -> Game:
    request = {"kind": "GAME_KIND_DICE", "seats": 2, "options": {"rounds": 10}}
    _, created = await call(app, "POST", "/v1/games", json.dumps(request).encode())
    game_id = created["gameId"]
    tokens = []
    for seat in range(2):
        joined = json.dumps({"displayName": f"p{seat}"}).encode()
        _, answer = await call(app, "POST", f"/v1/games/{game_id}/seats", joined)
        tokens.append(answer["playerToken"])
    return Game(game_id, tokens, answer["view"].get("toMove", 0))


async def moves(app: ASGIApp, games: list[Game], count: int) -> None:
    for i in range(count):
        game = games[i % len(games)]
        move = "score" if game.rolled else "roll"
        body = f'{{"move":{{"dice":{{"{move}":{{}}}}}},"requestId":"m{game.version + 1}"}}'
        path = f"/v1/games/{game.game_id}/moves"
        status, answer = await call(app, "POST", path, body.encode(), game.tokens[game.to_move])
        if status != 200:
            raise RuntimeError(f"MakeMove: {status} {answer}")
        view = answer["view"]
        finished = view["status"] == "GAME_STATUS_FINISHED"
        game.advance(int(answer["version"]), view.get("toMove"), finished)
        if finished:
            games[i % len(games)] = await new_game(app)


async def measure(count: int, profile: bool) -> None:
    settings = Settings(rate_limit_token=0, rate_limit_address=0)
    app = create_app(GameApp(MemoryStore(), settings), settings.max_request_bytes, asyncio.Event())
    games = [await new_game(app) for _ in range(GAMES)]
    await moves(app, games, WARMUP)
    started = time.process_time()
    await moves(app, games, count)
    print(f"{(time.process_time() - started) / count * 1e6:.1f} µs of CPU a REST move")
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        await moves(app, games, count)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m loadtest.rest_in_process", description=__doc__)
    parser.add_argument("--moves", type=int, default=5000, help="moves measured")
    parser.add_argument("--profile", action="store_true", help="then profile as many moves")
    args = parser.parse_args(argv)
    uvloop.run(measure(args.moves, args.profile))


if __name__ == "__main__":
    main()
