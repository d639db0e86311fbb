"""`PlayerSession`: a signed-in player, across games and devices.

A guest signs in by a device id the app keeps (the same id is the same player). The
session keeps its tokens fresh by itself: the access token is refreshed a minute before it
expires and after the service refuses it, and a session the service ended (revoked, or
unused for too long) is replaced by signing in again with the device id. Its seats are
`Seat`s that act with the session, from any device.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc
from grpc import aio

from genial.v1 import game_service_pb2 as api
from genial.v1 import player_service_pb2 as pb
from genial.v1 import player_service_pb2_grpc as pb_grpc
from genial.v1 import webhook_service_pb2 as wpb
from genial.v1 import webhook_service_pb2_grpc as webhook_grpc

from .client import GenialClient
from .errors import GenialError
from .seat import Seat

REFRESH_MARGIN = 60.0
"""Seconds before its expiry that an access token is refreshed."""
API_KEY_EXPIRES = 253_402_300_799
"""The end of 9999: an API key has no expiry of its own."""
RECONNECT_BACKOFF = (0.2, 5.0)
"""The first and the longest wait before a watch connects again."""
RECONNECT_CODES = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
}
"""Ends of a watch that call for connecting again (a worker went away, say)."""


class PlayerSession:
    """A signed-in player: its tokens, kept fresh, and what a player does beyond one seat.

    ::

        async with GenialClient.connect() as client:
            me = await client.sign_in_as_guest(device_id)
            async for game in me.my_games():
                ...

    It is a token source: pass it wherever a token goes (`Seat(client, game_id, seat, me)`).
    """

    def __init__(
        self, client: GenialClient, session: pb.Session, device_id: str | None = None
    ) -> None:
        self.client = client
        self.device_id = device_id
        self._session = session
        self._lock = asyncio.Lock()
        # The generated stub is untyped; each method below states what its call returns.
        self._stub = pb_grpc.PlayerServiceStub(client.channel)  # type: ignore[no-untyped-call]

    @classmethod
    async def sign_in_as_guest(
        cls, client: GenialClient, device_id: str, display_name: str = ""
    ) -> PlayerSession:
        session = await cls._create(client, device_id, display_name)
        return cls(client, session, device_id)

    @classmethod
    def with_api_key(cls, client: GenialClient, api_key: str) -> PlayerSession:
        """A bot account's session: its API key (`genial players create-bot` prints it) is
        its token, never refreshed (a revoked key is refused: `GenialError`)."""
        session = pb.Session(access_token=api_key)
        session.access_token_expires_at.FromSeconds(API_KEY_EXPIRES)
        return cls(client, session)

    @staticmethod
    async def _create(client: GenialClient, device_id: str, display_name: str) -> pb.Session:
        stub = pb_grpc.PlayerServiceStub(client.channel)  # type: ignore[no-untyped-call]
        request = pb.CreateSessionRequest(device_id=device_id, display_name=display_name)
        made: pb.CreateSessionResponse = await client._unary(
            stub.CreateSession, request, idempotent=False
        )
        return made.session

    @property
    def player(self) -> pb.PlayerProfile:
        """The player, as the last sign-in or refresh told it."""
        return self._session.player

    @property
    def player_id(self) -> str:
        return self._session.player.player_id

    @property
    def refresh_token(self) -> str:
        """The session's refresh token now: an app that keeps it can resume the session
        without signing in again (`resume`)."""
        return self._session.refresh_token

    @classmethod
    async def resume(
        cls, client: GenialClient, refresh_token: str, device_id: str | None = None
    ) -> PlayerSession:
        """The session of a refresh token kept from earlier (it is spent for a new one)."""
        session = cls(client, pb.Session(refresh_token=refresh_token), device_id)
        await session.renew()
        return session

    # ---- the token source --------------------------------------------------------------

    async def access_token(self) -> str:
        expires = self._session.access_token_expires_at.ToSeconds()
        if not self._session.access_token or expires - time.time() < REFRESH_MARGIN:
            await self.renew()
        return self._session.access_token

    async def renew(self) -> None:
        """A new access token: by the refresh token, or (if the service ended the session)
        by signing in again with the device id."""
        spent = self._session.refresh_token
        async with self._lock:
            if self._session.refresh_token != spent:
                return  # renewed by another call meanwhile
            request = pb.RefreshSessionRequest(refresh_token=spent)
            try:
                refreshed: pb.RefreshSessionResponse = await self.client._unary(
                    self._stub.RefreshSession, request, idempotent=False
                )
                self._session = refreshed.session
            except GenialError as err:
                if err.code != grpc.StatusCode.UNAUTHENTICATED or self.device_id is None:
                    raise
                self._session = await self._create(self.client, self.device_id, "")

    # ---- the player --------------------------------------------------------------------

    async def _call(self, method: str, request: Any, *, idempotent: bool = True) -> Any:
        return await self.client._unary(
            getattr(self._stub, method), request, self, idempotent=idempotent
        )

    async def profile(self) -> pb.PlayerProfile:
        got: pb.GetPlayerResponse = await self._call("GetPlayer", pb.GetPlayerRequest())
        return got.player

    async def rename(self, display_name: str) -> pb.PlayerProfile:
        request = pb.UpdatePlayerRequest(display_name=display_name)
        got: pb.UpdatePlayerResponse = await self._call("UpdatePlayer", request)
        return got.player

    async def my_games(self, *, page_size: int = 0) -> AsyncIterator[pb.MyGame]:
        """The player's games: those where it is the player's turn first, then the other
        live ones, then the last finished ones."""
        request = pb.ListMyGamesRequest(page_size=page_size)
        while True:
            page: pb.ListMyGamesResponse = await self._call("ListMyGames", request)
            for game in page.games:
                yield game
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    async def set_webhook(self, url: str, events: Sequence[str] = ()) -> str:
        """Set the player's own webhook endpoint for signed notifications of its games
        (`events`: the types wanted, none: all), where the service allows it; an empty URL
        removes it. Returns the endpoint's new signing secret (whsec_...)."""
        stub = webhook_grpc.WebhookServiceStub(self.client.channel)  # type: ignore[no-untyped-call]
        request = wpb.SetPlayerWebhookRequest(url=url, events=events)
        got: wpb.SetPlayerWebhookResponse = await self.client._unary(
            stub.SetPlayerWebhook, request, self, idempotent=True
        )
        return got.secret

    async def join(self, game_id: str, display_name: str = "", *, seat: int | None = None) -> Seat:
        """Take a seat, bound to this player (or the player's seat again, if it has one):
        the profile's display name unless another is given."""
        request = api.JoinGameRequest(game_id=game_id, display_name=display_name, seat=seat)
        joined: api.JoinGameResponse = await self.client._unary(
            self.client._stub.JoinGame, request, self, idempotent=True
        )
        return Seat(self.client, game_id, joined.seat, self, joined.view.version)

    def seat(self, game: pb.MyGame) -> Seat:
        """The player's seat at one of its games, as `my_games` lists it."""
        return Seat(self.client, game.game_id, game.seat, self, game.version)

    async def resign(self, game_id: str) -> api.ResignResponse:
        """Leave a game in progress for good: the greedy bot plays the seat to the end."""
        response: api.ResignResponse = await self.client._unary(
            self.client._stub.Resign, api.ResignRequest(game_id=game_id), self
        )
        return response

    async def rematch(self, game_id: str) -> Seat:
        """A new game like a finished one (the same for everyone who asks), and the
        player's seat there, taken."""
        response: api.RematchResponse = await self.client._unary(
            self.client._stub.Rematch, api.RematchRequest(game_id=game_id), self
        )
        return await self.join(response.game_id)

    async def watch(self, cursor: str = "") -> AsyncIterator[pb.WatchPlayerResponse]:
        """What happens in the player's games: first the live games, then each event, for
        as long as the loop runs. A watch cut off (a worker going away, a network change)
        connects again by itself and resumes after the last answer, so no event is missed;
        every connection begins with the live games again; a watch refused by a rate limit
        connects again after the wait the service asks. Keep-alives are not yielded."""
        backoff = RECONNECT_BACKOFF[0]
        while True:
            request = pb.WatchPlayerRequest(cursor=cursor)
            call = self._stub.WatchPlayer(request, metadata=await self._metadata())
            wait = backoff
            try:
                async for answer in call:
                    backoff = RECONNECT_BACKOFF[0]
                    cursor = answer.cursor
                    if answer.WhichOneof("answer") is not None:
                        yield answer
            except aio.AioRpcError as err:
                error = GenialError.from_rpc_error(err)
                if error.code == grpc.StatusCode.UNAUTHENTICATED:
                    await self.renew()
                    continue
                # A rate limit ends the watch for as long as it says, not for good.
                asked = error.retry_after
                if error.code not in RECONNECT_CODES and asked is None:
                    raise error from None
                wait = max(backoff, asked or 0.0)
            finally:
                call.cancel()
            await asyncio.sleep(wait)
            backoff = min(backoff * 2, RECONNECT_BACKOFF[1])

    async def _metadata(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {await self.access_token()}"),)

    async def sign_out(self) -> None:
        """End the session: its tokens are refused from now on, on every worker."""
        await self._call("RevokeSession", pb.RevokeSessionRequest())
