"""The embedded store's part for matchmaking and ratings, with the Redis store's semantics in
one process (where every method runs alone between two awaits, as a script does in Redis)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from .matches import NewMatch, TicketState
from .memory_players import LeasedTimes


@dataclass
class _Ticket:
    data: bytes
    player: str
    kind: str
    pool: str
    created: float
    status: str = "waiting"
    game_id: str = ""
    seat: int = 0

    def state(self) -> TicketState:
        return TicketState(self.data, self.status, self.game_id, self.seat)


class MemoryMatches:
    def __init__(self) -> None:
        self._tickets: dict[str, _Ticket] = {}
        self._open: dict[str, dict[str, str]] = {}
        """Per player, its waiting ticket by kind."""
        self._pools: dict[str, dict[str, float]] = {}
        self._matches = LeasedTimes()
        self._specs: dict[str, bytes] = {}
        self._ratings: dict[str, dict[str, bytes]] = {}
        self._boards: dict[str, dict[str, float]] = {}
        self._rated: set[tuple[str, str]] = set()

    async def open_ticket(
        self, ticket_id: str, player: str, kind: str, pool: str, data: bytes, most: int, ttl: float
    ) -> tuple[str, str]:
        mine = self._open.setdefault(player, {})
        if kind in mine:
            return mine[kind], "exists"
        if len(mine) >= most:
            return "", "full"
        now = time.time()
        self._tickets[ticket_id] = _Ticket(data, player, kind, pool, now)
        mine[kind] = ticket_id
        self._pools.setdefault(pool, {})[ticket_id] = now
        return ticket_id, "ok"

    async def ticket(self, ticket_id: str) -> TicketState | None:
        found = self._tickets.get(ticket_id)
        return found.state() if found else None

    def _leave(self, ticket_id: str, status: str) -> _Ticket:
        ticket = self._tickets[ticket_id]
        ticket.status = status
        mine = self._open.get(ticket.player, {})
        if mine.get(ticket.kind) == ticket_id:
            del mine[ticket.kind]
        self._pools.get(ticket.pool, {}).pop(ticket_id, None)
        return ticket

    async def cancel_ticket(self, ticket_id: str) -> TicketState | None:
        found = self._tickets.get(ticket_id)
        if found is None:
            return None
        if found.status == "waiting":
            self._leave(ticket_id, "cancelled")
        return found.state()

    async def match_pools(self) -> list[str]:
        return sorted(pool for pool, waiting in self._pools.items() if waiting)

    async def waiting_tickets(self, pool: str, count: int) -> list[tuple[str, bytes | None]]:
        waiting = sorted(self._pools.get(pool, {}).items(), key=lambda item: item[1])[:count]
        return [(t, self._tickets[t].data) for t, _ in waiting]

    async def commit_matches(
        self,
        pool: str,
        matches: Sequence[NewMatch],
        expired: Sequence[str],
        due: float,
        ttl: float,
    ) -> list[str]:
        for ticket_id in expired:
            if ticket_id in self._tickets and self._tickets[ticket_id].status == "waiting":
                self._leave(ticket_id, "expired")
        done = []
        for match in matches:
            if all(
                t in self._tickets and self._tickets[t].status == "waiting" for t, _ in match.seats
            ):
                for ticket_id, seat in match.seats:
                    ticket = self._leave(ticket_id, "matched")
                    ticket.game_id, ticket.seat = match.game_id, seat
                self._specs[match.game_id] = match.spec
                self._matches.times[match.game_id] = due
                done.append(match.game_id)
        return done

    async def matches_due(self, now: float, count: int) -> list[tuple[str, float]]:
        return self._matches.due(now, count)

    async def lease_match(self, game_id: str, due: float, until: float) -> bool:
        return self._matches.move(game_id, due, until)

    async def match_spec(self, game_id: str) -> bytes | None:
        return self._specs.get(game_id)

    async def match_done(self, game_id: str) -> None:
        self._matches.times.pop(game_id, None)
        self._specs.pop(game_id, None)

    # ---- ratings ---------------------------------------------------------------------------

    async def ratings(self, kind: str, players: Sequence[str]) -> list[bytes | None]:
        known = self._ratings.get(kind, {})
        return [known.get(player) for player in players]

    async def save_ratings(
        self,
        kind: str,
        game_id: str,
        updates: Sequence[tuple[str, bytes | None, bytes, float, bool]],
    ) -> str:
        if (kind, game_id) in self._rated:
            return "done"
        known = self._ratings.setdefault(kind, {})
        if any(known.get(player) != before for player, before, *_ in updates):
            return "conflict"
        board = self._boards.setdefault(kind, {})
        for player, _, after, score, listed in updates:
            known[player] = after
            if listed:
                board[player] = score
            else:
                board.pop(player, None)
        self._rated.add((kind, game_id))
        return "ok"

    def _ranked(self, kind: str) -> list[tuple[str, float]]:
        board = self._boards.get(kind, {})
        return sorted(board.items(), key=lambda item: (item[1], item[0]), reverse=True)

    async def leaderboard(self, kind: str, start: int, count: int) -> list[tuple[str, float]]:
        return self._ranked(kind)[start : start + count]

    async def leaderboard_rank(self, kind: str, player: str) -> int | None:
        for rank, (found, _) in enumerate(self._ranked(kind)):
            if found == player:
                return rank
        return None
