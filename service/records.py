"""What the service stores about a game beside the engine's state, as a typed record.

Stored keys are short (a game's metadata is written with every move), the names in code
are not: each field says the key it is stored under. Records written by earlier versions
decode as long as a field added later has a default.
"""

from __future__ import annotations

from typing import Any

import msgspec

from genial import engine

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
AWAY_GRACE = 5
"""Seconds an away seat gets before the greedy bot moves for it again."""


def _key(name: str, default: Any = msgspec.NODEFAULT) -> Any:
    return msgspec.field(name=name, default=default)


class GameMeta(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Who sits where, the turn timer and the game's life, beside the engine's state.

    Fields at their default are not written (most games have no players, resignations or
    rematch), and read back as the default."""

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
    players: list[str | None] = msgspec.field(name="u", default_factory=list)
    """The player bound to each seat, or (before it is taken) reserved for one; empty while
    no seat has a player."""
    resigned: list[bool] = msgspec.field(name="r", default_factory=list)
    """Seats whose players resigned (the greedy bot plays them); empty while none has."""
    reserved_until: float = _key("x", 0.0)
    """Until when a seat reserved for a player (a rematch's) is kept for it."""
    rematch: str | None = _key("m", None)
    """The id of this game's rematch, once one was asked for."""
    bot_accounts: list[bool] = msgspec.field(name="o", default_factory=list)
    """Seats taken by bot accounts; empty while none is."""
    rated: bool = _key("q", False)
    """Whether the game changes its players' ratings when it ends (a rated match's)."""

    def player(self, seat: int) -> str | None:
        """The player bound (or reserved) to `seat`."""
        return self.players[seat] if self.players else None

    def seat_of(self, player: str) -> int | None:
        """The seat `player` has taken in this game."""
        for seat, bound in enumerate(self.players):
            if bound == player and self.names[seat] is not None:
                return seat
        return None

    def reserved(self, seat: int, now: float) -> str | None:
        """The player an open seat is still kept for."""
        if self.names[seat] is None and now < self.reserved_until:
            return self.player(seat)
        return None

    def bind(self, seat: int, player: str | None, *, bot_account: bool = False) -> None:
        if not self.players:
            self.players = [None] * self.seats
        self.players[seat] = player
        if bot_account or self.bot_accounts:
            if not self.bot_accounts:
                self.bot_accounts = [False] * self.seats
            self.bot_accounts[seat] = bot_account

    def is_bot_account(self, seat: int) -> bool:
        return bool(self.bot_accounts) and self.bot_accounts[seat]

    @property
    def has_players(self) -> bool:
        """Whether any seat is bound (or reserved) to a player: such games have follow-ups."""
        return any(self.players)

    def is_resigned(self, seat: int) -> bool:
        return bool(self.resigned) and self.resigned[seat]

    def resign(self, seat: int) -> None:
        if not self.resigned:
            self.resigned = [False] * self.seats
        self.resigned[seat] = True

    def played_by_bot(self, seat: int) -> bool:
        """Whether a bot plays the seat's turns at once: a bot's seat, or a resigned one."""
        return self.bots[seat] is not None or self.is_resigned(seat)

    def resign_entry_id(self, version: int) -> tuple[int, int]:
        """The log entry id of a resignation at `version` (after `resign`): after the move
        of that version (`(version, 0)`), the seats taken (`(0, 1..seats)`) and earlier
        resignations."""
        return version, self.seats + sum(self.resigned)

    @property
    def joined(self) -> int:
        return len(self.names) - self.names.count(None)

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
            resigned=[],
        )


_meta = msgspec.json.Decoder(GameMeta)


def encode_meta(meta: GameMeta) -> bytes:
    return msgspec.json.encode(meta)


def decode_meta(raw: bytes) -> GameMeta:
    return _meta.decode(raw)


# The engine's own `encode` and `decode`, byte for byte (tested), with msgspec's JSON in
# place of the standard library's: a fifth of the cost (~10 µs a move's write).


def encode_state(state: engine.GameState) -> bytes:
    return msgspec.json.encode(state.to_data())


def decode_state(raw: bytes) -> engine.GameState:
    return engine.from_data(msgspec.json.decode(raw))
