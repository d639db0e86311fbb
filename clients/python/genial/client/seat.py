"""`Seat`: one seat of one game as its player holds it, over a `GenialClient`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from genial.v1 import game_service_pb2 as api
from genial.v1 import types_pb2 as types

if TYPE_CHECKING:
    from .client import Credential, GenialClient


@dataclass
class Seat:
    """One seat of one game, as its player holds it: the token, and the version of the game
    the seat last looked at, which its moves expect by default.

    `GenialClient.join` returns one; to come back to a game later, keep `game_id`, `seat`
    and `token` and build it again: ``Seat(client, game_id, seat, token)``.
    """

    client: GenialClient
    game_id: str
    seat: int
    token: Credential
    """The seat's player token, or the session of the player the seat is bound to."""
    version: int = 0
    """The version of the last view, list of legal moves or move this seat got through
    `view`, `legal_moves` or `move` (`watch` leaves it alone: what is seen there is not
    necessarily what a move was chosen from)."""

    def _saw(self, version: int) -> None:
        self.version = max(self.version, version)

    async def view(self) -> types.GameView:
        """The game as this seat sees it (its own hand included)."""
        view = await self.client.view(self.game_id, self.token)
        self._saw(view.version)
        return view

    async def legal_moves(self) -> list[types.Move]:
        """This seat's legal moves now, each exactly as `move` takes it; empty when it is
        not the seat's turn."""
        response = await self.client.legal_moves(self.game_id, self.token)
        self._saw(response.version)
        return list(response.moves)

    async def move(
        self,
        move: types.Move,
        *,
        expected_version: int | Literal["seen"] | None = "seen",
        request_id: str | None = None,
        read_mask: Iterable[str] = (),
    ) -> api.MakeMoveResponse:
        """Make `move`. By default it expects the game to be at `self.version`, the version
        the seat last looked at, so a move chosen from an outdated view is refused
        (`GenialError` with reason STALE_VERSION) rather than applied to a game that moved
        on; pass an explicit version, or None to apply it to whatever the game is now.
        A `read_mask` (see `GenialClient.move`) always keeps the version, which the seat
        follows."""
        expected = self.version if expected_version == "seen" else expected_version
        paths = list(read_mask)
        if paths:
            paths.append("version")
        response = await self.client.move(
            self.game_id,
            self.token,
            move,
            expected_version=expected,
            request_id=request_id,
            read_mask=paths,
        )
        self._saw(response.version)
        return response

    def watch(
        self, from_version: int | None = None, *, read_mask: Iterable[str] = ()
    ) -> AsyncIterator[api.WatchGameResponse]:
        """Follow the game with this seat's views: what happened after `from_version`
        (default: after the version the seat last looked at), then live moves until the
        end. See `GenialClient.watch`."""
        start = self.version if from_version is None else from_version
        return self.client.watch(
            self.game_id, from_version=start, token=self.token, read_mask=read_mask
        )
