"""Players' bearer tokens, all JWTs, verified by PyJWT: the service's own (sessions, signed
with a shared secret and a key id) and an identity provider's (OpenID Connect, verified by
the provider's published keys, `jwks`).

Every way a token can be wrong has its own reason (all UNAUTHENTICATED): malformed, an
algorithm not accepted (`none` among them), an unknown key, a bad signature, another
issuer or audience, expired, not yet valid. Nothing here logs a token.
"""

from __future__ import annotations

import base64
import hashlib
import time
from dataclasses import dataclass
from typing import Any

import jwt

from ..errors import ApiError, Reason
from .jwks import KeySet

ISSUER = "genial"
"""The `iss` of the service's own tokens."""
ACCESS_AUDIENCE = "genial"
REFRESH_AUDIENCE = "genial-refresh"
"""A refresh token's audience: never taken as an access token, nor the other way round."""
SESSION_ALGORITHM = "HS256"
MIN_SECRET = 32
"""The shortest signing secret taken, in characters (HS256 wants 256 bits)."""
LEEWAY = 10.0
"""Seconds of clock difference allowed on `exp`, `nbf` and `iat`."""


@dataclass(frozen=True, slots=True)
class Verified:
    """What a valid token proves."""

    player: str
    expires: float
    session: str | None = None
    """The service session the token belongs to (None for an identity provider's)."""
    generation: int = 0
    """A refresh token's place in its session's chain."""


def player_id(kind: str, *parts: str) -> str:
    """A player's id: stable for what identifies it (a device id; an issuer and subject),
    128 bits of a SHA-256 of it, so that ids are short and reveal nothing."""
    digest = hashlib.sha256("\n".join((kind, *parts)).encode()).digest()[:16]
    return f"{kind[0]}-" + base64.urlsafe_b64encode(digest).decode()[:22]


_REASONS: list[tuple[type[Exception], str]] = [
    (jwt.ExpiredSignatureError, Reason.TOKEN_EXPIRED),
    (jwt.ImmatureSignatureError, Reason.TOKEN_NOT_YET_VALID),
    (jwt.InvalidAudienceError, Reason.TOKEN_BAD_AUDIENCE),
    (jwt.InvalidIssuerError, Reason.TOKEN_BAD_ISSUER),
    (jwt.InvalidSignatureError, Reason.TOKEN_BAD_SIGNATURE),
    (jwt.InvalidAlgorithmError, Reason.TOKEN_BAD_ALGORITHM),
    (jwt.InvalidKeyError, Reason.TOKEN_UNKNOWN_KEY),
]


def refusal(err: jwt.PyJWTError) -> ApiError:
    """PyJWT's complaint as the API's refusal (anything else it raises: malformed)."""
    for kind, reason in _REASONS:
        if isinstance(err, kind):
            return ApiError(reason, f"the token is refused: {err}")
    return ApiError(Reason.TOKEN_MALFORMED, f"the token is malformed: {err}")


def unverified(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and claims of a JWT, before anything about it is trusted: only to pick
    the verifier and the key."""
    try:
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError as err:
        raise refusal(err) from None
    return header, claims


class SessionKeys:
    """The secrets the service signs its tokens with, by key id: the first signs, every one
    verifies, so that a new key can be added (second, then first) and an old one dropped
    without signing anyone out."""

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        if not keys:
            raise ValueError("no session key")
        for kid, secret in keys:
            if not kid or len(secret) < MIN_SECRET:
                raise ValueError(
                    f"a session key is 'key id:secret', the secret {MIN_SECRET}+ characters"
                )
        self.signing = keys[0]
        self.keys = dict(keys)

    @classmethod
    def parse(cls, text: str) -> SessionKeys:
        """Keys from "kid:secret,kid2:secret2" (the `session_keys` setting)."""
        pairs = [item.strip().partition(":") for item in text.split(",") if item.strip()]
        return cls([(kid.strip(), secret.strip()) for kid, _, secret in pairs])

    def sign(self, claims: dict[str, Any]) -> str:
        kid, secret = self.signing
        return jwt.encode(claims, secret, algorithm=SESSION_ALGORITHM, headers={"kid": kid})

    def verify(self, token: str, header: dict[str, Any], audience: str) -> Verified:
        if header.get("alg") != SESSION_ALGORITHM:
            raise ApiError(
                Reason.TOKEN_BAD_ALGORITHM, f"the service signs with {SESSION_ALGORITHM}"
            )
        secret = self.keys.get(str(header.get("kid")))
        if secret is None:
            raise ApiError(Reason.TOKEN_UNKNOWN_KEY, "the token's key id is not one of ours")
        try:
            claims = jwt.decode(
                token,
                secret,
                algorithms=[SESSION_ALGORITHM],
                audience=audience,
                issuer=ISSUER,
                leeway=LEEWAY,
                options={"require": ["exp", "iat", "sub", "sid"]},
            )
        except jwt.PyJWTError as err:
            raise refusal(err) from None
        return Verified(
            str(claims["sub"]), float(claims["exp"]), str(claims["sid"]), int(claims.get("gen", 0))
        )

    def issue(
        self, player: str, session: str, audience: str, seconds: float, generation: int = 0
    ) -> tuple[str, float]:
        """A token for `player` in `session`, and when it expires."""
        now = int(time.time())
        expires = now + int(seconds)
        claims = {
            "iss": ISSUER,
            "aud": audience,
            "sub": player,
            "sid": session,
            "iat": now,
            "exp": expires,
        }
        if audience == REFRESH_AUDIENCE:
            claims["gen"] = generation
        return self.sign(claims), float(expires)


class IdentityProvider:
    """An OpenID Connect provider's tokens (ID or access tokens): its issuer, the audience
    they are for, the algorithms taken, and its keys. The player is the issuer's subject."""

    def __init__(self, issuer: str, audience: str, algorithms: list[str], keys: KeySet) -> None:
        if not issuer or not audience:
            raise ValueError("an identity provider needs an issuer and an audience")
        if not algorithms or any(a not in ("RS256", "ES256") for a in algorithms):
            raise ValueError("identity provider algorithms: RS256 and/or ES256")
        self.issuer = issuer
        self.audience = audience
        self.algorithms = algorithms
        self.keys = keys

    async def verify(self, token: str, header: dict[str, Any]) -> Verified:
        if header.get("alg") not in self.algorithms:
            raise ApiError(
                Reason.TOKEN_BAD_ALGORITHM,
                f"tokens of {self.issuer} are taken signed with {', '.join(self.algorithms)}",
            )
        key = await self.keys.key(str(header.get("kid", "")))
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=self.algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=LEEWAY,
                options={"require": ["exp", "iat", "sub"]},
            )
        except jwt.PyJWTError as err:
            raise refusal(err) from None
        return Verified(player_id("oidc", self.issuer, str(claims["sub"])), float(claims["exp"]))
