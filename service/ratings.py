"""Players' ratings and the leaderboards: OpenSkill's Plackett-Luce model on each rated game's
final ranking, applied once per game, as one of the game's follow-ups.

A rated game's end is a follow-up `Change` (done at least once, even if the worker that
ended the game died right after: `followups`). The update reads the ratings of the game's
players, computes the new ones, and saves them with one script that applies them only if
the game was not rated before (a done mark by game id) and the ratings read are still there
(else it reads again): exactly once per game, whoever does the follow-up and however often.

The built-in bots are players too, one per strength and kind ("bot-strong", ...), so that
people and bots share a scale; two bots of one strength at a table count as one player
whose rating moves by the sum of their changes. A resigned seat ranks after every seat that
did not resign (resigned seats tie among themselves).
"""

from __future__ import annotations

import os
import re
import signal
from collections import defaultdict
from collections.abc import Awaitable, Callable

from openskill.models import PlackettLuce

from genial import engine
from genial.v1 import match_service_pb2 as pb

from . import convert
from .credentials import Principal
from .errors import ApiError, Reason
from .followups import Change, PlayerEvents
from .records import GameMeta
from .settings import Settings
from .store import GameStore

MODEL = PlackettLuce()
BOT_PREFIX = "bot-"
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_ATTEMPTS = 16
PAGE_SIZE, MAX_PAGE_SIZE = 20, 100
MAX_START = 1_000_000
"""The farthest a leaderboard is paged."""
KILL_BEFORE_RATING = "GENIAL_TEST_KILL_BEFORE_RATING"
"""Tests only: the worker kills itself (SIGKILL) when it is about to save a game's ratings."""


def bot_player(strength: str) -> str:
    """The player id of the built-in bot of a strength."""
    return BOT_PREFIX + strength


def is_builtin_bot(player: str) -> bool:
    return player.startswith(BOT_PREFIX)


class Skill:
    """One player's rating in one kind: the model's mu and sigma, and rated games played."""

    __slots__ = ("games", "mu", "sigma")

    def __init__(self, mu: float = MODEL.mu, sigma: float = MODEL.sigma, games: int = 0) -> None:
        self.mu, self.sigma, self.games = mu, sigma, games

    @classmethod
    def decode(cls, raw: bytes | None) -> Skill:
        if raw is None:
            return cls()
        mu, sigma, games = raw.split()
        return cls(float(mu), float(sigma), int(games))

    def encode(self) -> bytes:
        return f"{self.mu!r} {self.sigma!r} {self.games}".encode()

    @property
    def displayed(self) -> float:
        """The rating shown and ranked by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def message(self, kind: str) -> pb.Rating:
        return pb.Rating(
            kind=convert.kind_enum(kind),
            mu=self.mu,
            sigma=self.sigma,
            displayed=self.displayed,
            games=self.games,
        )


def ranking(meta: GameMeta, state: engine.GameState) -> list[tuple[str, int]]:
    """Each seat's player and rank (1 best, ties shared) at the end of a game; resigned
    seats rank after all the others."""
    ranks = {row["seat"]: row["rank"] for row in state.view(None)["standings"]}
    kept = [ranks[s] for s in range(meta.seats) if not meta.is_resigned(s)]
    last = max(kept, default=0) + 1
    found = []
    for seat in range(meta.seats):
        strength = meta.bots[seat]
        player = bot_player(strength) if strength is not None else meta.player(seat)
        assert player is not None, "a rated game seats players and bots only"
        found.append((player, last if meta.is_resigned(seat) else ranks[seat]))
    return found


def rated(before: dict[str, Skill], seats: list[tuple[str, int]]) -> dict[str, Skill]:
    """The players' skills after a game ranked as `seats` (player, rank) from `before`."""
    teams = [[MODEL.rating(mu=before[p].mu, sigma=before[p].sigma)] for p, _ in seats]
    after = MODEL.rate(teams, ranks=[float(rank) for _, rank in seats])
    moved: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for (player, _), (new,) in zip(seats, after, strict=True):
        moved[player].append((new.mu - before[player].mu, new.sigma))
    return {
        player: Skill(
            before[player].mu + sum(mu for mu, _ in changes),
            min(sigma for _, sigma in changes),
            before[player].games + 1,
        )
        for player, changes in moved.items()
    }


class Ratings:
    """The rated games' follow-up, GetRatings and ListLeaderboard."""

    def __init__(
        self,
        store: GameStore,
        settings: Settings,
        profile_name: Callable[[str], Awaitable[str]],
        is_bot_account: Callable[[str], Awaitable[bool]],
    ) -> None:
        self.store = store
        self.settings = settings
        self.profile_name = profile_name
        self.is_bot_account = is_bot_account
        self._kill = bool(os.environ.get(KILL_BEFORE_RATING))

    async def skills(self, kind: str, players: list[str]) -> dict[str, Skill]:
        raw = await self.store.ratings(kind, players)
        return {p: Skill.decode(r) for p, r in zip(players, raw, strict=True)}

    def idle(self, change: Change) -> bool:
        return not change.after.meta.finished  # games are rated as they end

    def inline(self, change: Change) -> PlayerEvents | None:
        return {} if self.idle(change) else None

    async def follow(self, change: Change) -> None:
        meta = change.after.meta
        if not (meta.finished and meta.rated) or change.before.meta.finished:
            return
        seats = ranking(meta, change.state)
        players = sorted({player for player, _ in seats})
        for _ in range(MAX_ATTEMPTS):
            raw = await self.store.ratings(meta.kind, players)
            before = {p: Skill.decode(r) for p, r in zip(players, raw, strict=True)}
            after = rated(before, seats)
            least = self.settings.leaderboard_min_games
            updates = [
                (p, r, after[p].encode(), after[p].displayed, after[p].games >= least)
                for p, r in zip(players, raw, strict=True)
            ]
            if self._kill:
                os.kill(os.getpid(), signal.SIGKILL)
            if await self.store.save_ratings(meta.kind, change.game_id, updates) != "conflict":
                return
        raise RuntimeError(f"ratings of game {change.game_id}: too many conflicts")  # retried

    async def get_ratings(
        self, request: pb.GetRatingsRequest, caller: Principal
    ) -> pb.GetRatingsResponse:
        player = request.player_id or caller.require_player()
        if not PLAYER_ID.fullmatch(player):
            raise ApiError(Reason.BAD_PLAYER_ID, "a player id is 1-64 characters [A-Za-z0-9_-]")
        bot = is_builtin_bot(player) or await self.is_bot_account(player)
        response = pb.GetRatingsResponse(player_id=player, bot=bot)
        for kind in engine.GAMES:
            (raw,) = await self.store.ratings(kind, [player])
            if raw is not None:
                response.ratings.append(Skill.decode(raw).message(kind))
        return response

    async def list_leaderboard(
        self, request: pb.ListLeaderboardRequest, caller: Principal
    ) -> pb.ListLeaderboardResponse:
        kind = convert.kind_name(request.kind)
        if kind is None:
            raise ApiError(engine.Reason.UNKNOWN_GAME, "a leaderboard is of one kind of game")
        if request.page_token and not request.page_token.isdigit():
            raise ApiError(Reason.BAD_PAGE, "a page token is the next_page_token of a page")
        if request.page_size < 0:
            raise ApiError(Reason.BAD_PAGE, "page_size is 0 or more")
        size = min(request.page_size or PAGE_SIZE, MAX_PAGE_SIZE)
        start = int(request.page_token or 0)
        if start > MAX_START:
            raise ApiError(Reason.BAD_PAGE, "a page token is the next_page_token of a page")
        rows = await self.store.leaderboard(kind, start, size + 1)
        skills = await self.skills(kind, [player for player, _ in rows[:size]])
        response = pb.ListLeaderboardResponse(min_games=self.settings.leaderboard_min_games)
        for place, (player, _) in enumerate(rows[:size], start + 1):
            builtin = is_builtin_bot(player)
            name = (
                f"{player[len(BOT_PREFIX) :]} bot" if builtin else await self.profile_name(player)
            )
            bot = builtin or await self.is_bot_account(player)
            response.entries.append(
                pb.LeaderboardEntry(
                    rank=place,
                    player_id=player,
                    display_name=name,
                    bot=bot,
                    rating=skills[player].message(kind),
                )
            )
        if len(rows) > size:
            response.next_page_token = str(start + size)
        if caller.player is not None:
            # On the page, its place there: the page and the rank agree, read at once.
            on_page = [e.rank for e in response.entries if e.player_id == caller.player]
            if on_page:
                response.your_rank = on_page[0]
            else:
                rank = await self.store.leaderboard_rank(kind, caller.player)
                response.your_rank = rank + 1 if rank is not None else 0
        return response
