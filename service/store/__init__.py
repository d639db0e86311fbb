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
    InlineFollowUp,
    Lobby,
    LogChanges,
    PlayerEvents,
    Players,
    Quota,
    Record,
    Sessions,
    SharedCounters,
    TurnSchedule,
    Write,
    WriteResult,
)
from .matches import Matchmaking, NewMatch, Ratings, TicketState
from .memory import MemoryStore
from .outbox import Notification, Outbox, Taken
from .record_codec import CODECS

if TYPE_CHECKING:
    from ..settings import Settings

log = logging.getLogger("genial.store")

MEMORY_SCHEMES = ("", "memory")
REDIS_SCHEMES = ("redis", "rediss", "unix")


def open_store(settings: Settings) -> GameStore:
    """The backend the URL names: empty or `memory://` (in process, one worker only),
    `redis://`, `rediss://` (TLS) or `unix://` (a socket); Redis Cluster with the
    `redis_cluster` setting; the master Sentinels name with `redis_sentinels` (the URL may
    be empty then)."""
    codec = next((c for c in CODECS if c == settings.record_codec), None)
    if codec is None:  # refused with any store: a typo is no silent default
        raise ValueError(
            f"record_codec is one of {', '.join(CODECS)}, not {settings.record_codec!r}"
        )
    scheme = settings.redis_url.partition("://")[0] if "://" in settings.redis_url else ""
    if scheme in MEMORY_SCHEMES and not settings.redis_sentinels:
        log.warning("using the in-process store: games live in this process only (one worker)")
        return MemoryStore()
    if scheme not in REDIS_SCHEMES and not settings.redis_sentinels:
        raise ValueError(f"no store for {scheme!r} URLs; one of memory, redis, rediss, unix")
    from .redis import RedisStore  # noqa: PLC0415  (redis loads only when used)
    from .redis_commands import Sentinels  # noqa: PLC0415

    sentinels = None
    if settings.redis_sentinels:
        sentinels = Sentinels.parse(
            settings.redis_sentinels,
            settings.redis_sentinel_master,
            settings.redis_sentinel_password,
        )
    return RedisStore.from_url(
        settings.redis_url,
        cluster=settings.redis_cluster,
        timeout=settings.redis_timeout,
        pool_size=settings.redis_pool_size,
        password=settings.redis_password or None,
        sentinels=sentinels,
        wait=(
            (settings.redis_wait_replicas, settings.redis_wait_timeout_ms)
            if settings.redis_wait_replicas
            else None
        ),
        codec=codec,
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
    "InlineFollowUp",
    "Lobby",
    "LogChanges",
    "Matchmaking",
    "MemoryStore",
    "NewMatch",
    "Notification",
    "Outbox",
    "PlayerEvents",
    "Players",
    "Quota",
    "Ratings",
    "Record",
    "Sessions",
    "SharedCounters",
    "Taken",
    "TicketState",
    "TurnSchedule",
    "Write",
    "WriteResult",
    "open_store",
]
