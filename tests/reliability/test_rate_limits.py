"""Rate limits per token and per client address, shared by two workers through Redis: past the
limit a request gets RESOURCE_EXHAUSTED (reason RATE_LIMITED, metadata retry_after, trailing
`retry-after`) over gRPC and 429 with `Retry-After` over HTTP, until the window it names is
over. The workers sync their counts every 0.1 s, so together they may admit what they admit
in about one sync interval beyond the limit; the test allows that and no more."""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import grpc
import httpx
import pytest

from genial.service.limits import SYNC_SECONDS, WINDOW_SECONDS
from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from tests.reliability.conftest import Spawn
from tests.reliability.harness import (
    LoggedWorker,
    RedisServer,
    assert_no_secret_in_logs,
    count,
    documented_errors,
)
from tests.service.clients import CallError, GrpcClient, RestClient
from tests.service.players import sign_in
from tests.service.scenarios import Table, open_table

LIMIT = 120
PACE = 0.004
"""Seconds between two requests of the burst: about 250 a second at most."""


@dataclass
class Refusal:
    retry_after: int
    """Seconds, from the refusal (ErrorInfo metadata, trailer or header)."""
    window_left: float
    """Seconds that were left in the limiter's window when it was refused."""


class Burst:
    """One client address sending alternately to two workers over both transports."""

    def __init__(self, workers: list[LoggedWorker]) -> None:
        self.grpc = [grpc.insecure_channel(f"127.0.0.1:{w.grpc_port}") for w in workers]
        self.rest = [httpx.Client(base_url=w.url, timeout=10) for w in workers]
        self.sent = 0

    def send(self, game_id: str, token: str | None) -> Refusal | None:
        """One GetGame; None when admitted."""
        n, self.sent = self.sent, self.sent + 1
        worker, transport = n % 2, (n // 2) % 2
        now = time.time()
        left = WINDOW_SECONDS - now % WINDOW_SECONDS
        if transport == 0:
            stub = api_grpc.GameServiceStub(self.grpc[worker])
            metadata = (("authorization", f"Bearer {token}"),) if token else ()
            try:
                stub.GetGame(api.GetGameRequest(game_id=game_id), metadata=metadata, timeout=10)
                return None
            except grpc.RpcError as err:
                refused = GrpcClient._error(err)
                assert (refused.code, refused.reason) == ("RESOURCE_EXHAUSTED", "RATE_LIMITED")
                trailer = dict(err.trailing_metadata() or ())  # type: ignore[attr-defined]
                assert trailer.get("retry-after") == refused.metadata["retry_after"]
                return Refusal(int(refused.metadata["retry_after"]), left)
        headers = {"authorization": f"Bearer {token}"} if token else {}
        reply = self.rest[worker].get(f"/v1/games/{game_id}", headers=headers)
        if reply.status_code == 200:
            return None
        assert reply.status_code == 429, reply.text
        error = reply.json()["error"]
        assert (error["code"], error["reason"]) == ("RESOURCE_EXHAUSTED", "RATE_LIMITED")
        assert reply.headers["retry-after"] == error["details"]["retry_after"]
        return Refusal(int(reply.headers["retry-after"]), left)

    def close(self) -> None:
        for channel in self.grpc:
            channel.close()
        for client in self.rest:
            client.close()


@pytest.fixture
def burst_factory() -> Iterator[Callable[[list[LoggedWorker]], Burst]]:
    made: list[Burst] = []

    def make(workers: list[LoggedWorker]) -> Burst:
        made.append(Burst(workers))
        return made[-1]

    yield make
    for burst in made:
        burst.close()


def fresh_window() -> None:
    """Wait for the start of a limiter window, so that a burst fits in one."""
    left = WINDOW_SECONDS - time.time() % WINDOW_SECONDS
    time.sleep(left + 0.2)


def hammer(burst: Burst, game_id: str, *tokens: str | None) -> tuple[int, list[Refusal], float]:
    """2.5 x LIMIT requests, paced, with each token in turn; admitted, refusals and the
    rate they were sent at."""
    admitted, refusals = 0, []
    start = time.monotonic()
    for n in range(LIMIT * 5 // 2):
        refusal = burst.send(game_id, tokens[n % len(tokens)])
        if refusal is None:
            admitted += 1
        else:
            refusals.append(refusal)
        time.sleep(PACE)
    rate = (LIMIT * 5 // 2) / (time.monotonic() - start)
    return admitted, refusals, rate


def check_burst(admitted: int, refusals: list[Refusal], rate: float) -> int:
    """The limit held, shared by the two workers; returns the overshoot allowed."""
    assert ("RESOURCE_EXHAUSTED", "RATE_LIMITED") in documented_errors(), "docs/api.md"
    # What the workers admit in one sync interval, and one more for the round trip.
    slack = math.ceil(rate * 2 * SYNC_SECONDS) + 2
    assert slack < LIMIT, "the pace keeps the tolerance below the limit"
    assert LIMIT <= admitted <= LIMIT + slack, (admitted, slack)
    assert refusals
    for refusal in refusals:
        assert 1 <= refusal.retry_after <= WINDOW_SECONDS
        assert abs(refusal.retry_after - refusal.window_left) <= 1.5, refusal
    return slack


@pytest.fixture
def limited_table(
    own_redis: RedisServer, spawn: Spawn
) -> Callable[..., tuple[list[LoggedWorker], Table]]:
    def start(*flags: str) -> tuple[list[LoggedWorker], Table]:
        workers = spawn(own_redis.url, 2, *flags)
        client = GrpcClient(workers[0].grpc_port)
        table = open_table(client, "cards", 2)
        client.close()
        return workers, table

    return start


def test_the_token_limit_is_shared_by_the_workers(
    limited_table: Callable[..., tuple[list[LoggedWorker], Table]],
    burst_factory: Callable[[list[LoggedWorker]], Burst],
) -> None:
    workers, table = limited_table("--rate-limit-token", str(LIMIT), "--rate-limit-address", "0")
    burst = burst_factory(workers)
    fresh_window()
    admitted, refusals, rate = hammer(burst, table.game_id, table.tokens[0])
    slack = check_burst(admitted, refusals, rate)
    # Per token: the other seat, and a spectator, are still served.
    assert burst.send(table.game_id, table.tokens[1]) is None
    assert burst.send(table.game_id, None) is None
    # Come back when told: admitted again.
    refusal = burst.send(table.game_id, table.tokens[0])
    assert refusal is not None
    time.sleep(refusal.retry_after + 0.3)
    assert burst.send(table.game_id, table.tokens[0]) is None
    assert_no_secret_in_logs(workers, table.tokens)
    count(rate_limit_token_requests=burst.sent, rate_limit_token_refused=len(refusals) + 1)
    count(rate_limit_token_admitted_over_limit=admitted - LIMIT, rate_limit_token_slack=slack)


def test_the_address_limit_is_shared_by_the_workers(
    limited_table: Callable[..., tuple[list[LoggedWorker], Table]],
    burst_factory: Callable[[list[LoggedWorker]], Burst],
) -> None:
    workers, table = limited_table("--rate-limit-address", str(LIMIT), "--rate-limit-token", "0")
    burst = burst_factory(workers)
    fresh_window()
    admitted, refusals, rate = hammer(burst, table.game_id, None)
    slack = check_burst(admitted, refusals, rate)
    # Per address: a token does not get past it.
    refusal = burst.send(table.game_id, table.tokens[0])
    assert refusal is not None
    rest = RestClient(workers[0].http_port)
    with pytest.raises(CallError) as err:
        rest.call("ListGames", api.ListGamesRequest())
    rest.close()
    assert err.value.reason == "RATE_LIMITED"
    time.sleep(refusal.retry_after + 0.3)
    assert burst.send(table.game_id, None) is None
    count(rate_limit_address_requests=burst.sent, rate_limit_address_refused=len(refusals) + 2)
    count(rate_limit_address_admitted_over_limit=admitted - LIMIT, rate_limit_address_slack=slack)


def test_the_token_limit_counts_per_player(
    limited_table: Callable[..., tuple[list[LoggedWorker], Table]],
    burst_factory: Callable[[list[LoggedWorker]], Burst],
) -> None:
    """A player's sessions (two devices) share one count; another player has its own."""
    workers, table = limited_table("--rate-limit-token", str(LIMIT), "--rate-limit-address", "0")
    client = RestClient(workers[0].http_port)
    device_id = secrets.token_urlsafe(24)
    sessions = [sign_in(client, device_id) for _ in range(2)]
    other = sign_in(client, secrets.token_urlsafe(24))
    client.close()
    burst = burst_factory(workers)
    fresh_window()
    admitted, refusals, rate = hammer(burst, table.game_id, *(s.access_token for s in sessions))
    slack = check_burst(admitted, refusals, rate)
    assert burst.send(table.game_id, other.access_token) is None
    assert burst.send(table.game_id, table.tokens[0]) is None
    secrets_sent = [t for s in (*sessions, other) for t in (s.access_token, s.refresh_token)]
    assert_no_secret_in_logs(workers, [*secrets_sent, device_id])
    count(rate_limit_player_requests=burst.sent, rate_limit_player_refused=len(refusals))
    count(rate_limit_player_admitted_over_limit=admitted - LIMIT, rate_limit_player_slack=slack)
