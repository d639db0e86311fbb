"""Lost updates: three workers and 36 clients in four processes race on the same four games
over gRPC and REST, half of the moves with `expected_version`; no acknowledged move is lost
or applied twice, and each game replays from its seed to the state Redis holds."""

from __future__ import annotations

from tests.reliability.conftest import Spawn
from tests.reliability.harness import LoggedWorker, StoreAccess, assert_no_internal_errors, count
from tests.reliability.race import check_games, endpoints, run_race
from tests.service.clients import GrpcClient
from tests.service.scenarios import Table, open_table

PROCESSES = 4
CLIENTS_PER_PROCESS = 9
SECONDS = 25.0


def open_race_tables(client: GrpcClient) -> list[Table]:
    """Four games long enough (several rounds) to outlast the race."""
    return [
        open_table(client, "cards", 4, rounds=3),
        open_table(client, "dice", 2, rounds=3),
        open_table(client, "tiles", 3, rounds=3),
        open_table(client, "cards", 2, rounds=4),
    ]


def lost_update_race(workers: list[LoggedWorker], access: StoreAccess, label: str) -> None:
    """The race and its checks, against any store the workers share."""
    client = GrpcClient(workers[0].grpc_port)
    tables = open_race_tables(client)
    result = run_race(
        endpoints(workers),
        tables,
        processes=PROCESSES,
        clients_per_process=CLIENTS_PER_PROCESS,
        seconds=SECONDS,
    )
    assert not result.errors, "\n".join(result.errors[:10])
    stale = result.refused["STALE_VERSION"]
    assert stale > 0, "clients with expected_version lost races"
    totals = check_games(access, client, tables, result.acks)
    assert totals["raced"] == len({(a.game_id, a.request_id) for a in result.acks})
    assert totals["raced"] > 300, f"the race made progress: {totals}"
    for worker in workers:
        assert worker.proc.poll() is None
    assert_no_internal_errors(workers)
    client.close()
    count(
        **{
            f"{label}_clients": PROCESSES * CLIENTS_PER_PROCESS,
            f"{label}_workers": len(workers),
            f"{label}_games": len(tables),
            f"{label}_move_attempts": result.attempts,
            f"{label}_moves_sent": result.sends,
            f"{label}_moves_acknowledged": totals["raced"],
            f"{label}_moves_refused": sum(result.refused.values()),
            f"{label}_moves_lost": 0,
        }
    )


def test_racing_clients_lose_no_update(redis_url: str, spawn: Spawn) -> None:
    workers = spawn(redis_url, 3)
    lost_update_race(workers, StoreAccess(redis_url), "race")
