"""The Python SDK (`genial.client`) against a real `genial serve` worker."""

from __future__ import annotations

import asyncio
import hashlib
import random
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]
from grpc import aio

from genial.client import GenialClient, GenialError, Kind, RetryPolicy, Seat
from genial.client.errors import STATUS_DETAILS_KEY
from genial.v1 import dice_pb2 as dice
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.service.conftest import start_worker, stop_worker

KINDS: list[Kind] = ["cards", "dice", "tiles"]
QUICK = RetryPolicy(initial_backoff=0.001, max_backoff=0.005)
MAKE_MOVE = "/genial.v1.GameService/MakeMove"


async def play_from_watch(seat: Seat, rnd: random.Random) -> types.GameView:
    """A player as a program would write one: follow the game, and move when it is this
    seat's turn, until the game is over. Returns the last view the watch showed."""
    view = types.GameView()
    async for update in seat.watch(from_version=0):
        view = update.view
        # The watch first replays what happened before; act only on the game as it is now.
        if view.to_move != seat.seat or update.version < seat.version:
            continue
        if moves := await seat.legal_moves():
            await seat.move(rnd.choice(moves))
    return view


async def spectate(client: GenialClient, game_id: str) -> list[int]:
    return [update.version async for update in client.watch(game_id)]


@pytest.mark.parametrize("kind", KINDS)
async def test_two_players_and_a_spectator_follow_a_whole_game(target: str, kind: Kind) -> None:
    rnd = random.Random(kind)
    async with GenialClient.connect(target) as client:
        created = await client.create(kind, seats=2)
        assert created.view.status == types.GAME_STATUS_WAITING
        watching = asyncio.create_task(spectate(client, created.game_id))
        seats = [await client.join(created.game_id, name) for name in ("Ada", "Grace")]
        assert [s.seat for s in seats] == [0, 1]

        finals = await asyncio.wait_for(
            asyncio.gather(*(play_from_watch(s, rnd) for s in seats)), 60
        )
        versions = await asyncio.wait_for(watching, 10)

        for seat, final in zip(seats, finals, strict=True):
            assert final.status == types.GAME_STATUS_FINISHED
            assert final.viewer == seat.seat
        # Two joins at version 0, then every move exactly once, in order.
        assert versions == [0, 0, *range(1, finals[0].version + 1)]
        history = await client.history(created.game_id)
        assert len(history.entries) == finals[0].version
        assert hashlib.sha256(bytes.fromhex(history.seed)).hexdigest() == created.seed_sha256
        assert sorted(s.seat for s in finals[0].standings) == [0, 1]


@pytest.mark.parametrize("kind", KINDS)
async def test_a_player_finishes_a_game_against_a_bot(target: str, kind: Kind) -> None:
    rnd = random.Random(1)
    async with GenialClient.connect(target) as client:
        created = await client.create(kind, seats=2, bots={1: "random"})
        seat = await client.join(created.game_id, "Ada")
        final = await asyncio.wait_for(play_from_watch(seat, rnd), 60)
        assert final.status == types.GAME_STATUS_FINISHED
        assert final.players[1].bot == types.BOT_STRENGTH_RANDOM
        assert (await seat.view()).standings == final.standings


async def dice_game(client: GenialClient) -> Seat:
    """A dice game with a bot at seat 1, at seat 0's first move."""
    created = await client.create("dice", seats=2, bots={1: "random"})
    return await client.join(created.game_id, "Ada", seat=0)


async def test_a_move_expects_the_version_the_seat_saw(target: str) -> None:
    async with GenialClient.connect(target, retry=QUICK) as client:
        seat = await dice_game(client)
        roll = (await seat.legal_moves())[0]
        other = Seat(client, seat.game_id, seat.seat, seat.token)  # the same player elsewhere
        await other.move(roll, expected_version=None)
        with pytest.raises(GenialError) as refused:
            await seat.move(roll)
        assert refused.value.code == grpc.StatusCode.ABORTED
        assert refused.value.reason == "STALE_VERSION"
        assert refused.value.metadata == {"current_version": "1"}


async def test_a_request_id_applies_a_move_once(target: str) -> None:
    async with GenialClient.connect(target) as client:
        seat = await dice_game(client)
        roll = (await seat.legal_moves())[0]
        first = await seat.move(roll, request_id="roll-1")
        again = await seat.move(roll, expected_version=0, request_id="roll-1")
        assert again.version == first.version == 1
        assert again.events == first.events


async def test_read_masks_leave_out_what_is_not_asked_for(target: str) -> None:
    async with GenialClient.connect(target) as client:
        seat = await dice_game(client)
        roll = (await seat.legal_moves())[0]
        answer = await seat.move(roll, read_mask=["events"])
        assert not answer.HasField("view")
        assert answer.events
        assert answer.version == seat.version == 1  # the seat keeps following the version
        view = await seat.client.view(seat.game_id, seat.token, read_mask=["version", "dice"])
        assert view.version == 1
        assert view.dice.players
        assert not view.players
        assert not view.seed_sha256
        updates = seat.watch(from_version=0, read_mask=["events"])
        first = await anext(updates)
        assert first.events
        assert not first.HasField("view")
        await updates.aclose()
        with pytest.raises(GenialError) as refused:
            await seat.client.view(seat.game_id, read_mask=["nope"])
        assert refused.value.reason == "BAD_READ_MASK"


async def test_refusals_carry_the_reason(target: str) -> None:
    async with GenialClient.connect(target) as client:
        with pytest.raises(GenialError) as missing:
            await client.join("nosuchgame00000x", "Ada")
        assert (missing.value.code, missing.value.reason) == (
            grpc.StatusCode.NOT_FOUND,
            "GAME_NOT_FOUND",
        )
        seat = await dice_game(client)
        score = types.Move(dice=dice.DiceMove(score=dice.DiceScore()))
        with pytest.raises(GenialError) as illegal:
            await seat.move(score)
        assert illegal.value.code == grpc.StatusCode.FAILED_PRECONDITION
        assert illegal.value.reason == "WRONG_PHASE"


async def test_the_lobby_is_read_page_by_page(target: str) -> None:
    async with GenialClient.connect(target) as client:
        created = {(await client.create("tiles", seats=3)).game_id for _ in range(3)}
        listed = {game.game_id async for game in client.games("tiles", page_size=2)}
        assert created <= listed


def aborted(reason: str) -> aio.AioRpcError:
    """An ABORTED error as the service sends it, with an ErrorInfo in the status details."""
    status = status_pb2.Status(code=grpc.StatusCode.ABORTED.value[0], message="try again")
    status.details.add().Pack(error_details_pb2.ErrorInfo(reason=reason, domain="genial.games"))
    trailers = aio.Metadata((STATUS_DETAILS_KEY, status.SerializeToString()))
    return aio.AioRpcError(grpc.StatusCode.ABORTED, aio.Metadata(), trailers, "try again")


class RefuseMoves(aio.UnaryUnaryClientInterceptor):
    """Answers the first `times` MakeMove calls with ABORTED `reason`, as a busy service
    would; records every MakeMove request sent."""

    def __init__(self, reason: str, times: int) -> None:
        self.reason, self.times = reason, times
        self.sent: list[api.MakeMoveRequest] = []

    async def intercept_unary_unary(
        self,
        continuation: Callable[[Any, Any], Awaitable[Any]],
        details: aio.ClientCallDetails,
        request: Any,
    ) -> Any:
        # The stubs type the method as str; grpc.aio passes bytes.
        if details.method in (MAKE_MOVE, MAKE_MOVE.encode()):
            self.sent.append(request)
            if len(self.sent) <= self.times:
                raise aborted(self.reason)
        return await continuation(details, request)


async def test_contention_is_retried_with_the_same_request_id(target: str) -> None:
    refuse = RefuseMoves("CONTENTION", times=2)
    channel = aio.insecure_channel(target, interceptors=[refuse])
    async with GenialClient(channel, retry=QUICK) as client:
        seat = await dice_game(client)
        made = await seat.move((await seat.legal_moves())[0])
        assert made.version == 1
        assert len(refuse.sent) == 3
        assert len({r.request_id for r in refuse.sent}) == 1


@pytest.mark.parametrize(("reason", "tries"), [("STALE_VERSION", 1), ("CONTENTION", 5)])
async def test_retries_stop(target: str, reason: str, tries: int) -> None:
    refuse = RefuseMoves(reason, times=99)
    channel = aio.insecure_channel(target, interceptors=[refuse])
    async with GenialClient(channel, retry=QUICK) as client:
        seat = await dice_game(client)
        with pytest.raises(GenialError) as refused:
            await seat.move((await seat.legal_moves())[0])
        assert refused.value.reason == reason
        assert len(refuse.sent) == tries


@pytest.fixture(scope="module")
def limited_target() -> Iterator[str]:
    worker = start_worker("", "--rate-limit-token", "20")
    yield f"127.0.0.1:{worker.grpc_port}"
    stop_worker(worker)


async def test_a_rate_limited_call_waits_for_retry_after_or_raises(limited_target: str) -> None:
    async with GenialClient.connect(limited_target, retry=QUICK) as client:
        seat = await dice_game(client)
        # The service counts in windows of 10 s: start early in one, so that 30 reads with
        # one token (over a limit of 20) all fall in it, and the 21st waits for the next.
        phase = time.time() % 10
        if phase > 6:
            await asyncio.sleep(10.1 - phase)
        started = time.monotonic()
        for _ in range(30):
            await seat.view()
        assert time.monotonic() - started >= 0.5
    # Now early in a window again: 30 reads of a client told not to wait.
    impatient = RetryPolicy(max_rate_limit_wait=0)
    async with GenialClient.connect(limited_target, retry=impatient) as client:
        seat = await dice_game(client)

        async def read_30_times() -> None:
            for _ in range(30):
                await seat.view()

        with pytest.raises(GenialError) as refused:
            await read_30_times()
        assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert refused.value.reason == "RATE_LIMITED"
        assert 1 <= int(refused.value.metadata["retry_after"]) <= 10
