"""Hidden information, over hundreds of random games played through two workers with every
seat and a spectator watching: no view, event, error, legal-move list or history shows a
seat another seat's hand or, before the end, the seed; no answer carries a token but the
JoinGame that hands it out; no log line holds a token or a seed.

Each game is checked after its end against its replay from the revealed seed: every view a
caller got is exactly the engine's view for that caller at that version, and the engine's
view does not change when everything the caller may not know (the other hands, the seed,
the generator's position) is dealt anew.
"""

from __future__ import annotations

import copy
import random
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from genial import engine
from genial.engine.cards import CARD_NAMES
from genial.service import convert
from genial.v1 import cards_pb2
from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types
from tests.reliability.conftest import Spawn
from tests.reliability.harness import (
    LoggedWorker,
    assert_logs_are_json,
    assert_no_internal_errors,
    assert_no_secret_in_logs,
    count,
    log_lines,
)
from tests.reliability.race import replay
from tests.service.clients import ApiClient, CallError, GrpcClient, RestClient, whole_history
from tests.service.scenarios import Table, open_table

GAMES = 200
PARALLEL = 6
CARD = cards_pb2.DESCRIPTOR.enum_types_by_name["Card"]
CARD_PATHS = {
    ("players", "open_cards"),  # every seat's open cards, on the table
    ("cards", "hand"),  # the viewer's own hand (checked against the replay)
    ("play", "card"),  # a card played (a move, or its event)
    ("swap", "cards"),  # the hand a seat shows when it swaps it
    ("open_cards", "cards"),  # the deal's open cards
}
"""Where a card may appear in any answer (the last two field names of its path)."""
CARD_WORDS = re.compile(
    "|".join(sorted({*CARD_NAMES, *(n.upper() for n in CARD_NAMES)}, key=len, reverse=True))
)


@dataclass
class Seen:
    """Everything one caller (a seat, or None for a spectator) was answered."""

    seat: int | None
    views: list[types.GameView] = field(default_factory=list)
    watched: list[api.WatchGameResponse] = field(default_factory=list)
    answers: list[Message] = field(default_factory=list)
    errors: list[tuple[CallError, str | None]] = field(default_factory=list)
    """Refusals, with the card the refused move named (if any)."""


@dataclass
class Played:
    table: Table
    seen: dict[int | None, Seen]
    moves: int = 0
    watch_failures: list[str] = field(default_factory=list)


def game_options(kind: str, rnd: random.Random) -> dict[str, Any]:
    """Short games, so that hundreds fit in the time."""
    if kind == "dice":
        return {"sections": rnd.choice([[1], [2], [1, 1], [3]])}
    if kind == "tiles":
        return {"line_length": 3}
    return {}


def watch(client: ApiClient, table: Table, seen: Seen, failures: list[str]) -> None:
    token = table.tokens[seen.seat] if seen.seat is not None else None
    try:
        for answer in client.watch(api.WatchGameRequest(game_id=table.game_id), token, 300):
            seen.watched.append(answer)
    except Exception as exc:  # reported by the game's check
        failures.append(f"{table.game_id} seat {seen.seat}: {exc!r}")


def play_one(number: int, workers: list[LoggedWorker]) -> Played:
    """One game, its seats and a spectator watching, played at random with some refusals."""
    rnd = random.Random(number)
    kind = ("cards", "dice", "tiles")[number % 3]
    worker = workers[number % len(workers)]
    grpc_client, rest_client = GrpcClient(worker.grpc_port), RestClient(worker.http_port)
    clients: list[ApiClient] = [grpc_client, rest_client]
    try:
        seats = rnd.randint(2, 4)
        table = open_table(clients[number % 2], kind, seats, **game_options(kind, rnd))
        played = Played(table, {s: Seen(s) for s in [None, *range(seats)]})
        watchers = [
            threading.Thread(
                target=watch,
                args=(clients[(number + i) % 2], table, seen, played.watch_failures),
            )
            for i, seen in enumerate(played.seen.values())
        ]
        for thread in watchers:
            thread.start()
        view = None
        while True:
            client = rnd.choice(clients)
            if view is None or rnd.random() < 0.2:
                view = client.call("GetGame", api.GetGameRequest(game_id=table.game_id)).view
                played.seen[None].views.append(view)
            if view.status == types.GAME_STATUS_FINISHED:
                break
            mover = view.to_move
            if rnd.random() < 0.15 and probe(client, table, played, mover, rnd):
                view = None
                continue  # the probe's move was legal for the mover
            legal = client.call(
                "ListLegalMoves",
                api.ListLegalMovesRequest(game_id=table.game_id),
                table.tokens[mover],
            )
            played.seen[mover].answers.append(legal)
            made = client.call(
                "MakeMove",
                api.MakeMoveRequest(
                    game_id=table.game_id,
                    move=rnd.choice(legal.moves),
                    expected_version=legal.version,
                ),
                table.tokens[mover],
            )
            played.seen[mover].answers.append(made)
            played.seen[mover].views.append(made.view)
            played.moves += 1
            view = made.view
        for thread in watchers:
            thread.join(120)
        for seat in range(seats):
            # Every page of the history, as one answer.
            ask = api.GetHistoryRequest(game_id=table.game_id, page_size=500)
            history = rnd.choice(clients).call("GetHistory", ask, table.tokens[seat])
            while history.next_page_token:
                ask.page_token = history.next_page_token
                page = rnd.choice(clients).call("GetHistory", ask, table.tokens[seat])
                history.entries.extend(page.entries)
                history.next_page_token = page.next_page_token
                history.seed = page.seed or history.seed
            played.seen[seat].answers.append(history)
        return played
    finally:
        grpc_client.close()
        rest_client.close()


def probe(client: ApiClient, table: Table, played: Played, mover: int, rnd: random.Random) -> bool:
    """What a curious seat tries: another seat's legal moves, its view, its history, a move
    out of turn, a card it does not hold. True if the mover's try was a legal move."""
    other = rnd.choice([s for s in range(table.seats) if s != mover])
    token = table.tokens[other]
    seen = played.seen[other]
    legal = client.call("ListLegalMoves", api.ListLegalMovesRequest(game_id=table.game_id), token)
    assert not legal.moves, "only the seat to move has legal moves"
    seen.answers.append(legal)
    seen.views.append(client.call("GetGame", api.GetGameRequest(game_id=table.game_id), token).view)
    seen.answers.append(whole_history(client, table.game_id, token))
    move = types.Move()
    card = None
    if table.kind == "cards":
        card = rnd.choice([c for c in cards_pb2.Card.values() if c])
        move.cards.play.card = card
        move.cards.play.first = rnd.randint(1, 6)
    elif table.kind == "dice":
        move.dice.roll.SetInParent()
    else:
        move.tiles.reveal.SetInParent()
    for seat in (other, mover):
        try:
            made = client.call(
                "MakeMove",
                api.MakeMoveRequest(game_id=table.game_id, move=move),
                table.tokens[seat],
            )
        except CallError as err:
            name = cards_pb2.Card.Name(card) if card is not None else None
            played.seen[seat].errors.append((err, name))
        else:  # the move was legal for the mover: the game went on
            played.seen[seat].answers.append(made)
            played.seen[seat].views.append(made.view)
            played.moves += 1
            return True
    return False


# ---- the checks ---------------------------------------------------------------------------


def card_paths(message: Message, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The path of every card a message holds."""
    for fd, value in message.ListFields():
        here = (*path, fd.name)
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            for sub in value if fd.is_repeated else [value]:
                yield from card_paths(sub, here)
        elif fd.type == FieldDescriptor.TYPE_ENUM and fd.enum_type == CARD:
            yield here


def perturbed(state: engine.GameState, seat: int | None, rnd: random.Random) -> engine.GameState:
    """The same game as `seat` knows it, with all it may not know dealt anew: another seed
    and generator position and, in the card game, other hands of the same sizes."""
    data = copy.deepcopy(state.to_data())  # to_data shares the state's lists
    data["seed"] = rnd.randbytes(engine.core.SEED_BYTES).hex()
    data["rng_counter"] = rnd.randrange(10_000)
    if state.kind == "cards":
        rnd_data = data["table"]
        others = [s for s in range(state.seats) if s != seat]
        pool = list(rnd_data["deck"])
        for s in others:
            for card in rnd_data["hands"][s]:
                pool[card] += 1
        for s in others:
            hand = []
            for _ in rnd_data["hands"][s]:
                card = rnd.choices(range(len(pool)), weights=pool)[0]
                pool[card] -= 1
                hand.append(card)
            rnd_data["hands"][s] = sorted(hand)
        rnd_data["deck"] = pool
    return type(state).from_data(data)


def expected_view(kind: str, state: engine.GameState, seat: int | None) -> types.GameView:
    view = types.GameView()
    convert.table_to_proto(kind, state.view(seat)["table"], view)
    return view


def check_game(played: Played) -> dict[str, int]:
    table = played.table
    assert not played.watch_failures, played.watch_failures
    history = spectator_history(played)
    seed = bytes.fromhex(history.seed)
    final = len(history.entries)
    states = [replay(history, table.kind, 0)]
    for entry in history.entries:
        states.append(states[-1].apply(entry.seat, convert.engine_move(table.kind, entry.move))[0])
    checked: set[tuple[int, int | None]] = set()
    rnd = random.Random(table.game_id)
    secrets = [s.encode() for s in table.tokens]
    numbers = {"views": 0, "events": 0, "errors": 0, "answers": 0}
    events_by_version: dict[int, list[types.Event]] = {}
    for who, seen in played.seen.items():
        stream = [w for w in seen.watched if w.events]
        # Every version once, in order, after the joins.
        assert [w.version for w in stream if w.version] == list(range(1, final + 1))
        for answer in stream:
            if answer.version:
                events = list(answer.events)
                assert events_by_version.setdefault(answer.version, events) == events, (
                    "every watcher gets the same events"
                )
                numbers["events"] += len(events)
        views = seen.views + [w.view for w in stream]
        for view in views:
            assert view.HasField("viewer") == (who is not None)
            assert who is None or view.viewer == who
            state = states[view.version]
            mine = expected_view(table.kind, state, who)
            assert getattr(view, table.kind) == getattr(mine, table.kind), (who, view.version)
            assert list(view.points) == state.points
            assert list(view.last_events) == [
                convert.proto_event(table.kind, e) for e in state.view(who)["last_events"]
            ]
            if (view.version, who) not in checked:
                checked.add((view.version, who))
                assert state.view(who) == perturbed(state, who, rnd).view(who), "a secret shows"
            assert (view.seed != "") == (view.version == final), "the seed only at the end"
            numbers["views"] += 1
        for message in [*views, *seen.answers, *(w for w in seen.watched)]:
            raw = message.SerializeToString()
            version = getattr(message, "version", final)
            if isinstance(message, api.GetHistoryResponse):
                version = final if message.seed else 0
            if version < final:
                assert seed.hex().encode() not in raw, "the seed shows early"
                assert seed not in raw, "the seed shows early"
            assert not any(s in raw for s in secrets), "an answer carries a token"
            for path in card_paths(message):
                assert path[-2:] in CARD_PATHS, path
            numbers["answers"] += 1
        for err, named in seen.errors:
            text = f"{err.message} {err.metadata}"
            assert seed.hex() not in text
            assert not any(s.decode() in text for s in secrets)
            shown = {m.lower() for m in CARD_WORDS.findall(text)}
            assert shown <= ({named.removeprefix("CARD_").lower()} if named else set()), text
            assert err.code in ("FAILED_PRECONDITION",), err
            numbers["errors"] += 1
    return numbers


def spectator_history(played: Played) -> api.GetHistoryResponse:
    histories = [
        a
        for seen in played.seen.values()
        for a in seen.answers
        if isinstance(a, api.GetHistoryResponse)
    ]
    final = [h for h in histories if h.seed]
    assert final, "every seat got the history at the end"
    return final[-1]


def test_no_answer_or_log_line_shows_what_a_caller_may_not_see(
    spawn: Spawn, redis_url: str
) -> None:
    workers = spawn(redis_url, 2, "--log-level", "DEBUG")
    with ThreadPoolExecutor(PARALLEL) as pool:
        games = list(pool.map(lambda n: play_one(n, workers), range(GAMES)))
    totals = {"views": 0, "events": 0, "errors": 0, "answers": 0}
    secrets: list[str] = []
    for played in games:
        for name, value in check_game(played).items():
            totals[name] += value
        history = spectator_history(played)
        secrets += [*played.table.tokens, history.seed]
    assert totals["errors"] > GAMES // 2
    lines = assert_logs_are_json(workers)
    assert lines > GAMES, "the workers logged (at DEBUG) while the games were played"
    assert_no_secret_in_logs(workers, secrets)
    for line in log_lines(workers):
        assert not CARD_WORDS.search(line), f"a log line names a card: {line[:300]}"
    for worker in workers:
        metrics = httpx.get(f"{worker.admin_url}/metrics", timeout=10).text
        assert not [s for s in secrets if s in metrics], "the metrics show a secret"
    assert_no_internal_errors(workers)
    count(
        hidden_info_games=len(games),
        hidden_info_moves=sum(p.moves for p in games),
        hidden_info_watchers=sum(len(p.seen) for p in games),
        hidden_info_views_checked=totals["views"],
        hidden_info_events_checked=totals["events"],
        hidden_info_answers_checked=totals["answers"],
        hidden_info_refusals_checked=totals["errors"],
        hidden_info_log_lines_scanned=lines,
        hidden_info_leaks=0,
    )
