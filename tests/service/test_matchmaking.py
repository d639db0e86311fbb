"""Matchmaking and ratings: how tables form (by arrival, by rating window, filled with bots),
the store's tickets and ratings on both backends, and players matched end to end over gRPC
and REST, on the memory store and on Redis, through a rated game to the leaderboard."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import AsyncIterator, Callable

import pytest

from genial import engine
from genial.service.matchmaking import Rules, Ticket, form_tables
from genial.service.ratings import Skill, bot_player, ranking, rated
from genial.service.records import GameMeta
from genial.service.store import GameStore, MemoryStore, NewMatch
from genial.service.store.redis import RedisStore
from genial.v1 import dice_pb2
from genial.v1 import game_service_pb2 as api
from genial.v1 import match_service_pb2 as mm
from genial.v1 import player_service_pb2 as pb
from genial.v1 import types_pb2 as types
from tests.service.clients import ApiClient, CallError
from tests.service.conftest import MakeClient
from tests.service.players import Watcher, of_type, play_seat, sign_in

RULES = Rules(fill_seconds=3, bots_seconds=10, window=2, growth=0.5)


def ticket(
    name: str,
    created: float,
    least: int = 2,
    most: int = 4,
    mu: float = 25,
    rated_: bool = False,
    bots: bool = False,
    sigma: float = 0.0,
) -> Ticket:
    return Ticket(name, f"p-{name}", "dice", rated_, bots, least, most, mu, created, {}, sigma)


def seated(tables: list) -> list[tuple[list[str], int]]:  # type: ignore[type-arg]
    return [([t.id for t in table.tickets], table.bots) for table in tables]


# ---- forming tables ------------------------------------------------------------------------


def test_casual_tables_form_by_arrival_full_at_once() -> None:
    waiting = [ticket(n, t) for n, t in (("a", 0), ("b", 1), ("c", 2), ("d", 3), ("e", 4))]
    # Four accept four: a full table at once, the fifth waits.
    assert seated(form_tables(waiting, 4.5, RULES)) == [(["a", "b", "c", "d"], 0)]


def test_a_smaller_table_forms_after_the_fill_time_only() -> None:
    waiting = [ticket("a", 0), ticket("b", 1)]
    assert form_tables(waiting, 2.9, RULES) == []
    assert seated(form_tables(waiting, 3.0, RULES)) == [(["a", "b"], 0)]


def test_seat_counts_must_agree() -> None:
    waiting = [ticket("a", 0, 3, 3), ticket("b", 0.1, 2, 2), ticket("c", 0.2, 2, 4)]
    waiting += [ticket("d", 0.3, 3, 4)]
    # a wants exactly 3: b (exactly 2) cannot sit with it; c and d can. b waits.
    assert seated(form_tables(waiting, 0.5, RULES)) == [(["a", "c", "d"], 0)]


def test_rated_tickets_meet_within_a_window_that_widens() -> None:
    waiting = [
        ticket("a", 0, 2, 2, mu=25, rated_=True),
        ticket("b", 0, 2, 2, mu=30, rated_=True),
        ticket("c", 0.5, 2, 2, mu=40, rated_=True),
    ]
    assert form_tables(waiting, 1, RULES) == []  # 5 apart, the window is 2.5
    # After 6 s, a's window is 5: a meets b; c (10 from b) still waits.
    assert seated(form_tables(waiting, 6, RULES)) == [(["a", "b"], 0)]
    # Much later c is alone: nobody to meet, no bots accepted.
    assert form_tables(waiting[2:], 100, RULES) == []


def test_uncertain_ratings_meet_more_broadly() -> None:
    settled = [ticket("a", 0, 2, 2, mu=25, rated_=True), ticket("b", 0, 2, 2, mu=32, rated_=True)]
    assert form_tables(settled, 1, RULES) == []  # 7 apart, the window is 2.5
    # The same mu, but a new player's sigma (25/3): within 2.5 + 8.3.
    uncertain = [settled[0], ticket("b", 0, 2, 2, mu=32, rated_=True, sigma=25 / 3)]
    assert seated(form_tables(uncertain, 1, RULES)) == [(["a", "b"], 0)]


def test_bots_fill_a_table_only_when_everyone_accepts_them() -> None:
    alone = [ticket("a", 0, 3, 4, bots=True)]
    assert form_tables(alone, 9, RULES) == []
    assert seated(form_tables(alone, 10, RULES)) == [(["a"], 2)]  # to the smallest size
    mixed = [ticket("a", 0, 3, 4, bots=True), ticket("b", 1, 3, 4, bots=False)]
    assert form_tables(mixed, 20, RULES) == []


# ---- ratings ---------------------------------------------------------------------------------


def finished(kind: str, seats: int, bots: list[str | None]) -> tuple[GameMeta, engine.GameState]:
    state = engine.new_game(kind, seats, engine.new_seed(), {})
    rnd = random.Random(1)
    while state.to_move is not None:
        state, _ = state.apply(state.to_move, rnd.choice(state.legal_moves()))
    meta = GameMeta(
        kind=kind,
        seats=seats,
        created=0,
        names=["x"] * seats,
        tokens=[None] * seats,
        bots=bots,
        away=[False] * seats,
        players=[None if b else f"p{s}" for s, b in enumerate(bots)],
        finished=True,
        rated=True,
    )
    return meta, state


def test_a_resigned_seat_ranks_last_and_bots_of_one_strength_are_one_player() -> None:
    meta, state = finished("dice", 4, [None, None, "greedy", "greedy"])
    meta.resign(0)
    seats = ranking(meta, state)
    ranks = dict(enumerate(rank for _, rank in seats))
    assert ranks[0] == max(ranks.values())
    assert list(ranks.values()).count(ranks[0]) == 1
    assert [p for p, _ in seats] == ["p0", "p1", bot_player("greedy"), bot_player("greedy")]
    before = {p: Skill() for p, _ in seats}
    after = rated(before, seats)
    assert after["p0"].mu < 25
    assert after["p0"].games == 1
    assert after[bot_player("greedy")].games == 1  # one update, the changes summed


def test_ties_are_ties() -> None:
    after = rated({"a": Skill(), "b": Skill()}, [("a", 1), ("b", 1)])
    assert after["a"].mu == pytest.approx(after["b"].mu)
    assert after["a"].sigma < Skill().sigma


# ---- the store, on both backends ------------------------------------------------------------


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[GameStore]:
    s: GameStore = (
        MemoryStore()
        if request.param == "memory"
        # Database 1: the session's workers match the pools of database 0.
        else RedisStore.from_url(request.getfixturevalue("redis_url").removesuffix("/0") + "/1")
    )
    yield s
    await s.close()


def tid() -> str:
    return secrets.token_urlsafe(12)


async def test_one_ticket_per_kind_and_a_bound_per_player(store: GameStore) -> None:
    player, pool = tid(), tid()
    first = tid()
    assert await store.open_ticket(first, player, "dice", pool, b"{}", 2, 60) == (first, "ok")
    assert await store.open_ticket(tid(), player, "dice", pool, b"{}", 2, 60) == (first, "exists")
    assert (await store.open_ticket(tid(), player, "cards", pool, b"{}", 2, 60))[1] == "ok"
    assert await store.open_ticket(tid(), player, "tiles", pool, b"{}", 2, 60) == ("", "full")
    cancelled = await store.cancel_ticket(first)
    assert cancelled is not None
    assert cancelled.status == "cancelled"
    again = tid()
    assert await store.open_ticket(again, player, "dice", pool, b"{}", 2, 60) == (again, "ok")


async def test_a_ticket_is_matched_once_and_only_while_it_waits(store: GameStore) -> None:
    pool = tid()
    a, b, c, gone = tid(), tid(), tid(), tid()
    for t in (a, b, c, gone):
        await store.open_ticket(t, tid(), "dice", pool, b"{}", 3, 60)
    await store.cancel_ticket(gone)
    assert pool in await store.match_pools()
    g1, g2, g3 = tid(), tid(), tid()
    proposals = [
        NewMatch(g1, b"one", [(a, 0), (gone, 1)]),  # a cancelled ticket: not committed
        NewMatch(g2, b"two", [(a, 1), (b, 0)]),
        NewMatch(g3, b"three", [(b, 0), (c, 1)]),  # b is taken by then
    ]
    assert await store.commit_matches(pool, proposals, [c], time.time(), 60) == [g2]
    found = await store.ticket(a)
    assert found is not None
    assert (found.status, found.game_id, found.seat) == ("matched", g2, 1)
    expired = await store.ticket(c)
    assert expired is not None
    assert expired.status == "expired"
    assert await store.waiting_tickets(pool, 10) == []
    assert pool not in await store.match_pools()
    assert await store.match_spec(g2) == b"two"
    assert g2 in [g for g, _ in await store.matches_due(time.time() + 1, 100)]
    await store.match_done(g2)
    assert await store.match_spec(g2) is None


async def test_a_games_ratings_are_saved_once_over_what_was_read(store: GameStore) -> None:
    kind, game, p, q = tid(), tid(), tid(), tid()
    assert await store.ratings(kind, [p, q]) == [None, None]
    update = [(p, None, b"26.0 8.0 1", 2.0, True), (q, None, b"24.0 8.0 1", 0.0, False)]
    assert await store.save_ratings(kind, game, update) == "ok"
    assert await store.save_ratings(kind, game, update) == "done"
    stale = [(p, None, b"30.0 8.0 1", 6.0, True)]
    assert await store.save_ratings(kind, tid(), stale) == "conflict"
    assert await store.ratings(kind, [p, q]) == [b"26.0 8.0 1", b"24.0 8.0 1"]
    assert await store.leaderboard(kind, 0, 10) == [(p, 2.0)]
    assert await store.leaderboard_rank(kind, p) == 0
    assert await store.leaderboard_rank(kind, q) is None


# ---- end to end ------------------------------------------------------------------------------


def matched(client: ApiClient, ticket_id: str, token: str, timeout: float = 20) -> mm.MatchTicket:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = client.call("GetMatchTicket", mm.GetMatchTicketRequest(ticket_id=ticket_id), token)
        if found.ticket.status != mm.TICKET_STATUS_WAITING:
            return found.ticket  # type: ignore[no-any-return]
        time.sleep(0.1)
    raise AssertionError("the ticket was not matched")


def refused(call: Callable[[], object]) -> tuple[str, str]:
    with pytest.raises(CallError) as caught:
        call()
    return caught.value.code, caught.value.reason


def test_two_players_are_matched_and_hear_of_it(make_client: MakeClient) -> None:
    client = make_client()
    # A kind of options nobody else in the session asks for: only these two meet.
    options = types.GameOptions(rounds=random.randint(2, 10))
    ada = sign_in(client, secrets.token_urlsafe(24), "Ada").access_token
    bob = sign_in(client, secrets.token_urlsafe(24), "Ada").access_token  # the same name
    watcher = Watcher(make_client, bob)
    try:
        ask = mm.FindMatchRequest(
            kind=types.GAME_KIND_DICE, min_seats=2, max_seats=2, options=options
        )
        first = client.call("FindMatch", ask, ada).ticket
        assert first.status == mm.TICKET_STATUS_WAITING
        # Asking again gives the same ticket.
        assert client.call("FindMatch", ask, ada).ticket.ticket_id == first.ticket_id
        second = client.call("FindMatch", ask, bob).ticket
        mine, theirs = matched(client, first.ticket_id, ada), matched(client, second.ticket_id, bob)
        assert mine.status == theirs.status == mm.TICKET_STATUS_MATCHED
        assert mine.game_id == theirs.game_id
        assert {mine.seat, theirs.seat} == {0, 1}
        started = watcher.wait_for(of_type(pb.PLAYER_EVENT_TYPE_GAME_STARTED, mine.game_id))
        assert started.game_id == mine.game_id
        listed = client.call("ListMyGames", pb.ListMyGamesRequest(), ada).games
        assert [(g.game_id, g.seat) for g in listed if g.game_id == mine.game_id] == [
            (mine.game_id, mine.seat)
        ]
        view = client.call("GetGame", api.GetGameRequest(game_id=mine.game_id), ada).view
        assert view.status == types.GAME_STATUS_PLAYING
        assert sorted(p.display_name for p in view.players) == ["Ada", "Ada (2)"]
        # A watch replays the log: the players seated by the match are in it as joins, so
        # its views show the game playing, as GetGame does, and whose turn it is.
        roll = types.Move(dice=dice_pb2.DiceMove(roll=dice_pb2.DiceRoll()))
        roll_request = api.MakeMoveRequest(game_id=mine.game_id, move=roll)
        client.call("MakeMove", roll_request, ada if view.to_move == mine.seat else bob)
        watch = client.watch(api.WatchGameRequest(game_id=mine.game_id, from_version=0), ada)
        updates = [next(watch) for _ in range(3)]
        assert [[e.WhichOneof("event") for e in u.events] for u in updates] == [
            ["player_joined"],
            ["player_joined", "game_started"],
            ["dice"],
        ]
        assert [u.view.status for u in updates] == [
            types.GAME_STATUS_WAITING,  # the first seat of two taken
            types.GAME_STATUS_PLAYING,
            types.GAME_STATUS_PLAYING,
        ]
        assert updates[2].view.to_move == view.to_move
        # A matched ticket stays matched; another player's ticket is nobody else's business.
        cancel = mm.CancelMatchRequest(ticket_id=first.ticket_id)
        assert client.call("CancelMatch", cancel, ada).ticket.status == mm.TICKET_STATUS_MATCHED
        assert refused(lambda: client.call("CancelMatch", cancel, bob))[1] == "TICKET_NOT_FOUND"
    finally:
        watcher.stop()


def test_refusals(client: ApiClient) -> None:
    token = sign_in(client, secrets.token_urlsafe(24)).access_token
    dice = types.GAME_KIND_DICE
    assert refused(lambda: client.call("FindMatch", mm.FindMatchRequest(kind=dice))) == (
        "UNAUTHENTICATED",
        "TOKEN_MISSING",
    )
    bad = [
        (mm.FindMatchRequest(), "UNKNOWN_GAME"),
        (mm.FindMatchRequest(kind=dice, min_seats=3, max_seats=2), "BAD_SEAT_RANGE"),
        (mm.FindMatchRequest(kind=dice, max_seats=5), "BAD_SEAT_RANGE"),
        (mm.FindMatchRequest(kind=dice, options=types.GameOptions(line_length=5)), "BAD_OPTION"),
    ]
    for request, reason in bad:
        assert refused(lambda r=request: client.call("FindMatch", r, token))[1] == reason  # type: ignore[misc]
    get = mm.GetMatchTicketRequest(ticket_id="x")
    assert refused(lambda: client.call("GetMatchTicket", get, token))[1] == "BAD_TICKET_ID"
    get = mm.GetMatchTicketRequest(ticket_id="A" * 16)
    assert refused(lambda: client.call("GetMatchTicket", get, token))[1] == "TICKET_NOT_FOUND"
    board = mm.ListLeaderboardRequest()
    assert refused(lambda: client.call("ListLeaderboard", board))[1] == "UNKNOWN_GAME"
    board = mm.ListLeaderboardRequest(kind=dice, page_token="x")
    assert refused(lambda: client.call("ListLeaderboard", board))[1] == "BAD_PAGE"
    who = mm.GetRatingsRequest(player_id="a b")
    assert refused(lambda: client.call("GetRatings", who))[1] == "BAD_PLAYER_ID"


def test_a_rated_game_with_a_bot_moves_both_ratings(make_client: MakeClient) -> None:
    client = make_client()
    session = sign_in(client, secrets.token_urlsafe(24), "Rae")
    token, me = session.access_token, session.player.player_id
    options = types.GameOptions(line_length=random.randint(3, 4))  # a pool of its own
    ask = mm.FindMatchRequest(
        kind=types.GAME_KIND_TILES,
        min_seats=2,
        max_seats=2,
        options=options,
        rated=True,
        accept_bots=True,
    )
    found = matched(client, client.call("FindMatch", ask, token).ticket.ticket_id, token)
    view = client.call("GetGame", api.GetGameRequest(game_id=found.game_id), token).view
    (bot,) = [p.bot for p in view.players if p.HasField("bot")]
    strength = types.BotStrength.Name(bot).removeprefix("BOT_STRENGTH_").lower()
    bot_before = client.call("GetRatings", mm.GetRatingsRequest(player_id=f"bot-{strength}"))
    play_seat(client, found.game_id, token, random.Random(found.game_id))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        mine = client.call("GetRatings", mm.GetRatingsRequest(), token)
        if mine.ratings:
            break
        time.sleep(0.1)
    assert mine.player_id == me
    assert not mine.bot
    (rating,) = mine.ratings
    assert rating.kind == types.GAME_KIND_TILES
    assert rating.games == 1
    assert rating.displayed == pytest.approx(rating.mu - 3 * rating.sigma)
    assert rating.sigma < Skill().sigma
    bot_after = client.call("GetRatings", mm.GetRatingsRequest(player_id=f"bot-{strength}"))
    assert bot_after.bot
    games = {r.kind: r.games for r in bot_before.ratings}.get(types.GAME_KIND_TILES, 0)
    assert [r.games for r in bot_after.ratings if r.kind == types.GAME_KIND_TILES] >= [games + 1]
    board = client.call(
        "ListLeaderboard",
        mm.ListLeaderboardRequest(kind=types.GAME_KIND_TILES, page_size=100),
        token,
    )
    assert board.min_games == 1
    assert board.your_rank >= 1
    assert [e.player_id for e in board.entries if e.rank == board.your_rank] == [me] or (
        board.your_rank > 100
    )
    ranks = [e.rank for e in board.entries]
    assert ranks == list(range(1, len(ranks) + 1))
    # On a page without the caller (the one row after its place), the same rank from Redis,
    # unless others' games moved it meanwhile.
    after = client.call(
        "ListLeaderboard",
        mm.ListLeaderboardRequest(
            kind=types.GAME_KIND_TILES, page_size=1, page_token=str(board.your_rank)
        ),
        token,
    )
    assert me not in [e.player_id for e in after.entries]
    assert after.your_rank >= 1
    shown = [e.rating.displayed for e in board.entries]
    assert shown == sorted(shown, reverse=True)
