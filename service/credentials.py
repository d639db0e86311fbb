"""Who is calling: the bearer credential of a request, resolved once (in the shared invoke
path) into a `Principal` that the use cases take. Use cases never see a raw token.

A seat token is random (32 bytes, URL-safe base64) and only its digest is ever kept: in
the game's metadata, in the rate limiter's keys, in caches.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

from .errors import ApiError, Reason
from .records import GameMeta

MAX_AUTHORIZATION = 4096
"""The longest `authorization` value taken, in characters: more than any real credential
(a seat token is 43, an identity provider's JWT one or two thousand). A longer one is
refused before anything looks it up or keeps it."""


def new_seat_token() -> str:
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What is kept of a token: 128 bits of its SHA-256, in 22 characters."""
    return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()[:16]).decode()[:22]


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller, as far as one request tells: anonymous, or the holder of a seat token,
    calling from an address (None where the transport tells none)."""

    token: str | None = None
    """The digest of the bearer token (`token_digest`), None without one."""
    address: str | None = None

    @property
    def rate_key(self) -> str | None:
        """What the per-caller rate limit counts under."""
        return self.token

    def seat(self, meta: GameMeta, *, required: bool) -> int | None:
        """The seat this caller holds in a game; None for a spectator (only when allowed)."""
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


def principal(authorization: str | None, address: str | None = None) -> Principal:
    """The caller an `authorization` header (or gRPC metadata) value names, at `address`.
    Only the Bearer scheme (case-insensitive, as HTTP has it) carries a credential."""
    if authorization is None:
        return Principal(address=address)
    if len(authorization) > MAX_AUTHORIZATION:
        raise ApiError(
            Reason.TOKEN_MALFORMED,
            f"an authorization value is at most {MAX_AUTHORIZATION} characters",
        )
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return Principal(address=address)
    return Principal(token_digest(token), address)
