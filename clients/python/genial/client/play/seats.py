"""The seats a player holds, kept between runs so that one who quits can come back.

Each seat's player token is the only key to it, so `genial play` writes it to
`$XDG_STATE_HOME/genial/seats.json` (`~/.local/state/genial/seats.json` by default: the
XDG place for state that outlives a run but is no configuration), readable by the user
alone, and forgets it once the game is over. `genial play --resume GAME_ID` reads it back.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class KeptSeat:
    """A seat of a game on a server, and the token that holds it."""

    target: str
    game_id: str
    seat: int
    token: str
    name: str


def default_path() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "genial" / "seats.json"


@dataclass(frozen=True, slots=True)
class SeatBook:
    """The file of kept seats, newest last."""

    path: Path

    def seats(self) -> list[KeptSeat]:
        try:
            entries = json.loads(self.path.read_text())
        except FileNotFoundError:
            return []
        return [KeptSeat(**entry) for entry in entries]

    def find(self, game_id: str | None, target: str | None = None) -> KeptSeat | None:
        """The seat kept for `game_id` (the newest one with None), on `target` if given."""
        for seat in reversed(self.seats()):
            if game_id in (None, seat.game_id) and target in (None, seat.target):
                return seat
        return None

    def keep(self, seat: KeptSeat) -> None:
        self._write([*self._others(seat.target, seat.game_id), seat])

    def forget(self, target: str, game_id: str) -> None:
        if self.find(game_id, target) is not None:
            self._write(self._others(target, game_id))

    def _others(self, target: str, game_id: str) -> list[KeptSeat]:
        return [s for s in self.seats() if (s.target, s.game_id) != (target, game_id)]

    def _write(self, seats: list[KeptSeat]) -> None:
        """Replace the file at once, created for the user alone: it holds tokens."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".seats-")
        try:
            with os.fdopen(fd, "w") as file:
                json.dump([asdict(s) for s in seats], file, indent=1)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
