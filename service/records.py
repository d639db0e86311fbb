"""What the service stores about a game beside the engine's state, as a typed record.

Stored keys are short (a game's metadata is written with every move), the names in code
are not: each field says the key it is stored under. Records written by earlier versions
decode as long as a field added later has a default.
"""

from __future__ import annotations

from typing import Any

import msgspec

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
AWAY_GRACE = 5
"""Seconds an away seat gets before the greedy bot moves for it again."""


def _key(name: str, default: Any = msgspec.NODEFAULT) -> Any:
    return msgspec.field(name=name, default=default)


class GameMeta(msgspec.Struct, kw_only=True):
    """Who sits where, the turn timer and the game's life, beside the engine's state."""

    kind: str = _key("k")
    seats: int = _key("n")
    created: float = _key("c")
    """When the game was created (Unix time, full precision: it orders the lobby's pages)."""
    names: list[str | None] = _key("p")
    """Each seat's display name once taken (a bot's is its strength and " bot")."""
    tokens: list[str | None] = _key("t")
    """The digest of each seat's token (`credentials.token_digest`), never the token."""
    bots: list[str | None] = _key("b")
    """The strength of the built-in bot at each seat, None for a player."""
    away: list[bool] = _key("a")
    """Seats that missed their turn timer and have not moved since."""
    turn_seconds: int | None = _key("s", None)
    turn_started: float = _key("w", 0.0)
    """When the seat to move got the turn (kept only for games with a timer)."""
    finished: bool = _key("f", False)

    @property
    def joined(self) -> int:
        return sum(name is not None for name in self.names)

    @property
    def status(self) -> str:
        if self.finished:
            return FINISHED
        return PLAYING if self.joined == self.seats else WAITING

    def deadline(self, seat: int | None) -> float | None:
        """When `seat`, to move, runs out of time; None without a timer."""
        if self.turn_seconds is None or seat is None or self.status != PLAYING:
            return None
        limit = min(self.turn_seconds, AWAY_GRACE) if self.away[seat] else self.turn_seconds
        return self.turn_started + limit

    def at_start(self) -> GameMeta:
        """The metadata as it was when the game was created: bots seated, nobody else."""
        return msgspec.structs.replace(
            self,
            names=[n if b else None for n, b in zip(self.names, self.bots, strict=True)],
            away=[False] * self.seats,
            finished=False,
        )


_meta = msgspec.json.Decoder(GameMeta)


def encode_meta(meta: GameMeta) -> bytes:
    return msgspec.json.encode(meta)


def decode_meta(raw: bytes) -> GameMeta:
    return _meta.decode(raw)
