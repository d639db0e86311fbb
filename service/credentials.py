"""Who is calling: the bearer credential of a request, resolved once (in the shared invoke
path, by `Credentials.principal`) into a `Principal` that the use cases take. Use cases
never see a raw token.

A credential is a seat token, or a player's token (a JWT: the service's own session token,
or an identity provider's), or a bot account's API key (`players.bot_accounts`). A seat
token is random (32 bytes, URL-safe base64) and only its digest is ever kept: in the
game's metadata, in the rate limiter's keys, in caches. A player's token is verified once
per worker and then known by its digest until it expires (`VerifiedTokens`), so that a
move with it costs no more than one with a seat token; a revoked session is refused by
every worker within `REVOCATION_POLL` seconds and a bit.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import logging
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

from .errors import ApiError, Reason
from .players.jwks import KeySet
from .players.tokens import (
    ACCESS_AUDIENCE,
    ISSUER,
    LEEWAY,
    IdentityProvider,
    SessionKeys,
    Verified,
    unverified,
)
from .records import GameMeta
from .settings import Settings
from .store import Sessions

log = logging.getLogger("genial.credentials")

MAX_AUTHORIZATION = 4096
"""The longest `authorization` value taken, in characters: more than any real credential
(a seat token is 43, an identity provider's JWT one or two thousand). A longer one is
refused before anything looks it up or keeps it."""
REVOCATION_POLL = 0.25
"""Seconds between two looks at the sessions revoked meanwhile, on every worker."""
API_KEY_PREFIX = "gbk_"
"""How a bot account's API key begins (`players.bot_accounts`): `gbk_<key id>.<secret>`."""
API_KEY_RECHECK = 60.0
"""Seconds a worker trusts an API key it checked before it reads it again."""
GENERATED_KEY = "session-key"
"""The name of the session key the workers share when none is set (`shared_secret`)."""


def new_seat_token() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What is kept of a token: 128 bits of its SHA-256, in 22 characters."""
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()[:16]).decode()[:22]


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller, as far as one request tells: anonymous, the holder of a seat token, or
    a player, calling from an address (None where the transport tells none)."""

    token: str | None = None
    """The digest of a seat token (`token_digest`), None without one."""
    address: str | None = None
    player: str | None = None
    """The player's id, for a player's token."""
    session: str | None = None
    """The service session of the player's token (None for an identity provider's)."""
    bot_account: bool = False
    """Whether the player is a bot account (its credential is an API key)."""

    @property
    def rate_key(self) -> str | None:
        """What the per-caller rate limit counts under."""
        return f"p:{self.player}" if self.player is not None else self.token

    def require_player(self) -> str:
        """The player calling, or why the call is refused."""
        if self.player is None:
            raise ApiError(
                Reason.TOKEN_MISSING,
                "this call needs a player's access token (PlayerService.CreateSession)",
            )
        return self.player

    def seat(self, meta: GameMeta, *, required: bool) -> int | None:
        """The seat this caller holds in a game; None for a spectator (only when allowed)."""
        if self.player is not None:
            seat = meta.seat_of(self.player)
            if seat is None and required:
                raise ApiError(Reason.TOKEN_INVALID, "this player has no seat here")
            return seat
        if self.token is None:
            if required:
                raise ApiError(Reason.TOKEN_MISSING, "send 'authorization: Bearer <token>'")
            return None
        seat = None
        for s, stored in enumerate(meta.tokens):
            # Compare with every seat, in constant time, so timing tells nothing.
            if stored is not None and hmac.compare_digest(stored, self.token):
                seat = s
        if seat is None:
            raise ApiError(Reason.TOKEN_INVALID, "this token does not bind a seat here")
        return seat


ANONYMOUS = Principal()


def bearer(authorization: str | None) -> str | None:
    """The token of an `authorization` header (or gRPC metadata) value. Only the Bearer
    scheme (case-insensitive, as HTTP has it) carries a credential."""
    if authorization is None:
        return None
    if len(authorization) > MAX_AUTHORIZATION:
        raise ApiError(
            Reason.TOKEN_MALFORMED,
            f"an authorization value is at most {MAX_AUTHORIZATION} characters",
        )
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return token


class VerifiedTokens:
    """Players' tokens this worker verified, by digest, until they expire: bounded, the
    least recently used first out."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._known: OrderedDict[str, tuple[float, Principal]] = OrderedDict()

    def get(self, digest: str, now: float) -> Principal | None:
        known = self._known.get(digest)
        if known is None:
            return None
        if known[0] <= now:
            del self._known[digest]
            return None
        self._known.move_to_end(digest)
        return known[1]

    def put(self, digest: str, expires: float, caller: Principal) -> None:
        if not self.size:
            return
        self._known[digest] = (expires, caller)
        if len(self._known) > self.size:
            self._known.popitem(last=False)


class Credentials:
    """Resolves credentials: seat tokens, the service's session tokens and, when one is set
    up, an identity provider's tokens; and learns of revoked sessions."""

    def __init__(self, store: Sessions, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self._keys = SessionKeys.parse(settings.session_keys) if settings.session_keys else None
        self._keys_lock = asyncio.Lock()
        self.provider = identity_provider(settings)
        self.verified = VerifiedTokens(settings.token_cache_size)
        self._revoked: dict[str, float] = {}
        self._revoked_since = time.time() - self.revocations_kept

    @property
    def revocations_kept(self) -> float:
        """Seconds a revocation matters: until the session's last access token expired."""
        return self.settings.access_token_seconds + LEEWAY

    async def session_keys(self) -> SessionKeys:
        """The keys of the service's tokens: the setting's, or else one the workers share
        (made by the first to ask; for trials, never for production)."""
        if self._keys is None:
            async with self._keys_lock:
                if self._keys is None:
                    log.warning("no session_keys set: using a key kept in the store")
                    secret = await self.store.shared_secret(GENERATED_KEY, secrets.token_hex(32))
                    self._keys = SessionKeys([("store", secret)])
        return self._keys

    async def principal(self, authorization: str | None, address: str | None = None) -> Principal:
        """The caller an `authorization` value names, at `address`."""
        token = bearer(authorization)
        if token is None:
            return Principal(address=address)
        if "." not in token:  # seat tokens are URL-safe base64: JWTs have dots
            return Principal(token_digest(token), address)
        digest = token_digest(token)
        now = time.time()
        caller = self.verified.get(digest, now)
        if caller is None and token.startswith(API_KEY_PREFIX):
            caller = await self._api_key(token)
            self.verified.put(digest, now + API_KEY_RECHECK, caller)
        elif caller is None:
            verified = await self.verify(token, ACCESS_AUDIENCE)
            caller = Principal(player=verified.player, session=verified.session)
            self.verified.put(digest, verified.expires + LEEWAY, caller)
        if caller.session is not None and caller.session in self._revoked:
            raise ApiError(Reason.TOKEN_REVOKED, "the session was ended; sign in again")
        if address is None:
            return caller
        return Principal(caller.token, address, caller.player, caller.session, caller.bot_account)

    async def _api_key(self, api_key: str) -> Principal:
        """The bot account of an API key, or why it is refused."""
        session, _, secret = api_key.removeprefix(API_KEY_PREFIX).partition(".")
        holder = await self.store.session_holder(session) if session and secret else None
        if holder is None or not hmac.compare_digest(holder[1], token_digest(secret)):
            raise ApiError(Reason.API_KEY_UNKNOWN, "no such API key")
        if holder[2]:
            raise ApiError(Reason.TOKEN_REVOKED, "this API key was revoked")
        return Principal(player=holder[0], session=session, bot_account=True)

    async def verify(self, token: str, audience: str) -> Verified:
        """What a player's token proves (uncached), or why it is refused."""
        header, claims = unverified(token)
        issuer = claims.get("iss")
        if issuer == ISSUER:
            return (await self.session_keys()).verify(token, header, audience)
        if self.provider is not None and issuer == self.provider.issuer:
            return await self.provider.verify(token, header)
        raise ApiError(Reason.TOKEN_BAD_ISSUER, "the token's issuer is not one this service takes")

    def learn_revoked(self, session: str) -> None:
        self._revoked[session] = time.time()

    async def run(self) -> None:
        """Learn of revoked sessions until cancelled."""
        while True:
            try:
                # A little overlap, so that a revocation written as we read is not missed.
                found = await self.store.revoked_sessions(self._revoked_since - 1)
            except Exception:  # outlives a store outage
                log.warning("revocations: store unavailable", exc_info=True)
                found = []
            await asyncio.sleep(REVOCATION_POLL)
            now = time.time()
            for session, at in found:
                self._revoked.setdefault(session, at)
                self._revoked_since = max(self._revoked_since, at)
            horizon = now - self.revocations_kept
            self._revoked = {s: at for s, at in self._revoked.items() if at > horizon}


def identity_provider(settings: Settings) -> IdentityProvider | None:
    """The identity provider the settings set up, if any."""
    if not settings.oidc_issuer:
        return None
    keys = KeySet(settings.oidc_jwks_url, settings.oidc_jwks_file, settings.oidc_jwks_min_interval)
    algorithms = [a.strip() for a in settings.oidc_algorithms.split(",") if a.strip()]
    return IdentityProvider(settings.oidc_issuer, settings.oidc_audience, algorithms, keys)
