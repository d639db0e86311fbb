"""Matchmaking: tickets, the matcher every worker runs, and the games it makes.

A ticket waits in a pool: its kind, rated or casual, and its options (only tickets asking for
the same game meet). Every worker runs the matcher: it reads a pool's waiting tickets,
forms tables (`form_tables`) and commits them with one Redis script that seats a table only
if all its tickets still wait (`commit_matches.lua`). Workers may propose tables from the
same tickets at once; the first commit wins and the others' proposals are dropped, so a
ticket is matched once and a player (one ticket per kind) sits at one table from it. No
lease is needed for safety: the script is the only place a ticket leaves `waiting`.

A committed match is kept, due a lease later, until its game is made: the worker makes the
game (every seat taken, the players' names, bots where the table was filled with them),
hands its start to the follow-ups (the players' events and game lists: the match arrives on
WatchPlayer and in ListMyGames), then forgets the match. If it died in between, the match
comes due and any worker makes it (creating a game whose id exists is a no-op; follow-ups
are idempotent).

Casual tables form by arrival. Rated tables gather tickets whose mu is within a window of
the oldest ticket's, a window that widens with the oldest ticket's wait, so that nobody
waits for ever, and by the two ratings' sigma, so that uncertain ratings meet broadly. A
table smaller than every player's largest accepted size forms only after
`match_fill_seconds`; after `match_bots_seconds` the built-in bots fill a table whose
players all accept bots (the bot whose rating is nearest the players' for rated games).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from genial import engine
from genial.bots import STRENGTHS
from genial.v1 import match_service_pb2 as pb

from . import convert
from .credentials import Principal
from .errors import ApiError, Reason
from .followups import FollowUps
from .games import MAX_NAME, Games, ProfileName, folded, new_meta
from .ratings import Ratings, bot_player
from .settings import Settings
from .store import GameStore, NewMatch, TicketState

log = logging.getLogger("genial.matchmaking")

MATCH_SECONDS = 0.2
"""How often a worker's matcher looks at the pools (with a random jitter)."""
POOL_TICKETS = 1000
"""Tickets of one pool a matcher looks at, the oldest first."""
MATCH_LEASE = 5.0
"""Seconds before another worker makes a committed match's game."""
KEEP_SECONDS = 3600.0
"""Seconds a ticket is kept after it stopped waiting, for GetMatchTicket."""
TICKET_ID = re.compile(r"[A-Za-z0-9_-]{16}")
CASUAL_BOT = "greedy"
STATUSES = {
    "waiting": pb.TICKET_STATUS_WAITING,
    "matched": pb.TICKET_STATUS_MATCHED,
    "cancelled": pb.TICKET_STATUS_CANCELLED,
    "expired": pb.TICKET_STATUS_EXPIRED,
}


class Ticket(msgspec.Struct, frozen=True):
    """A ticket as opened."""

    id: str
    player: str
    kind: str
    rated: bool
    bots: bool
    least: int
    most: int
    mu: float
    created: float
    options: dict[str, Any]
    sigma: float = 0.0
    """The rating's uncertainty when the ticket was opened (rated tickets)."""


class MatchSpec(msgspec.Struct, frozen=True):
    """A committed match's game: who sits where (a player, or a bot's strength)."""

    kind: str
    rated: bool
    options: dict[str, Any]
    players: list[str | None]
    bots: list[str | None]


_ticket = msgspec.json.Decoder(Ticket)
_spec = msgspec.json.Decoder(MatchSpec)


@dataclass(frozen=True, slots=True)
class Rules:
    """How tables form (from the settings)."""

    fill_seconds: float
    bots_seconds: float
    window: float
    growth: float


@dataclass(frozen=True, slots=True)
class Table:
    """A table formed: its tickets, and the bots to add."""

    tickets: list[Ticket]
    bots: int


def pool_of(kind: str, rated: bool, options: dict[str, Any]) -> str:
    """The pool of tickets that may meet: the kind, rated or casual, the options."""
    digest = hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:16]
    return f"{kind}.{'rated' if rated else 'casual'}.{digest}"


def form_tables(waiting: Sequence[Ticket], now: float, rules: Rules) -> list[Table]:
    """The tables to seat from a pool's waiting tickets (the oldest first).

    Each ticket in turn, the oldest first, gathers the later ones that fit: a seat count all
    accept, and for rated tickets a mu within the window of the oldest's (which widens as it
    waits) widened by both ratings' sigma (uncertain ratings meet broadly, so that they
    settle soon; settled ones meet their like). The table forms when it is full (the
    largest size all accept), or when the oldest has waited `fill_seconds` and the table is
    large enough, or when it has waited `bots_seconds` and everyone accepts bots (who fill
    it to the smallest size accepted).
    """
    seated: set[str] = set()
    tables = []
    for first in waiting:
        if first.id in seated:
            continue
        waited = now - first.created
        window = rules.window + rules.growth * waited
        table, least, most = [first], first.least, first.most
        for other in waiting:
            if len(table) == most:
                break
            if other.id in seated or other is first or other.created < first.created:
                continue
            if first.rated and abs(other.mu - first.mu) > window + first.sigma + other.sigma:
                continue
            low, high = max(least, other.least), min(most, other.most)
            if low > high or high < len(table) + 1:
                continue
            table.append(other)
            least, most = low, high
        if len(table) >= least and (len(table) == most or waited >= rules.fill_seconds):
            found = Table(table, 0)
        elif waited >= rules.bots_seconds and all(t.bots for t in table):
            found = Table(table, least - len(table))
        else:
            continue
        tables.append(found)
        seated.update(t.id for t in table)
    return tables


def _decoded(data: bytes | None) -> Ticket | None:
    """A stored ticket; None for one that expired or that this version cannot read."""
    try:
        return _ticket.decode(data) if data is not None else None
    except msgspec.DecodeError:
        return None


def _status(state: TicketState, ticket: Ticket) -> pb.MatchTicket:
    found = pb.MatchTicket(
        ticket_id=ticket.id,
        status=STATUSES[state.status],
        kind=convert.kind_enum(ticket.kind),
        rated=ticket.rated,
        game_id=state.game_id,
        seat=state.seat,
    )
    found.created_at.FromMilliseconds(int(ticket.created * 1000))
    return found


class Matchmaker:
    """FindMatch, CancelMatch, GetMatchTicket, and the matcher of every worker."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        games: Games,
        followups: FollowUps,
        ratings: Ratings,
        profile_name: ProfileName,
    ) -> None:
        self.store = store
        self.settings = settings
        self.games = games
        self.followups = followups
        self.ratings = ratings
        self.profile_name = profile_name
        self.rules = Rules(
            settings.match_fill_seconds,
            settings.match_bots_seconds,
            settings.rating_window,
            settings.rating_window_growth,
        )
        self._making: set[str] = set()

    # ---- the use cases ---------------------------------------------------------------------

    async def find_match(
        self, request: pb.FindMatchRequest, caller: Principal
    ) -> pb.FindMatchResponse:
        player = caller.require_player()
        kind = convert.kind_name(request.kind)
        if kind is None:
            raise ApiError(engine.Reason.UNKNOWN_GAME, "name the kind of game to play")
        least, most = request.min_seats or 2, request.max_seats or 4
        if not 2 <= least <= most <= 4:
            raise ApiError(Reason.BAD_SEAT_RANGE, "min_seats and max_seats: 2 <= min <= max <= 4")
        options = convert.options(request.options)
        try:  # every table size accepted must take the options
            for seats in range(least, most + 1):
                engine.new_game(kind, seats, engine.new_seed(), options)
        except engine.IllegalMove as err:
            raise ApiError.from_engine(err) from None
        skill = (await self.ratings.skills(kind, [player]))[player]
        ticket = Ticket(
            secrets.token_urlsafe(12),
            player,
            kind,
            request.rated,
            request.accept_bots,
            least,
            most,
            skill.mu if request.rated else 0.0,
            time.time(),
            options,
            skill.sigma if request.rated else 0.0,
        )
        found, verdict = await self.store.open_ticket(
            ticket.id,
            player,
            kind,
            pool_of(kind, ticket.rated, options),
            msgspec.json.encode(ticket),
            self.settings.match_tickets_per_player,
            self.settings.match_ticket_seconds + KEEP_SECONDS,
        )
        if verdict == "full":
            raise ApiError(
                Reason.TOO_MANY_TICKETS,
                f"a player has {self.settings.match_tickets_per_player} tickets waiting at most",
            )
        state, opened = await self._ticket(found, player)
        return pb.FindMatchResponse(ticket=_status(state, opened))

    async def cancel_match(
        self, request: pb.CancelMatchRequest, caller: Principal
    ) -> pb.CancelMatchResponse:
        _, ticket = await self._ticket(request.ticket_id, caller.require_player())
        state = await self.store.cancel_ticket(ticket.id)
        assert state is not None
        return pb.CancelMatchResponse(ticket=_status(state, ticket))

    async def get_match_ticket(
        self, request: pb.GetMatchTicketRequest, caller: Principal
    ) -> pb.GetMatchTicketResponse:
        state, ticket = await self._ticket(request.ticket_id, caller.require_player())
        return pb.GetMatchTicketResponse(ticket=_status(state, ticket))

    async def _ticket(self, ticket_id: str, player: str) -> tuple[TicketState, Ticket]:
        """A ticket of the player's, or TICKET_NOT_FOUND (whoever else's it is)."""
        if not TICKET_ID.fullmatch(ticket_id):
            raise ApiError(Reason.BAD_TICKET_ID, "a ticket id is 16 characters [A-Za-z0-9_-]")
        state = await self.store.ticket(ticket_id)
        ticket = _ticket.decode(state.data) if state is not None else None
        if state is None or ticket is None or ticket.player != player:
            raise ApiError(Reason.TICKET_NOT_FOUND, f"no ticket {ticket_id} of yours")
        return state, ticket

    # ---- the matcher -----------------------------------------------------------------------

    async def run(self) -> None:
        """Match the pools and make the matches' games, until cancelled."""
        while True:
            await asyncio.sleep(MATCH_SECONDS * random.uniform(0.5, 1.5))
            try:
                await self.match_once()
            except Exception:  # the matcher outlives a store outage
                log.warning("matchmaking: store unavailable", exc_info=True)

    async def match_once(self) -> int:
        """One pass over every pool and the matches due; the games made."""
        made = 0
        for pool in await self.store.match_pools():
            try:
                made += await self.match_pool(pool)
            except Exception:  # the other pools go on
                log.warning("matchmaking: a pool failed", extra={"pool": pool}, exc_info=True)
        now = time.time()
        for game_id, due in await self.store.matches_due(now, POOL_TICKETS):
            if game_id not in self._making and await self.store.lease_match(
                game_id, due, now + MATCH_LEASE
            ):
                spec = await self.store.match_spec(game_id)
                if spec is not None:
                    await self.make_game(game_id, _spec.decode(spec))
                    made += 1
        return made

    async def match_pool(self, pool: str) -> int:
        """Form and commit the tables of one pool, and make their games."""
        now = time.time()
        waiting, expired = [], []
        for ticket_id, data in await self.store.waiting_tickets(pool, POOL_TICKETS):
            ticket = _decoded(data)
            if ticket is None or now - ticket.created > self.settings.match_ticket_seconds:
                expired.append(ticket_id)
            else:
                waiting.append(ticket)
        tables = form_tables(waiting, now, self.rules)
        if not tables and not expired:
            return 0
        matches, specs = [], {}
        for table in tables:
            game_id = secrets.token_urlsafe(12)
            specs[game_id] = spec = await self._spec(table)
            seats = [spec.players.index(t.player) for t in table.tickets]
            matches.append(
                NewMatch(
                    game_id,
                    msgspec.json.encode(spec),
                    list(zip((t.id for t in table.tickets), seats, strict=True)),
                )
            )
        committed = await self.store.commit_matches(
            pool,
            matches,
            expired,
            now + MATCH_LEASE,
            self.settings.match_ticket_seconds + KEEP_SECONDS,
        )
        await asyncio.gather(*(self.make_game(g, specs[g]) for g in committed))
        return len(committed)

    async def _spec(self, table: Table) -> MatchSpec:
        """Who sits where at a table: its players and bots, in a random order."""
        first = table.tickets[0]
        strength = CASUAL_BOT
        if first.rated and table.bots:
            skills = await self.ratings.skills(first.kind, [bot_player(s) for s in STRENGTHS])
            mean = sum(t.mu for t in table.tickets) / len(table.tickets)
            strength = min(STRENGTHS, key=lambda s: abs(skills[bot_player(s)].mu - mean))
        seats: list[tuple[str | None, str | None]] = [(t.player, None) for t in table.tickets]
        seats += [(None, strength)] * table.bots
        random.shuffle(seats)
        return MatchSpec(
            first.kind,
            first.rated,
            first.options,
            [player for player, _ in seats],
            [bot for _, bot in seats],
        )

    async def make_game(self, game_id: str, spec: MatchSpec) -> None:
        """Make a committed match's game, every seat taken, announce it to its players, and
        forget the match (again if it was made already: each step is idempotent)."""
        self._making.add(game_id)
        try:
            now = time.time()
            meta = new_meta(spec.kind, list(spec.bots), None, now)
            meta.rated = spec.rated
            taken: set[str] = {folded(n) for n in meta.names if n is not None}
            for seat, player in enumerate(spec.players):
                if player is None:
                    continue
                await self.store.add_my_game(player, game_id, now, self.settings.player_ttl)
                name = (await self.profile_name(player)) or f"Player {seat + 1}"
                if folded(name) in taken:
                    name = f"{name[: MAX_NAME - 5]} ({seat + 1})"
                taken.add(folded(name))
                meta.names[seat] = name
                meta.bind(seat, player, bot_account=await self.ratings.is_bot_account(player))
            state = engine.new_game(spec.kind, len(spec.players), engine.new_seed(), spec.options)
            seated = [seat for seat, player in enumerate(spec.players) if player is not None]
            await self.games.open(game_id, state, meta, listed=False, seated=seated)
            await self.followups.process(game_id, 0.0)
            await self.store.match_done(game_id)
        finally:
            self._making.discard(game_id)
