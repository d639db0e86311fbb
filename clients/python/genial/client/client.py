"""`GenialClient`: the genial API over gRPC, asynchronous and typed.

The messages are the generated ones (`genial.v1.*_pb2`); this module adds what every
caller would otherwise write again: the bearer token, a fresh `request_id` per move,
`expected_version` from what the seat last saw, retries with backoff where they are safe,
and errors with the service's stable reason (`GenialError`).
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, Self, cast

import grpc
from google.protobuf.message import Message
from grpc import aio

from genial.v1 import game_service_pb2 as api
from genial.v1 import game_service_pb2_grpc as api_grpc
from genial.v1 import types_pb2 as types

from .errors import RATE_LIMITED, GenialError
from .seat import Seat

if TYPE_CHECKING:
    from .player import PlayerSession

Kind = Literal["cards", "dice", "tiles"]
"""The three games."""
Strength = Literal["random", "greedy", "strong"]
"""How well a bot seated by the service plays."""

DEFAULT_TARGET = "localhost:50051"
RETRIED_ALWAYS = {grpc.StatusCode.ABORTED}
RETRIED_WHEN_IDEMPOTENT = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
STALE_VERSION = "STALE_VERSION"


def kind_value(kind: Kind) -> str:
    """The proto enum value's name of a game kind: "dice" is GAME_KIND_DICE (protobuf takes
    an enum field's value by name too)."""
    return f"GAME_KIND_{kind.upper()}"


def kind_name(kind: types.GameKind) -> Kind:
    """The inverse of `kind_value`."""
    name = types.GameKind.Name(kind).removeprefix("GAME_KIND_").lower()
    if name not in ("cards", "dice", "tiles"):
        raise ValueError(f"not a game kind: {kind}")
    return cast(Kind, name)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how often a call is tried again.

    A call is retried when the service could not apply it for now (ABORTED with reason
    CONTENTION) and, for calls that are safe to repeat, when the service could not be
    reached (UNAVAILABLE) or did not answer in time (DEADLINE_EXCEEDED). Every call but
    CreateGame and JoinGame is safe to repeat: reads change nothing, and each move carries
    a request id, so the service applies it once however often it is sent.

    ABORTED with reason STALE_VERSION is never retried: the game moved on since the move
    was chosen, and only the caller can tell whether it still makes sense.

    A call refused by a rate limit (RESOURCE_EXHAUSTED, reason RATE_LIMITED) was not run,
    so any call goes again once the service's `retry_after` has passed, if that is at most
    `max_rate_limit_wait` seconds.
    """

    attempts: int = 5
    """Tries in all, the first included."""
    initial_backoff: float = 0.05
    """Seconds before the first retry, at most (the wait is jittered)."""
    max_backoff: float = 2.0
    """The longest wait between two tries."""
    multiplier: float = 2.0
    """How much the longest wait grows with each retry."""
    max_rate_limit_wait: float = 10.0
    """The longest `retry_after` worth waiting for (0: a rate-limited call raises at once)."""

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number `retry` (1 for the first). Full jitter: the
        clients that collided once spread out instead of colliding again."""
        ceiling = min(self.max_backoff, self.initial_backoff * self.multiplier ** (retry - 1))
        return random.uniform(0, ceiling)

    def delay(self, error: GenialError, retry: int, idempotent: bool) -> float | None:
        """Seconds to wait before retry number `retry` of a call that failed with `error`;
        None when it is not retried."""
        if error.code == grpc.StatusCode.RESOURCE_EXHAUSTED and error.reason == RATE_LIMITED:
            wait = error.retry_after
            if wait is None or retry >= self.attempts or not 0 <= wait <= self.max_rate_limit_wait:
                return None
            # A little past the window's end, spread out: clients refused together
            # should not all come back at the same instant.
            return wait + random.uniform(0, self.initial_backoff)
        if not self.should_retry(error, retry, idempotent):
            return None
        return self.backoff(retry)

    def should_retry(self, error: GenialError, retry: int, idempotent: bool) -> bool:
        """Whether a call that failed with `error` gets retry number `retry`."""
        if retry >= self.attempts:
            return False
        if error.code in RETRIED_ALWAYS:
            return error.reason != STALE_VERSION
        return idempotent and error.code in RETRIED_WHEN_IDEMPOTENT


class TokenSource(Protocol):
    """Gives a bearer token when asked, and a new one when the last was refused: a player's
    session (`PlayerSession`), which refreshes its access token by itself."""

    async def access_token(self) -> str:
        """A token to send now (refreshed first when it is about to expire)."""
        ...

    async def renew(self) -> None:
        """Get a new token: the service refused the last one (UNAUTHENTICATED)."""
        ...


Credential = str | TokenSource | None
"""What a call acts with: a seat's player token, a player's session, or nothing."""


async def _bearer(token: Credential) -> str | None:
    return token if token is None or isinstance(token, str) else await token.access_token()


def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),) if token else ()


class GenialClient:
    """An asynchronous client of a genial server, over gRPC.

    Use it as an async context manager, or call `close()`::

        async with GenialClient.connect("localhost:50051") as client:
            game = await client.create("dice", seats=2, bots={1: "greedy"})
            seat = await client.join(game.game_id, "Ada")
            moves = await seat.legal_moves()
            await seat.move(moves[0])

    Methods that act for a seat take its player token; `Seat` carries it for you.
    Refusals raise `GenialError`.
    """

    def __init__(
        self,
        channel: aio.Channel,
        *,
        retry: RetryPolicy | None = None,
        timeout: float | None = 10.0,
    ) -> None:
        """Wrap an open channel. `timeout` is each unary call's deadline in seconds (None:
        no deadline); watches have none."""
        self.channel = channel
        self.retry = retry or RetryPolicy()
        self.timeout = timeout
        # The generated stub is untyped; each method below states what its call returns.
        self._stub = api_grpc.GameServiceStub(channel)  # type: ignore[no-untyped-call]

    @classmethod
    def connect(
        cls,
        target: str = DEFAULT_TARGET,
        *,
        credentials: grpc.ChannelCredentials | None = None,
        retry: RetryPolicy | None = None,
        timeout: float | None = 10.0,
    ) -> GenialClient:
        """A client of the server at `target` ("host:port"): in plain text, or over TLS with
        `credentials` (for example `grpc.ssl_channel_credentials()`). The channel connects
        on the first call; create the client inside the event loop that uses it."""
        if credentials is None:
            channel = aio.insecure_channel(target)
        else:
            channel = aio.secure_channel(target, credentials)
        return cls(channel, retry=retry, timeout=timeout)

    async def close(self) -> None:
        """Close the channel; calls still running are cancelled."""
        await self.channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    async def _unary(
        self,
        rpc: Callable[..., Awaitable[Any]],
        request: Message,
        token: Credential = None,
        *,
        idempotent: bool = True,
    ) -> Any:
        """Call `rpc`, retried as the policy allows; a refusal raises `GenialError`. A
        player's session whose token is refused gets a new one and the call goes again,
        once (it was not run)."""
        retry = 0
        renewed = False
        while True:
            try:
                metadata = _metadata(await _bearer(token))
                return await rpc(request, metadata=metadata, timeout=self.timeout)
            except aio.AioRpcError as err:
                error = GenialError.from_rpc_error(err)
                session = token if token is not None and not isinstance(token, str) else None
                if error.code == grpc.StatusCode.UNAUTHENTICATED and session and not renewed:
                    await session.renew()
                    renewed = True
                    continue
                retry += 1
                delay = self.retry.delay(error, retry, idempotent)
                if delay is None:
                    raise error from None
            await asyncio.sleep(delay)

    async def sign_in_as_guest(self, device_id: str, display_name: str = "") -> PlayerSession:
        """Sign a player in by a device id the app keeps (16-128 characters; the same id is
        the same player, on any device): see `PlayerSession`."""
        from .player import PlayerSession  # noqa: PLC0415  (player builds on this module)

        return await PlayerSession.sign_in_as_guest(self, device_id, display_name)

    async def create(
        self,
        kind: Kind,
        seats: int = 2,
        *,
        bots: Mapping[int, Strength] | None = None,
        options: types.GameOptions | None = None,
        turn_seconds: int | None = None,
    ) -> api.CreateGameResponse:
        """Create a game of `kind` with `seats` open seats (2-4), and seat the service's
        bots at the seats `bots` names (seat -> strength), which then play by themselves.
        `options` left unset take the game's defaults; `turn_seconds` sets a turn timer."""
        request = api.CreateGameRequest(
            kind=kind_value(kind),
            seats=seats,
            options=options,
            bots=[
                api.SeatBot(seat=seat, strength=f"BOT_STRENGTH_{strength.upper()}")
                for seat, strength in sorted((bots or {}).items())
            ],
            turn_seconds=turn_seconds,
        )
        response: api.CreateGameResponse = await self._unary(
            self._stub.CreateGame, request, idempotent=False
        )
        return response

    async def join(self, game_id: str, display_name: str, *, seat: int | None = None) -> Seat:
        """Take a seat (the first open one, or `seat`) under `display_name`. The returned
        `Seat` holds the player token: keep `seat.token` to come back to the game later."""
        request = api.JoinGameRequest(game_id=game_id, display_name=display_name, seat=seat)
        response: api.JoinGameResponse = await self._unary(
            self._stub.JoinGame, request, idempotent=False
        )
        return Seat(self, game_id, response.seat, response.player_token, response.view.version)

    async def view(
        self, game_id: str, token: Credential = None, *, read_mask: Iterable[str] = ()
    ) -> types.GameView:
        """The game as the seat of `token` sees it; without a token, a spectator's view.
        With `read_mask`, only those fields of the view (paths in GameView: "version",
        "to_move", "dice.phase"): what is left out is neither built nor sent."""
        request = api.GetGameRequest(game_id=game_id)
        request.read_mask.paths.extend(f"view.{path}" for path in read_mask)
        response: api.GetGameResponse = await self._unary(self._stub.GetGame, request, token)
        return response.view

    async def legal_moves(self, game_id: str, token: Credential) -> api.ListLegalMovesResponse:
        """The legal moves of the seat of `token`, with the version they are legal at
        (none when it is not the seat's turn)."""
        response: api.ListLegalMovesResponse = await self._unary(
            self._stub.ListLegalMoves, api.ListLegalMovesRequest(game_id=game_id), token
        )
        return response

    async def move(
        self,
        game_id: str,
        token: Credential,
        move: types.Move,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        read_mask: Iterable[str] = (),
    ) -> api.MakeMoveResponse:
        """Make `move` for the seat of `token`. With `expected_version` it is refused
        (ABORTED, STALE_VERSION) unless the game is still at that version. A `request_id`
        is made up when none is given; every retry sends the same one, so the move is
        applied at most once. With `read_mask` (paths in MakeMoveResponse, e.g.
        ("version", "events")) the answer has only those fields."""
        request = api.MakeMoveRequest(
            game_id=game_id,
            move=move,
            expected_version=expected_version,
            request_id=request_id or uuid.uuid4().hex,
        )
        request.read_mask.paths.extend(read_mask)
        response: api.MakeMoveResponse = await self._unary(self._stub.MakeMove, request, token)
        return response

    async def watch(
        self,
        game_id: str,
        *,
        from_version: int = 0,
        token: Credential = None,
        read_mask: Iterable[str] = (),
    ) -> AsyncIterator[api.WatchGameResponse]:
        """Follow a game: each seat taken and each move after `from_version` (0: all of
        them), with its events and a fresh view for the seat of `token` (or a spectator's),
        then the live ones as they happen. Ends when the game is over; leave the loop to stop
        earlier. The service's keep-alives are not yielded. With `read_mask` (paths in
        WatchGameResponse, e.g. ("version", "events") to follow the events alone) each
        update has only those fields."""
        request = api.WatchGameRequest(game_id=game_id, from_version=from_version)
        request.read_mask.paths.extend(read_mask)
        call = self._stub.WatchGame(request, metadata=_metadata(await _bearer(token)))
        try:
            async for update in call:
                if not update.keep_alive:
                    yield update
        except aio.AioRpcError as err:
            raise GenialError.from_rpc_error(err) from None
        finally:
            call.cancel()

    async def history(self, game_id: str, *, page_size: int = 0) -> api.GetHistoryResponse:
        """Every move of the game with its events, and the seed once the game is over: all
        the pages of GetHistory (of `page_size` moves; 0 takes the service's default) as
        one answer."""
        whole: api.GetHistoryResponse | None = None
        token = ""
        while whole is None or token:
            page: api.GetHistoryResponse = await self._unary(
                self._stub.GetHistory,
                api.GetHistoryRequest(game_id=game_id, page_size=page_size, page_token=token),
            )
            if whole is None:
                whole = page
            else:
                whole.entries.extend(page.entries)
                whole.seed = page.seed
            token = page.next_page_token
        whole.next_page_token = ""
        return whole

    async def games(
        self, kind: Kind | None = None, *, page_size: int = 0
    ) -> AsyncIterator[types.GameSummary]:
        """The lobby's games with open seats (of `kind`, or of every kind), page after
        page; `page_size` 0 takes the service's default."""
        request = api.ListGamesRequest(
            kind=kind_value(kind) if kind else types.GAME_KIND_UNSPECIFIED, page_size=page_size
        )
        while True:
            response: api.ListGamesResponse = await self._unary(self._stub.ListGames, request)
            for game in response.games:
                yield game
            if not response.next_page_token:
                return
            request.page_token = response.next_page_token
