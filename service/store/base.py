"""What the application needs from storage, as small protocols by concern.

A game is a record (state bytes, metadata bytes, `version` = moves applied, `rev` = writes
of any kind) plus an append-only log of entries, one per write, each with an id
`(version, seq)`: a move gets `(version, 0)`, a join before the start gets `(0, seat + 1)`.
Every write is a compare-and-set on `rev`, so stateless workers can share a store without
locks; a write may also record a request id so that a retried request is recognised and
never applied twice. Both backends (`memory`, `redis`) pass one test suite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .matches import Matchmaking, Ratings
from .outbox import Outbox

EntryId = tuple[int, int]
"""(version, seq) of a log entry."""
REQUEST_IDS_KEPT = 64
"""A request id is remembered for the 64 moves after its own at least (a retry comes within
seconds); older ones are pruned every 64 versions."""


@dataclass(frozen=True, slots=True)
class Quota:
    """Games an address may create a minute (by cost) and have waiting; 0: no limit."""

    per_minute: int
    waiting: int


@dataclass(slots=True)
class Record:
    """A game as it is stored."""

    state: bytes
    meta: bytes
    version: int
    rev: int


@dataclass(slots=True)
class Entry:
    id: EntryId
    data: bytes


@dataclass(slots=True)
class Write:
    """One compare-and-set: applied only if the stored `rev` is still `expected_rev`."""

    expected_rev: int
    state: bytes
    version: int
    entry_id: EntryId | None
    """None: no log entry (a change of the metadata alone, such as a rematch asked for)."""
    entry: bytes
    meta: bytes
    request_id: str | None = None
    ttl: float = 0
    """Seconds the game lives after this write without another one; 0: for ever."""
    snapshot: bytes | None = None
    """What to keep of the game at `version`, to replay later versions from."""
    follow_up: float = 0
    """When set, the game's follow-up intent (`FollowUps`), due at this Unix time, is
    recorded before the compare-and-set, so that whatever the write causes elsewhere is
    done even if the writer dies right after it."""
    inline: InlineFollowUp | None = None
    """When set (only where `GameStore.inline_follow_ups`), the write's whole follow-up,
    made by the write itself, in the same atomic step: then it needs no intent."""


@dataclass(frozen=True, slots=True)
class InlineFollowUp:
    """A follow-up that is only players' events, made with the write that causes it.

    The write adds `events` to their players' feeds and moves the game's follow-up mark from
    the record at rev `mark_rev` to `mark`, the record it writes. It is refused
    (`WriteResult.mark_moved`) unless the mark is at `mark_rev`: the events are then exactly
    those of the writes since the mark, as a follow-up run after the write would find."""

    mark_rev: int
    mark: Followed
    mark_ttl: float
    events: Mapping[str, Sequence[tuple[str, bytes]]]
    """Per player, (event id, event) pairs, added unless an event of that id is there."""
    events_kept: int
    events_ttl: float


@dataclass(slots=True)
class WriteResult:
    ok: bool
    rev: int
    """The stored rev after the write, or the one that beat us."""
    duplicate_version: int | None = None
    """Set when the request id was already applied: the version it produced."""
    current: Record | None = None
    """On a conflict, the record that beat us, read in the same step (None: no game)."""
    mark_moved: bool = False
    """An inline follow-up's mark was not at its `mark_rev`: nothing was written."""


class GameRecords(Protocol):
    """Games: created once, then read and compare-and-set."""

    @property
    def generation(self) -> int:
        """Changes when acknowledged writes may have been lost (the connection to Redis was
        lost: a failover may have promoted a replica that lacks them); a record kept from
        an earlier generation is read anew, since its rev may since name another state."""
        ...

    async def create(
        self, game_id: str, record: Record, entries: Sequence[Entry], ttl: float
    ) -> bool:
        """Store a new game with the first `entries` of its log; False if the id is taken."""
        ...

    async def read(
        self, game_id: str, request_id: str | None = None
    ) -> tuple[Record | None, int | None]:
        """The game (None if unknown) and, if asked, the version a request id produced.

        One round trip."""
        ...

    async def write(self, game_id: str, write: Write) -> WriteResult:
        """Compare-and-set the record and append one log entry, atomically. One round trip.

        A request id already applied wins over the compare-and-set: its retry is
        recognised even when made against an old record."""
        ...


class GameLogs(Protocol):
    """Each game's log, read in order, and the snapshots that spare replaying all of it."""

    async def entries(
        self, game_id: str, after: EntryId, until: EntryId | None = None
    ) -> list[Entry]:
        """Log entries after `after` (and up to `until`, if given), in order."""
        ...

    async def snapshot(self, game_id: str, version: int) -> bytes | None:
        """The snapshot written with `version`, if one was."""
        ...


class Follower(Protocol):
    """A wait for a game's log to grow, on this worker."""

    @property
    def generation(self) -> int:
        """How many wake-ups the game has had on this worker: a read made after a wake-up
        was seen has all the writes that caused it and the ones before."""
        ...

    async def wait(self, timeout: float) -> bool:
        """Until the log may have grown (True) or `timeout` seconds have passed (False).
        A True without a new entry is possible (after a lost connection, say); a new entry
        without a True is not, once `follow` has returned."""
        ...

    def close(self) -> None: ...


class LogChanges(Protocol):
    """Wake-ups when a game's log grows: what watchers wait on, instead of a blocking read
    each (a watcher costs memory, not a connection)."""

    async def follow(self, game_id: str) -> Follower:
        """A follower of `game_id`: every write made after this returns wakes it."""
        ...


class Lobby(Protocol):
    """Open games by kind, oldest first. Hints only: the game's record is the truth."""

    async def lobby_add(self, kind: str, game_id: str, created: float) -> None: ...

    async def lobby_remove(self, kind: str, game_id: str) -> None: ...

    async def lobby_page(self, kind: str, after: float, count: int) -> list[tuple[str, float]]:
        """Open game ids of `kind` created after `after`, oldest first."""
        ...


class TurnSchedule(Protocol):
    """Turns that will be due (a bot's, or a turn timer's): one schedule shared by all
    workers. A worker leases a due game by moving its time forward, so that a game whose
    worker died comes due again when the lease runs out."""

    async def schedule(self, game_id: str, due: float) -> None:
        """Make `game_id` due at `due` (a Unix time), replacing what was scheduled."""
        ...

    async def due(self, now: float, count: int) -> list[tuple[str, float]]:
        """Up to `count` games due at `now`, with the time each is due."""
        ...

    async def lease(self, game_id: str, due: float, until: float) -> bool:
        """Move a game due at `due` to `until`; False if it is not (or no longer) due then."""
        ...

    async def unschedule(self, game_id: str, due: float) -> bool:
        """Drop a game still scheduled at `due`."""
        ...


class CreationQuotas(Protocol):
    """What each client address has created, all workers together: its games this minute
    (by cost) and its games still waiting for players."""

    async def claim_creation(
        self, address: str, game_id: str, cost: int, expires: float, quota: Quota
    ) -> str | None:
        """Count a game `address` creates (waiting until `expires`, a Unix time), or say
        which quota it would exceed: "rate" or "waiting"."""
        ...

    async def waiting_games(self, address: str) -> list[str]:
        """The games `address` created that may still be waiting (hints)."""
        ...

    async def release_waiting(self, address: str, game_ids: list[str]) -> None:
        """Games of `address` that no longer wait (started, or gone)."""
        ...


class SharedCounters(Protocol):
    """Counters all workers add to (rate limits)."""

    async def add_counts(self, deltas: dict[str, int], ttl: float) -> dict[str, int]:
        """Add to shared counters (created with `ttl` seconds to live); their new totals."""
        ...


class GameCounts(Protocol):
    """Games by status, counted by every worker into shared buckets (`census.Census`)."""

    async def count_games(
        self, deltas: dict[str, dict[int, int]], since: dict[str, int]
    ) -> dict[str, int]:
        """Add `deltas` (status -> bucket -> change) to the shared buckets, forget the
        buckets of a status before `since[status]`, and return per status the total of
        the buckets from `since[status]` on."""
        ...


@dataclass(slots=True)
class Followed:
    """How far a game's follow-ups got: the record they last saw (its rev, version, meta)."""

    rev: int
    version: int
    meta: bytes


class FollowUps(Protocol):
    """Games whose writes may have follow-ups not done yet (player events, ...), recorded
    with the write (`Write.follow_up`), leased by a worker like the turn schedule, dropped
    once done; and how far each game's follow-ups got."""

    async def follow_ups_due(self, now: float, count: int) -> list[tuple[str, float]]:
        """Up to `count` games whose follow-ups are due at `now`, with their due times."""
        ...

    async def lease_follow_up(self, game_id: str, due: float, until: float) -> bool:
        """Move a game's intent due at `due` to `until`; False if it is no longer at `due`."""
        ...

    async def followed(self, game_id: str) -> Followed | None: ...

    async def follow_up_done(
        self, game_id: str, due: float, followed: Followed | None, ttl: float
    ) -> None:
        """Record how far the follow-ups got (unless a later record, by rev, is there; None
        for a game that is gone), and drop the game's intent if it is still due at `due` (a
        newer write's intent stays). One round trip."""
        ...


class Sessions(Protocol):
    """Players' sessions: the refresh token's generation and digest, and revocations."""

    async def create_session(
        self, session_id: str, player: str, digest: str, ttl: float
    ) -> None: ...

    async def rotate_session(
        self, session_id: str, generation: int, digest: str, new_digest: str, ttl: float
    ) -> str:
        """Spend the refresh token of `generation` (whose digest is `digest`) for the next:
        "ok"; "reused" for an earlier generation (the session is then marked revoked);
        "revoked"; or "unknown" (no such session, or expired)."""
        ...

    async def revoke_session(self, session_id: str, keep: float) -> None:
        """Mark a session revoked, and list it among the revocations for `keep` seconds."""
        ...

    async def session_holder(self, session_id: str) -> tuple[str, str, bool] | None:
        """A session's player, the digest of its secret, and whether it was revoked (None:
        no such session, or expired): how a bot account's API key is checked."""
        ...

    async def revoked_sessions(self, since: float) -> list[tuple[str, float]]:
        """Sessions revoked at `since` or later, with when."""
        ...

    async def shared_secret(self, name: str, proposal: str) -> str:
        """The secret every worker uses under `name`: the first proposal made wins."""
        ...


class Players(Protocol):
    """Players' profiles and game lists, each player's keys apart from any game's.

    A player's list of live games is a hint kept beside the games (added to before the
    player takes a seat): whoever reads it reads the games themselves."""

    async def player_profile(self, player: str) -> bytes | None: ...

    async def set_player_profile(self, player: str, profile: bytes, ttl: float) -> None: ...

    async def player_webhook(self, player: str) -> bytes | None:
        """The player's own webhook endpoint (`webhooks.players`), if it set one."""
        ...

    async def set_player_webhook(self, player: str, webhook: bytes | None, ttl: float) -> None:
        """Set (None: remove) the player's own webhook endpoint."""
        ...

    async def add_my_game(self, player: str, game_id: str, at: float, ttl: float) -> int:
        """Add a game to the player's live games; how many live games it lists then."""
        ...

    async def remove_my_game(self, player: str, game_id: str) -> None: ...

    async def my_games(self, player: str, count: int) -> list[str]:
        """The player's live games, the latest added first."""
        ...

    async def finish_my_game(
        self, player: str, game_id: str, at: float, summary: bytes, keep: int, ttl: float
    ) -> None:
        """Move a game from the live games to the finished ones, with its summary; only the
        `keep` latest finished games are kept."""
        ...

    async def finished_games(self, player: str, count: int) -> list[bytes]:
        """The summaries of the player's finished games, the latest first."""
        ...


def player_feed(player: str) -> str:
    """What `LogChanges` follows for a player's events (a game id has no colon)."""
    return f"p:{player}"


class PlayerEvents(Protocol):
    """Each player's recent events, numbered in the order they were added (the cursor),
    each stored once whatever how often it is added (by its id)."""

    async def add_player_events(
        self, player: str, events: Sequence[tuple[str, bytes]], keep: int, ttl: float
    ) -> int:
        """Add the events (id, data) not there yet, keep the `keep` latest, and wake the
        player's watchers; how many were new."""
        ...

    async def player_events(self, player: str, after: int, count: int) -> list[tuple[int, bytes]]:
        """Up to `count` events numbered after `after`, with their numbers, oldest first."""
        ...

    async def last_player_event(self, player: str) -> int:
        """The number of the latest event added (0: none yet)."""
        ...

    async def follow_player(self, player: str) -> Follower:
        """A follower of the player's events: every event added after this returns wakes
        it, on any worker (`LogChanges`, under the id `player_feed(player)`)."""
        ...


class GameStore(
    GameRecords,
    GameLogs,
    LogChanges,
    Lobby,
    TurnSchedule,
    CreationQuotas,
    SharedCounters,
    GameCounts,
    FollowUps,
    Sessions,
    Players,
    PlayerEvents,
    Outbox,
    Matchmaking,
    Ratings,
    Protocol,
):
    """Everything the service keeps, behind one object a worker opens at start."""

    name: str

    @property
    def inline_follow_ups(self) -> bool:
        """Whether a write can carry its follow-up (`Write.inline`): where one atomic step can
        reach the game's and its players' keys (one process, or one Redis that is not a
        Cluster, whose slots part them)."""
        ...

    async def ping(self) -> bool:
        """Whether the store answers and takes writes."""
        ...

    async def memory(self) -> tuple[int, int] | None:
        """Bytes used and the most allowed (0: no bound); None where nothing bounds it."""
        ...

    def connections(self) -> int:
        """Connections this worker holds open to the store's servers now."""
        ...

    async def close(self) -> None: ...
