"""The embedded store's part for players: sessions, profiles, game lists, event feeds and
follow-up intents, with the same semantics as Redis in one process."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .base import Followed, Follower, player_feed
from .follow import Wakeups


class LeasedTimes:
    """Ids due at a time, leased by moving the time forward (a schedule, follow-up intents)."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}

    def due(self, now: float, count: int) -> list[tuple[str, float]]:
        return sorted(((g, t) for g, t in self.times.items() if t <= now), key=lambda x: x[1])[
            :count
        ]

    def move(self, key: str, due: float, until: float | None) -> bool:
        """Move `key` from `due` to `until` (None drops it); False if it is not at `due`."""
        if self.times.get(key) != due:
            return False
        if until is None:
            del self.times[key]
        else:
            self.times[key] = until
        return True


@dataclass
class _Session:
    player: str
    generation: int
    digest: str
    expires: float
    revoked: bool = False


@dataclass
class _Player:
    profile: bytes | None = None
    webhook: bytes | None = None
    live: dict[str, float] = field(default_factory=dict)
    finished: OrderedDict[str, bytes] = field(default_factory=OrderedDict)
    """Summaries, the oldest first."""
    events: OrderedDict[str, tuple[int, bytes]] = field(default_factory=OrderedDict)
    """Event id -> (number, data), in the order added."""
    last_event: int = 0


class MemoryPlayers:
    """Players' keys in process. Player data does not expire here (one process, for trials)."""

    _clock: Callable[[], float]
    _wakeups: Wakeups

    def __init__(self) -> None:
        self._follow_ups = LeasedTimes()
        self._followed: dict[str, Followed] = {}
        self._sessions: dict[str, _Session] = {}
        self._revoked: dict[str, float] = {}
        self._secrets: dict[str, str] = {}
        self._players: dict[str, _Player] = {}

    def _player(self, player: str) -> _Player:
        return self._players.setdefault(player, _Player())

    # ---- follow-ups ------------------------------------------------------------------------

    async def follow_ups_due(self, now: float, count: int) -> list[tuple[str, float]]:
        return self._follow_ups.due(now, count)

    async def lease_follow_up(self, game_id: str, due: float, until: float) -> bool:
        return self._follow_ups.move(game_id, due, until)

    async def followed(self, game_id: str) -> Followed | None:
        return self._followed.get(game_id)

    async def follow_up_done(
        self, game_id: str, due: float, followed: Followed | None, ttl: float
    ) -> None:
        known = self._followed.get(game_id)
        if followed is not None and (known is None or known.rev < followed.rev):
            self._followed[game_id] = followed
        self._follow_ups.move(game_id, due, None)

    # ---- sessions --------------------------------------------------------------------------

    async def create_session(self, session_id: str, player: str, digest: str, ttl: float) -> None:
        self._sessions[session_id] = _Session(player, 0, digest, self._clock() + ttl)

    async def rotate_session(
        self, session_id: str, generation: int, digest: str, new_digest: str, ttl: float
    ) -> str:
        session = self._sessions.get(session_id)
        if session is None or session.expires <= self._clock():
            return "unknown"
        if session.revoked:
            return "revoked"
        if session.generation != generation or session.digest != digest:
            session.revoked = True
            return "reused"
        session.generation += 1
        session.digest = new_digest
        session.expires = self._clock() + ttl
        return "ok"

    async def session_holder(self, session_id: str) -> tuple[str, str, bool] | None:
        session = self._sessions.get(session_id)
        if session is None or session.expires <= self._clock():
            return None
        return session.player, session.digest, session.revoked

    async def revoke_session(self, session_id: str, keep: float) -> None:
        if (session := self._sessions.get(session_id)) is not None:
            session.revoked = True
        now = time.time()  # Unix time, as `revoked_sessions` is asked by
        self._revoked = {s: t for s, t in self._revoked.items() if t > now - keep}
        self._revoked[session_id] = now

    async def revoked_sessions(self, since: float) -> list[tuple[str, float]]:
        return [(s, t) for s, t in self._revoked.items() if t >= since]

    async def shared_secret(self, name: str, proposal: str) -> str:
        return self._secrets.setdefault(name, proposal)

    # ---- profiles and game lists -----------------------------------------------------------

    async def player_profile(self, player: str) -> bytes | None:
        return self._player(player).profile

    async def set_player_profile(self, player: str, profile: bytes, ttl: float) -> None:
        self._player(player).profile = profile

    async def player_webhook(self, player: str) -> bytes | None:
        return self._player(player).webhook

    async def set_player_webhook(self, player: str, webhook: bytes | None, ttl: float) -> None:
        self._player(player).webhook = webhook

    async def add_my_game(self, player: str, game_id: str, at: float, ttl: float) -> int:
        live = self._player(player).live
        live.setdefault(game_id, at)
        return len(live)

    async def remove_my_game(self, player: str, game_id: str) -> None:
        self._player(player).live.pop(game_id, None)

    async def my_games(self, player: str, count: int) -> list[str]:
        live = self._player(player).live
        return sorted(live, key=lambda g: live[g], reverse=True)[:count]

    async def finish_my_game(
        self, player: str, game_id: str, at: float, summary: bytes, keep: int, ttl: float
    ) -> None:
        known = self._player(player)
        known.live.pop(game_id, None)
        known.finished.pop(game_id, None)
        known.finished[game_id] = summary
        while len(known.finished) > keep:
            known.finished.popitem(last=False)

    async def finished_games(self, player: str, count: int) -> list[bytes]:
        return list(reversed(self._player(player).finished.values()))[:count]

    # ---- events ----------------------------------------------------------------------------

    async def add_player_events(
        self, player: str, events: Sequence[tuple[str, bytes]], keep: int, ttl: float
    ) -> int:
        known = self._player(player)
        added = 0
        for event_id, data in events:
            if event_id not in known.events:
                known.last_event += 1
                known.events[event_id] = (known.last_event, data)
                added += 1
        while len(known.events) > keep:
            known.events.popitem(last=False)
        if added:
            self._wakeups.wake(player_feed(player))
        return added

    async def player_events(self, player: str, after: int, count: int) -> list[tuple[int, bytes]]:
        found = [e for e in self._player(player).events.values() if e[0] > after]
        return found[:count]

    async def last_player_event(self, player: str) -> int:
        return self._player(player).last_event

    async def follow_player(self, player: str) -> Follower:
        return self._wakeups.follow(player_feed(player))
