"""Sessions and profiles: signing in as a guest by a device id, refreshing and revoking a
session, and the player's profile (a display name, nothing else).

A session is a chain of refresh tokens: each one is spent by RefreshSession for the next,
and only the digest of the latest is kept (with its place in the chain). A refresh token
presented again after it was spent means two parties hold the chain: the whole session is
revoked (reuse detection, as the OAuth 2.0 security BCP has it), its access tokens with it
(`Credentials` learns of revocations on every worker).
"""

from __future__ import annotations

import re
import secrets
import time

import msgspec

from genial.v1 import player_service_pb2 as pb

from ..credentials import Credentials, Principal, token_digest
from ..errors import ApiError, Reason
from ..games import display_name
from ..settings import Settings
from ..store import GameStore
from .my_games import timestamp_ms
from .tokens import ACCESS_AUDIENCE, REFRESH_AUDIENCE, Verified, player_id, unverified

DEVICE_ID = re.compile(r"[A-Za-z0-9_.:-]{16,128}")


class Profile(msgspec.Struct, omit_defaults=True):
    """What is stored of a player."""

    created: float = msgspec.field(name="c")
    name: str = msgspec.field(name="n", default="")
    bot: bool = msgspec.field(name="b", default=False)
    """A bot account (`bot_accounts`)."""


_profile = msgspec.json.Decoder(Profile)


class PlayerSessions:
    def __init__(self, store: GameStore, settings: Settings, credentials: Credentials) -> None:
        self.store = store
        self.settings = settings
        self.credentials = credentials

    # ---- profiles --------------------------------------------------------------------------

    async def profile(self, player: str, name: str = "") -> pb.PlayerProfile:
        """The player's profile, made on first sight; `name` replaces its display name."""
        raw = await self.store.player_profile(player)
        profile = _profile.decode(raw) if raw is not None else Profile(created=time.time())
        if name or raw is None:
            profile.name = name or profile.name
            await self.store.set_player_profile(
                player, msgspec.json.encode(profile), self.settings.player_ttl
            )
        found = pb.PlayerProfile(player_id=player, display_name=profile.name)
        found.created_at.FromMilliseconds(timestamp_ms(profile.created))
        return found

    async def is_bot(self, player: str) -> bool:
        """Whether the player is a bot account."""
        raw = await self.store.player_profile(player)
        return raw is not None and _profile.decode(raw).bot

    async def get_player(
        self, _request: pb.GetPlayerRequest, caller: Principal
    ) -> pb.GetPlayerResponse:
        return pb.GetPlayerResponse(player=await self.profile(caller.require_player()))

    async def update_player(
        self, request: pb.UpdatePlayerRequest, caller: Principal
    ) -> pb.UpdatePlayerResponse:
        player = caller.require_player()
        name = display_name(request.display_name)
        return pb.UpdatePlayerResponse(player=await self.profile(player, name))

    # ---- sessions --------------------------------------------------------------------------

    async def create_session(
        self, request: pb.CreateSessionRequest, _caller: Principal
    ) -> pb.CreateSessionResponse:
        if not DEVICE_ID.fullmatch(request.device_id):
            raise ApiError(Reason.BAD_DEVICE_ID, "a device id is 16-128 characters [A-Za-z0-9_.:-]")
        name = display_name(request.display_name) if request.display_name else ""
        player = player_id("device", request.device_id)
        session = secrets.token_urlsafe(16)
        made = await self._session(player, session, 0)
        await self.store.create_session(
            session,
            player,
            token_digest(made.refresh_token),
            self.settings.refresh_token_seconds,
        )
        made.player.CopyFrom(await self.profile(player, name))
        return pb.CreateSessionResponse(session=made)

    async def _session(self, player: str, session: str, generation: int) -> pb.Session:
        """A session's tokens: a new access token, and the refresh token of `generation`."""
        keys = await self.credentials.session_keys()
        access, access_expires = keys.issue(
            player, session, ACCESS_AUDIENCE, self.settings.access_token_seconds
        )
        refresh, refresh_expires = keys.issue(
            player, session, REFRESH_AUDIENCE, self.settings.refresh_token_seconds, generation
        )
        made = pb.Session(access_token=access, refresh_token=refresh)
        made.access_token_expires_at.FromMilliseconds(timestamp_ms(access_expires))
        made.refresh_token_expires_at.FromMilliseconds(timestamp_ms(refresh_expires))
        return made

    async def _refresh_token(self, token: str) -> Verified:
        if not token:
            raise ApiError(Reason.TOKEN_MISSING, "send the refresh token")
        header, _ = unverified(token)
        keys = await self.credentials.session_keys()
        verified = keys.verify(token, header, REFRESH_AUDIENCE)
        assert verified.session is not None
        return verified

    async def refresh_session(
        self, request: pb.RefreshSessionRequest, _caller: Principal
    ) -> pb.RefreshSessionResponse:
        verified = await self._refresh_token(request.refresh_token)
        session = verified.session
        assert session is not None
        made = await self._session(verified.player, session, verified.generation + 1)
        outcome = await self.store.rotate_session(
            session,
            verified.generation,
            token_digest(request.refresh_token),
            token_digest(made.refresh_token),
            self.settings.refresh_token_seconds,
        )
        if outcome != "ok":
            if outcome in ("reused", "revoked"):
                # Again, for the workers: the mark may have been lost with a crashed one.
                await self._revoke(session)
            why = {
                "reused": "this refresh token was used before, so the session is ended",
                "revoked": "the session was ended",
            }.get(outcome, "no such session (ended, or unused for too long)")
            raise ApiError(Reason.TOKEN_REVOKED, f"{why}; sign in again")
        made.player.CopyFrom(await self.profile(verified.player))
        return pb.RefreshSessionResponse(session=made)

    async def revoke_session(
        self, request: pb.RevokeSessionRequest, caller: Principal
    ) -> pb.RevokeSessionResponse:
        if request.refresh_token:
            session = (await self._refresh_token(request.refresh_token)).session
        else:
            session = caller.session
        if session is None:
            raise ApiError(
                Reason.TOKEN_MISSING, "send a refresh token, or call with the session's token"
            )
        await self._revoke(session)
        return pb.RevokeSessionResponse()

    async def _revoke(self, session: str) -> None:
        await self.store.revoke_session(session, self.credentials.revocations_kept)
        self.credentials.learn_revoked(session)
