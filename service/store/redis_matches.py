"""The Redis store's part for matchmaking and ratings.

Every matchmaking key shares the hash tag `{mm}` (one slot: on Redis Cluster all of it
lives on one shard), so that one script can check and change any tickets at once: a ticket
leaves `waiting` only inside a script (`commit_matches.lua`, `cancel_ticket.lua`), which
makes a ticket matched at most once however many workers propose matches. A kind's ratings
share the tag `{r:<kind>}`: a game's updates and its done mark are one script.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .matches import NewMatch, TicketState
from .redis_commands import ms

if TYPE_CHECKING:
    from .redis_commands import Commands, _Script

MM = "genial:{mm}:"
POOLS_KEY = MM + "pools"
MATCHES_KEY = MM + "matches"
DONE_TTL = 30 * 86_400.0
"""Seconds a game's ratings update is remembered as done (its follow-ups end long before)."""


def _ticket_key(ticket_id: str) -> str:
    return f"{MM}t:{ticket_id}"


def _rating_keys(kind: str, game_id: str) -> list[str]:
    tag = f"genial:{{r:{kind}}}:"
    return [tag + "ratings", tag + "board", f"{tag}done:{game_id}"]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisMatches:
    """Mixed into `RedisStore`, which gives the connections and the scripts."""

    _commands: Commands
    _open_ticket: _Script
    _cancel_ticket: _Script
    _commit_matches: _Script
    _reschedule: _Script
    _save_ratings: _Script

    async def open_ticket(
        self, ticket_id: str, player: str, kind: str, pool: str, data: bytes, most: int, ttl: float
    ) -> tuple[str, str]:
        keys = [f"{MM}player:{player}", _ticket_key(ticket_id), f"{MM}pool:{pool}", POOLS_KEY]
        args: list[str | bytes | int] = [ticket_id, player, kind, pool, data, most, ms(ttl)]
        args.append(repr(time.time()))
        found, verdict = await self._open_ticket(self._commands, keys, args)
        return _text(found), _text(verdict)

    async def ticket(self, ticket_id: str) -> TicketState | None:
        found = await self._commands.call("HMGET", _ticket_key(ticket_id), "d", "s", "g", "n")
        return _state(found)

    async def cancel_ticket(self, ticket_id: str) -> TicketState | None:
        found = await self._cancel_ticket(self._commands, [_ticket_key(ticket_id)], [ticket_id])
        return _state(found)

    async def match_pools(self) -> list[str]:
        return sorted(_text(p) for p in await self._commands.call("SMEMBERS", POOLS_KEY))

    async def waiting_tickets(self, pool: str, count: int) -> list[tuple[str, bytes | None]]:
        ids = [
            _text(t) for t in await self._commands.call("ZRANGE", f"{MM}pool:{pool}", 0, count - 1)
        ]
        if not ids:
            return []
        found = await self._commands.pipeline([("HGET", _ticket_key(t), "d") for t in ids])
        return list(zip(ids, found, strict=True))

    async def commit_matches(
        self,
        pool: str,
        matches: Sequence[NewMatch],
        expired: Sequence[str],
        due: float,
        ttl: float,
    ) -> list[str]:
        args: list[str | bytes | int] = [pool, repr(due), ms(ttl), len(expired), *expired]
        for match in matches:
            args += [match.game_id, match.spec, len(match.seats)]
            for ticket_id, seat in match.seats:
                args += [ticket_id, seat]
        keys = [f"{MM}pool:{pool}", POOLS_KEY, MATCHES_KEY]
        return [_text(g) for g in await self._commit_matches(self._commands, keys, args)]

    async def matches_due(self, now: float, count: int) -> list[tuple[str, float]]:
        rows: Any = await self._commands.call(
            "ZRANGEBYSCORE", MATCHES_KEY, "-inf", repr(now), "WITHSCORES", "LIMIT", 0, count
        )
        return [(_text(rows[i]), float(rows[i + 1])) for i in range(0, len(rows), 2)]

    async def lease_match(self, game_id: str, due: float, until: float) -> bool:
        args = [game_id, repr(due), repr(until)]
        return bool(await self._reschedule(self._commands, [MATCHES_KEY], args))

    async def match_spec(self, game_id: str) -> bytes | None:
        found: bytes | None = await self._commands.call("GET", f"{MM}m:{game_id}")
        return found

    async def match_done(self, game_id: str) -> None:
        await self._commands.pipeline([("ZREM", MATCHES_KEY, game_id), ("DEL", f"{MM}m:{game_id}")])

    # ---- ratings ---------------------------------------------------------------------------

    async def ratings(self, kind: str, players: Sequence[str]) -> list[bytes | None]:
        if not players:
            return []
        found: list[bytes | None] = await self._commands.call(
            "HMGET", _rating_keys(kind, "")[0], *players
        )
        return found

    async def save_ratings(
        self,
        kind: str,
        game_id: str,
        updates: Sequence[tuple[str, bytes | None, bytes, float, bool]],
    ) -> str:
        args: list[str | bytes | int] = [ms(DONE_TTL)]
        for player, before, after, score, listed in updates:
            args += [player, before or b"", after, repr(score), int(listed)]
        return _text(await self._save_ratings(self._commands, _rating_keys(kind, game_id), args))

    async def leaderboard(self, kind: str, start: int, count: int) -> list[tuple[str, float]]:
        rows = await self._commands.call(
            "ZRANGE", _rating_keys(kind, "")[1], start, start + count - 1, "REV", "WITHSCORES"
        )
        return [(_text(rows[i]), float(rows[i + 1])) for i in range(0, len(rows), 2)]

    async def leaderboard_rank(self, kind: str, player: str) -> int | None:
        rank: int | None = await self._commands.call("ZREVRANK", _rating_keys(kind, "")[1], player)
        return rank


def _state(found: Any) -> TicketState | None:
    if not found or found[0] is None:
        return None
    data, status, game, seat = found
    return TicketState(data, _text(status), _text(game or b""), int(seat or 0))
