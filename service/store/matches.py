"""What matchmaking and ratings need from storage: tickets, the matches committed from them,
players' ratings and the leaderboards."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class TicketState:
    """A matchmaking ticket as stored: its data as opened, and where it is."""

    data: bytes
    status: str
    """waiting, matched, cancelled or expired."""
    game_id: str = ""
    seat: int = 0


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A match to commit: its game's id, what the game is (`spec`, kept until the game is
    made) and the tickets seated, with their seats."""

    game_id: str
    spec: bytes
    seats: Sequence[tuple[str, int]]


class Matchmaking(Protocol):
    """Tickets waiting in pools (a kind, rated or casual, its options), and matches from
    their commit to their game's creation. A ticket leaves `waiting` once, atomically:
    matches are committed all or nothing, each only if all its tickets still wait."""

    async def open_ticket(
        self, ticket_id: str, player: str, kind: str, pool: str, data: bytes, most: int, ttl: float
    ) -> tuple[str, str]:
        """Open a ticket in `pool`: `(ticket_id, "ok")`; the player's waiting ticket of
        `kind` if it has one, `(its id, "exists")`; `("", "full")` when the player has
        `most` tickets waiting already."""
        ...

    async def ticket(self, ticket_id: str) -> TicketState | None: ...

    async def cancel_ticket(self, ticket_id: str) -> TicketState | None:
        """Withdraw a waiting ticket; the ticket as it is after (None: unknown)."""
        ...

    async def match_pools(self) -> list[str]:
        """The pools with tickets waiting."""
        ...

    async def waiting_tickets(self, pool: str, count: int) -> list[tuple[str, bytes | None]]:
        """Up to `count` tickets waiting in `pool`, the oldest first, with their data (None
        for one whose data expired)."""
        ...

    async def commit_matches(
        self,
        pool: str,
        matches: Sequence[NewMatch],
        expired: Sequence[str],
        due: float,
        ttl: float,
    ) -> list[str]:
        """Mark the `expired` tickets expired (if still waiting), then commit each match
        whose tickets all still wait: its tickets matched, its spec kept and its creation
        due at `due` (`matches_due`). The ids of the games committed. One step."""
        ...

    async def matches_due(self, now: float, count: int) -> list[tuple[str, float]]:
        """Committed matches whose games may not be made yet (their maker's lease ran out)."""
        ...

    async def lease_match(self, game_id: str, due: float, until: float) -> bool: ...

    async def match_spec(self, game_id: str) -> bytes | None: ...

    async def match_done(self, game_id: str) -> None:
        """The match's game is made and announced: forget the match."""
        ...


class Ratings(Protocol):
    """Players' ratings per kind of game ("mu sigma games"), each game's update applied
    once, and a leaderboard per kind of the players with enough games."""

    async def ratings(self, kind: str, players: Sequence[str]) -> list[bytes | None]: ...

    async def save_ratings(
        self,
        kind: str,
        game_id: str,
        updates: Sequence[tuple[str, bytes | None, bytes, float, bool]],
    ) -> str:
        """Apply a game's updates (player, rating read before, rating after, its score on
        the leaderboard, whether it is listed there): "ok"; "done" if this game's updates
        were applied already; "conflict" (nothing applied) if a rating is no longer what
        was read."""
        ...

    async def leaderboard(self, kind: str, start: int, count: int) -> list[tuple[str, float]]:
        """Players and scores from the `start`-th best (0-based)."""
        ...

    async def leaderboard_rank(self, kind: str, player: str) -> int | None:
        """The player's place on the leaderboard (0 for the best), None if not on it."""
        ...
