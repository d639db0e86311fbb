"""Where games live: protocols by concern (`base`), an in-process backend (`memory`) and a
Redis one (`redis`), chosen by `open_store` from the settings' URL."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .base import (
    CreationQuotas,
    Entry,
    EntryId,
    Followed,
    Follower,
    FollowUps,
    GameLogs,
    GameRecords,
    GameStore,
    Lobby,
    LogChanges,
    Matchmaking,
    NewMatch,
    PlayerEvents,
    Players,
    Quota,
    Ratings,
    Record,
    Sessions,
    SharedCounters,
    TicketState,
    TurnSchedule,
    Write,
    WriteResult,
)
from .memory import MemoryStore

if TYPE_CHECKING:
    from ..settings import Settings

log = logging.getLogger("genial.store")

MEMORY_SCHEMES = ("", "memory")
REDIS_SCHEMES = ("redis", "rediss", "unix")


def open_store(settings: Settings) -> GameStore:
    """The backend the URL names: empty or `memory://` (in process, one worker only),
    `redis://`, `rediss://` (TLS) or `unix://` (a socket); Redis Cluster with the
    `redis_cluster` setting."""
    scheme = settings.redis_url.partition("://")[0] if "://" in settings.redis_url else ""
    if scheme in MEMORY_SCHEMES:
        log.warning("using the in-process store: games live in this process only (one worker)")
        return MemoryStore()
    if scheme not in REDIS_SCHEMES:
        raise ValueError(f"no store for {scheme!r} URLs; one of memory, redis, rediss, unix")
    from .redis import RedisStore  # noqa: PLC0415  (redis loads only when used)

    return RedisStore.from_url(
        settings.redis_url, cluster=settings.redis_cluster, timeout=settings.redis_timeout
    )


__all__ = [
    "CreationQuotas",
    "Entry",
    "EntryId",
    "FollowUps",
    "Followed",
    "Follower",
    "GameLogs",
    "GameRecords",
    "GameStore",
    "Lobby",
    "LogChanges",
    "Matchmaking",
    "MemoryStore",
    "NewMatch",
    "PlayerEvents",
    "Players",
    "Quota",
    "Ratings",
    "Record",
    "Sessions",
    "SharedCounters",
    "TicketState",
    "TurnSchedule",
    "Write",
    "WriteResult",
    "open_store",
]
