"""Many clients in several processes race on the same few games through several workers,
over gRPC and REST, with and without `expected_version`, while the test may kill workers
or Redis under them; afterwards every game is checked move by move.

A client that loses its worker (or gets UNAVAILABLE) sends the same request, with the same
`request_id`, to the next worker until it gets an answer: so every move a client was told
was applied is one the game must hold, exactly once.
"""

from __future__ import annotations

import multiprocessing
import random
import threading
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from genial import engine
from genial.service import convert
from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.reliability.harness import StoreAccess
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient, whole_history
from tests.service.conftest import Worker
from tests.service.scenarios import Table, play_to_the_end, replay_history

Endpoint = tuple[int, int]
"""A worker's gRPC and HTTP ports."""

REFUSALS = {
    ("ABORTED", "STALE_VERSION"),
    ("ABORTED", "CONTENTION"),
    # The move was legal when listed, but another client moved first.
    ("FAILED_PRECONDITION", "NOT_YOUR_TURN"),
    ("FAILED_PRECONDITION", "GAME_OVER"),
    ("FAILED_PRECONDITION", "WRONG_PHASE"),
    ("FAILED_PRECONDITION", "CARD_NOT_IN_HAND"),
    ("FAILED_PRECONDITION", "SWAP_NOT_ALLOWED"),
    ("FAILED_PRECONDITION", "NO_REROLL_LEFT"),
    ("FAILED_PRECONDITION", "BAD_JOKER"),
    ("FAILED_PRECONDITION", "NOTHING_TO_TAKE"),
    ("FAILED_PRECONDITION", "RESERVE_EMPTY"),
    ("FAILED_PRECONDITION", "ALTERNATIVE_NOT_ALLOWED"),
}
"""What a racing move may be refused with."""


def endpoints(workers: Sequence[Worker]) -> list[Endpoint]:
    return [(w.grpc_port, w.http_port) for w in workers]


def transport_failure(exc: BaseException) -> bool:
    """No answer from the worker, or UNAVAILABLE: the request may be sent again."""
    if isinstance(exc, httpx.TransportError):
        return True
    return isinstance(exc, CallError) and exc.code == "UNAVAILABLE"


class FailoverClient:
    """An `ApiClient` over several workers and one transport: a request that fails in
    transport goes, unchanged, to the next worker, for up to `retry_seconds`."""

    def __init__(
        self, ports: list[Endpoint], transport: str, home: int, retry_seconds: float
    ) -> None:
        self.ports = ports
        self.transport = transport
        self.current = home % len(ports)
        self.retry_seconds = retry_seconds
        self.clients: dict[int, ApiClient] = {}
        self.failovers = 0

    def _client(self, index: int) -> ApiClient:
        if index not in self.clients:
            grpc_port, http_port = self.ports[index]
            self.clients[index] = (
                GrpcClient(grpc_port) if self.transport == "grpc" else RestClient(http_port)
            )
        return self.clients[index]

    def call(self, method: str, request: Any, token: str | None = None) -> Any:
        deadline = time.monotonic() + self.retry_seconds
        while True:
            try:
                return self._client(self.current).call(method, request, token)
            except Exception as exc:
                if not transport_failure(exc) or time.monotonic() > deadline:
                    raise
                self.failovers += 1
                self.current = (self.current + 1) % len(self.ports)
                time.sleep(0.02)

    def watch(
        self, request: api.WatchGameRequest, token: str | None = None, timeout: float = 30
    ) -> Iterator[api.WatchGameResponse]:
        return self._client(self.current).watch(request, token, timeout)

    def close(self) -> None:
        for client in self.clients.values():
            client.close()


@dataclass(frozen=True)
class Ack:
    """A move a client was told was applied."""

    game_id: str
    request_id: str
    version: int
    seat: int
    move: bytes
    """The Move message sent, serialized."""


@dataclass(frozen=True)
class RaceSpec:
    ports: list[Endpoint]
    tables: list[Table]
    first_client: int
    clients: int
    """Client threads in this process, numbered from `first_client`."""
    seconds: float
    retry_seconds: float
    attempts: int = 1_000_000
    lossy: bool = False
    """The store may lose acknowledged moves (a failover): a request sent again that is
    answered anew (its first application lost) is one more answer, not an error."""


@dataclass
class RaceResult:
    acks: list[Ack] = field(default_factory=list)
    attempts: int = 0
    sends: int = 0
    refused: Counter[str] = field(default_factory=Counter)
    failovers: int = 0
    errors: list[str] = field(default_factory=list)


def _client_loop(spec: RaceSpec, number: int, result: RaceResult, lock: threading.Lock) -> None:
    rnd = random.Random(number)
    transport = "grpc" if number % 2 == 0 else "rest"
    client = FailoverClient(spec.ports, transport, number, spec.retry_seconds)
    deadline = time.monotonic() + spec.seconds
    mine = RaceResult()
    finished: set[str] = set()
    try:
        for attempt in range(spec.attempts):
            if time.monotonic() > deadline:
                break
            playing = [t for t in spec.tables if t.game_id not in finished]
            if not playing:
                break
            table = rnd.choice(playing)
            mine.attempts += 1
            view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
            if view.status == types.GAME_STATUS_FINISHED:
                finished.add(table.game_id)
                continue
            seat = view.to_move
            token = table.tokens[seat]
            legal = client.call(
                "ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token
            )
            if not legal.moves:
                continue  # somebody moved in between
            request = api.MakeMoveRequest(
                game_id=table.game_id,
                move=rnd.choice(legal.moves),
                request_id=f"c{number}-{attempt}",
            )
            if rnd.random() < 0.5:
                request.expected_version = legal.version
            first: int | None = None
            for _ in range(2 if rnd.random() < 0.2 else 1):  # sometimes a retry of one move
                mine.sends += 1
                try:
                    made = client.call("MakeMove", request, token)
                except CallError as err:
                    lost = spec.lossy and first is not None
                    if (err.code, err.reason) not in REFUSALS or (first is not None and not lost):
                        mine.errors.append(f"{request.request_id} (acked: {first}): {err}")
                    else:
                        mine.refused[err.reason] += 1
                    break
                if first is None:
                    first = made.version
                    mine.acks.append(
                        Ack(
                            table.game_id,
                            request.request_id,
                            made.version,
                            seat,
                            request.move.SerializeToString(),
                        )
                    )
                elif made.version != first and spec.lossy:
                    mine.acks.append(replace(mine.acks[-1], version=made.version))
                elif made.version != first:
                    mine.errors.append(f"{request.request_id}: {first}, then {made.version}")
    except Exception:
        mine.errors.append(traceback.format_exc())
    finally:
        client.close()
    with lock:
        result.acks += mine.acks
        result.attempts += mine.attempts
        result.sends += mine.sends
        result.refused.update(mine.refused)
        result.failovers += client.failovers
        result.errors += mine.errors


def race_process(spec: RaceSpec) -> RaceResult:
    """One client process: `spec.clients` threads, each a client of its own."""
    result = RaceResult()
    lock = threading.Lock()
    threads = [
        threading.Thread(target=_client_loop, args=(spec, spec.first_client + n, result, lock))
        for n in range(spec.clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return result


def run_race(
    ports: list[Endpoint],
    tables: list[Table],
    *,
    processes: int,
    clients_per_process: int,
    seconds: float,
    retry_seconds: float = 0.0,
    during: Callable[[], None] | None = None,
    lossy: bool = False,
) -> RaceResult:
    """Race `processes` x `clients_per_process` clients for about `seconds`; `during` runs
    in this process meanwhile (to inject faults). Returns what the clients saw."""
    specs = [
        RaceSpec(
            ports,
            tables,
            p * clients_per_process,
            clients_per_process,
            seconds,
            retry_seconds,
            lossy=lossy,
        )
        for p in range(processes)
    ]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        pending = pool.map_async(race_process, specs)
        if during is not None:
            during()
        results = pending.get(seconds + retry_seconds + 120)
    total = RaceResult()
    for result in results:
        total.acks += result.acks
        total.attempts += result.attempts
        total.sends += result.sends
        total.refused.update(result.refused)
        total.failovers += result.failovers
        total.errors += result.errors
    return total


# ---- the checks afterwards ----------------------------------------------------------------


def replay(history: api.GetHistoryResponse, kind: str, upto: int) -> engine.GameState:
    """The game after its first `upto` moves, replayed from the revealed seed."""
    game = engine.new_game(
        kind, history.seats, bytes.fromhex(history.seed), convert.options(history.options)
    )
    for entry in history.entries[:upto]:
        game, _ = game.apply(entry.seat, convert.engine_move(kind, entry.move))
    return game


def check_games(
    access: StoreAccess, client: ApiClient, tables: list[Table], acks: list[Ack]
) -> dict[str, int]:
    """For every game: the acknowledged moves are exactly the game's moves, at the versions
    the clients were told, each once; the stored stream has versions 1..N with no gap or
    repeat; the game can be finished; replaying its history from the revealed seed gives
    the state stored at the end of the race and at the end of the game."""
    by_game: dict[str, dict[str, Ack]] = defaultdict(dict)
    for ack in acks:
        seen = by_game[ack.game_id].setdefault(ack.request_id, ack)
        assert seen == ack, f"one request id, two answers: {seen} {ack}"
    totals = Counter[str]()
    for table in tables:
        acked = by_game[table.game_id]
        record = access.record(table.game_id)
        raced = record.version
        # The stream: the joins, then one entry per version 1..N.
        ids = [entry.id for entry in access.entries(table.game_id)]
        assert ids == [(0, seat + 1) for seat in range(table.seats)] + [
            (v, 0) for v in range(1, raced + 1)
        ], ids
        assert sorted(a.version for a in acked.values()) == list(range(1, raced + 1)), (
            f"{table.game_id}: {raced} moves stored, {len(acked)} acknowledged"
        )
        history = whole_history(client, table.game_id)
        assert [e.version for e in history.entries] == list(range(1, raced + 1))
        for ack in acked.values():
            entry = history.entries[ack.version - 1]
            assert (entry.seat, entry.move.SerializeToString()) == (ack.seat, ack.move), ack
        # Finish the game, then replay it from the revealed seed.
        final = play_to_the_end(client, table, random.Random(table.game_id))
        assert final.status == types.GAME_STATUS_FINISHED
        replayed = replay_history(client, table)
        assert replayed == access.state(table.game_id), "the replay is the stored final state"
        history = whole_history(client, table.game_id)
        at_race_end = replay(history, table.kind, raced)
        assert at_race_end == engine.decode(record.state), "the replay is the raced state"
        # The finished game's event stream, as a watcher gets it: every version once.
        versions = [
            r.version
            for r in client.watch(api.WatchGameRequest(game_id=table.game_id), timeout=60)
            if r.version and r.events
        ]
        assert versions == list(range(1, len(history.entries) + 1))
        totals["raced"] += raced
        totals["finished"] += len(history.entries) - raced
    return dict(totals)


# ---- players' lists of games under the race --------------------------------------------


@dataclass(frozen=True)
class Listing:
    """One game as ListMyGames showed it to a player during the race, and the game's
    version read just before and just after."""

    game_id: str
    seat: int
    version: int
    to_move: int | None
    your_turn: bool
    before: int
    after: int


def list_my_games_meanwhile(
    ports: list[Endpoint], players: list[str], seconds: float, found: list[Listing]
) -> Callable[[], None]:
    """A `during` for `run_race`: players' ListMyGames over and over, each bracketed by
    GetGame of every game listed, alternating workers and transports."""

    def during() -> None:
        deadline = time.monotonic() + seconds
        clients = [GrpcClient(g) for g, _ in ports] + [RestClient(h) for _, h in ports]
        n = 0
        while time.monotonic() < deadline:
            client = clients[n % len(clients)]
            token = players[n % len(players)]
            n += 1
            listed = client.call("ListMyGames", pb.ListMyGamesRequest(), token).games
            before = {g.game_id: _version(client, g.game_id) for g in listed}
            listed = client.call("ListMyGames", pb.ListMyGamesRequest(), token).games
            for game in listed:
                found.append(
                    Listing(
                        game.game_id,
                        game.seat,
                        game.version,
                        game.to_move if game.HasField("to_move") else None,
                        game.your_turn,
                        before.get(game.game_id, 0),
                        _version(client, game.game_id),
                    )
                )
        for client in clients:
            client.close()

    return during


def _version(client: ApiClient, game_id: str) -> int:
    return int(client.call("GetGame", api.GetGameRequest(game_id=game_id)).view.version)


def check_listings(client: ApiClient, tables: list[Table], listings: list[Listing]) -> int:
    """Every listing showed the game as it truly was at a version between the reads around
    it: never a stale state. (After the race, every game is over: its history replays from
    the revealed seed to the listed version.)"""
    histories = {t.game_id: whole_history(client, t.game_id) for t in tables}
    kinds = {t.game_id: t.kind for t in tables}
    for listing in listings:
        assert listing.before <= listing.version <= listing.after, listing
        state = replay(histories[listing.game_id], kinds[listing.game_id], listing.version)
        to_move = None if state.is_over() else state.to_move
        assert listing.to_move == to_move, listing
        assert listing.your_turn == (to_move == listing.seat), listing
    return len(listings)


# ---- the checks after a failover, which may lose acknowledged moves ------------------------


def check_after_failover(
    access: StoreAccess, client: ApiClient, tables: list[Table], acks: list[Ack]
) -> Counter[str]:
    """What a failover did to the acknowledged moves: `acknowledged` (request ids answered
    as applied), `missing` (an answer whose version does not hold its move now), `doubled`
    (one request applied at two versions that both hold it). Whatever was lost, each game
    must still be whole: its stream has versions 1..N with no gap or repeat, and its
    history replays from the revealed seed to the state stored (no move was made on a
    state that is not the game's)."""
    answers: dict[tuple[str, str], set[int]] = defaultdict(set)
    for ack in acks:
        answers[(ack.game_id, ack.request_id)].add(ack.version)
    tally = Counter[str]()
    for table in tables:
        record = access.record(table.game_id)
        raced = record.version
        ids = [entry.id for entry in access.entries(table.game_id)]
        assert ids == [(0, seat + 1) for seat in range(table.seats)] + [
            (v, 0) for v in range(1, raced + 1)
        ], ids
        final = play_to_the_end(client, table, random.Random(table.game_id))
        assert final.status == types.GAME_STATUS_FINISHED
        history = whole_history(client, table.game_id)
        assert replay(history, table.kind, raced) == engine.decode(record.state)
        assert replay_history(client, table) == access.state(table.game_id)

        def holds(ack: Ack, history: api.GetHistoryResponse = history, raced: int = raced) -> bool:
            if ack.version > raced:
                return False
            entry = history.entries[ack.version - 1]
            return (entry.seat, entry.move.SerializeToString()) == (ack.seat, ack.move)

        mine = [a for a in acks if a.game_id == table.game_id]
        held = {(a.request_id, a.version) for a in mine if holds(a)}
        for request_id in {a.request_id for a in mine}:
            versions = answers[(table.game_id, request_id)]
            tally["acknowledged"] += 1
            kept = {v for v in versions if (request_id, v) in held}
            tally["missing"] += not kept
            tally["doubled"] += len(kept) > 1
            tally["answered_again"] += len(versions) > 1
        tally["raced"] += raced
    return tally
