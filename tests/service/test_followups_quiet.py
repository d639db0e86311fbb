"""A quiet write's follow-up waits for the next write's (`FollowUps.plan`): that is sound only
if a change that calls for nothing, followed by another, calls for what the other alone
does. Checked here on random games of every kind, with players and bots at the seats,
timers and timeouts, for every pair of consecutive moves whose first is idle."""

from __future__ import annotations

import random

import msgspec
import pytest

from genial import engine
from genial.service.followups import Change, Snapshot
from genial.service.games import new_meta
from genial.service.history import PlayedMove
from genial.service.log_entries import Cause, service_events
from genial.service.players.feed import events_of
from genial.service.records import GameMeta


def seated(kind: str, seats: int, rnd: random.Random) -> GameMeta:
    """A started game: some seats bots, the others players; maybe a timer."""
    bots: list[str | None] = [rnd.choice([None, None, "random"]) for _ in range(seats)]
    if all(bots):
        bots[0] = None
    meta = new_meta(kind, bots, rnd.choice([None, 30]), 1000.0)
    for seat in range(seats):
        if bots[seat] is None:
            meta.names[seat] = f"player {seat}"
            meta.bind(seat, f"p{seat}")
    return meta


def feed(change: Change) -> dict[str, list[bytes]]:
    return {
        player: [event.SerializeToString(deterministic=True) for event in events]
        for player, events in events_of(change).items()
    }


@pytest.mark.parametrize("kind", ["cards", "dice", "tiles"])
@pytest.mark.parametrize("seats", [2, 3])
def test_an_idle_change_joined_with_the_next_calls_for_what_the_next_does(
    kind: str, seats: int
) -> None:
    rnd = random.Random(f"{kind}{seats}")
    checked = eventful = 0
    for _ in range(3):
        meta = seated(kind, seats, rnd)
        snapshots = [Snapshot(0, meta)]
        state = engine.new_game(kind, seats, rnd.randbytes(16))
        steps: list[tuple[GameMeta, PlayedMove, engine.GameState]] = []
        version = 0
        while not state.is_over() and version < 400:
            seat = state.to_move
            assert seat is not None
            cause = Cause.PLAYER
            if meta.bots[seat] is not None:
                cause = Cause.BOT
            elif meta.turn_seconds and rnd.random() < 0.1:
                cause = Cause.TIMEOUT
            after = msgspec.structs.replace(meta, away=list(meta.away))
            before_events = service_events(after.away, seat, cause)
            move = rnd.choice(state.legal_moves())
            state, events = state.apply(seat, move)
            version += 1
            after.finished = state.is_over()
            after.turn_started = 1000.0 + version
            played = PlayedMove(
                version, seat, move, before_events + events, cause in Cause.AUTOMATIC
            )
            steps.append((after, played, state))
            meta = after
        snapshots += [Snapshot(played.version, after) for after, played, _ in steps]
        for i in range(len(steps) - 1):
            first = Change("g", snapshots[i], snapshots[i + 1], steps[i][2], [steps[i][1]])
            if first.after.meta.finished or events_of(first):
                continue
            then, state_then = [steps[i + 1][1]], steps[i + 1][2]
            second = Change("g", snapshots[i + 1], snapshots[i + 2], state_then, then)
            both = [steps[i][1], *then]
            joined = Change("g", snapshots[i], snapshots[i + 2], state_then, both)
            assert feed(joined) == feed(second), (kind, i)
            checked += 1
            eventful += bool(feed(second))
    assert checked > 20
    assert eventful > 5  # the pairs checked include ones whose second change has events
