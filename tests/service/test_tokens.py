"""Players' tokens as the workers resolve them (`Credentials`): every way a token can be wrong
has its own UNAUTHENTICATED reason; service keys rotate without signing anyone out; an
identity provider's keys are fetched from its JWKS over HTTP (keys generated here), again
on an unknown key id but not more often than allowed; verified tokens are kept; revoked
sessions are refused within a second."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from genial.service.credentials import ANONYMOUS, Credentials, Principal, token_digest
from genial.service.errors import ApiError
from genial.service.players.tokens import ACCESS_AUDIENCE, REFRESH_AUDIENCE, SessionKeys, player_id
from genial.service.settings import Settings
from genial.service.store import MemoryStore
from tests.service.oidc import AUDIENCE, ISSUER, Provider, ec_key, rsa_key

KEY_NEW = "new:" + "n" * 40
KEY_OLD = "old:" + "o" * 40


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    served = Provider()
    yield served
    served.close()


def credentials(provider: Provider, keys: str = f"{KEY_NEW},{KEY_OLD}", **more: Any) -> Credentials:
    settings = Settings(
        session_keys=keys,
        oidc_issuer=ISSUER,
        oidc_audience=AUDIENCE,
        oidc_jwks_url=provider.url,
        **{"oidc_jwks_min_interval": 0.3, **more},
    )
    return Credentials(MemoryStore(), settings)


def session_token(keys: str = KEY_NEW, audience: str = ACCESS_AUDIENCE, **claims: Any) -> str:
    now = int(time.time())
    body = {
        "iss": "genial",
        "aud": audience,
        "sub": "g-player",
        "sid": "session-1",
        "iat": now,
        "exp": now + 600,
    }
    body.update(claims)
    return SessionKeys.parse(keys).sign({k: v for k, v in body.items() if v is not None})


def hs256_by_hand(header: dict[str, Any], claims: dict[str, Any], secret: bytes) -> str:
    """A token signed the way an attacker would (PyJWT refuses to use a public key as an
    HMAC secret, so it is forged here): the algorithm-confusion attack."""

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signing = f"{part(json.dumps(header).encode())}.{part(json.dumps(claims).encode())}"
    return f"{signing}.{part(hmac.new(secret, signing.encode(), hashlib.sha256).digest())}"


async def reason(creds: Credentials, token: str) -> str:
    with pytest.raises(ApiError) as caught:
        await creds.principal(f"Bearer {token}")
    assert caught.value.code.name == "UNAUTHENTICATED", caught.value
    return caught.value.reason


async def test_every_way_a_token_is_wrong(provider: Provider) -> None:
    creds = credentials(provider)
    now = int(time.time())
    other_rsa = rsa_key()
    public_pem = (
        provider.keys["rsa-1"]
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    unsigned = jwt.encode({"iss": ISSUER, "aud": AUDIENCE, "sub": "x"}, None, algorithm="none")
    cases = {
        "not a JWT": ("a.b.c", "TOKEN_MALFORMED"),
        "two parts": ("abc.def", "TOKEN_MALFORMED"),
        "alg none (provider)": (unsigned, "TOKEN_BAD_ALGORITHM"),
        "alg none (service)": (
            jwt.encode({"iss": "genial", "sub": "x"}, None, algorithm="none"),
            "TOKEN_BAD_ALGORITHM",
        ),
        "HS256 with the provider's public key": (
            hs256_by_hand(
                {"alg": "HS256", "kid": "rsa-1"},
                {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": now + 60, "iat": now},
                public_pem,
            ),
            "TOKEN_BAD_ALGORITHM",
        ),
        "RS384 from the provider": (
            jwt.encode(
                {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": now + 60, "iat": now},
                provider.keys["rsa-1"],
                algorithm="RS384",
                headers={"kid": "rsa-1"},
            ),
            "TOKEN_BAD_ALGORITHM",
        ),
        "HS512 for the service": (
            jwt.encode(
                {"iss": "genial", "sub": "x"}, "n" * 64, algorithm="HS512", headers={"kid": "new"}
            ),
            "TOKEN_BAD_ALGORITHM",
        ),
        "service: bad signature": (session_token("new:" + "x" * 40), "TOKEN_BAD_SIGNATURE"),
        "provider: bad signature": (
            provider.token(kid="rsa-1", key=other_rsa),
            "TOKEN_BAD_SIGNATURE",
        ),
        "service: unknown key": (session_token("gone:" + "n" * 40), "TOKEN_UNKNOWN_KEY"),
        "provider: unknown key": (provider.token(kid="nobody", key=other_rsa), "TOKEN_UNKNOWN_KEY"),
        "another issuer": (provider.token(iss="https://evil.test"), "TOKEN_BAD_ISSUER"),
        "no issuer": (provider.token(iss=None), "TOKEN_BAD_ISSUER"),
        "provider: another audience": (provider.token(aud="another-app"), "TOKEN_BAD_AUDIENCE"),
        "service: a refresh token": (
            session_token(audience=REFRESH_AUDIENCE, gen=0),
            "TOKEN_BAD_AUDIENCE",
        ),
        "service: expired": (session_token(exp=now - 60), "TOKEN_EXPIRED"),
        "provider: expired": (provider.token(exp=now - 60), "TOKEN_EXPIRED"),
        "service: not yet valid": (session_token(nbf=now + 60), "TOKEN_NOT_YET_VALID"),
        "provider: not yet valid": (provider.token(nbf=now + 60), "TOKEN_NOT_YET_VALID"),
        "provider: issued in the future": (provider.token(iat=now + 120), "TOKEN_NOT_YET_VALID"),
        "provider: no subject": (provider.token(sub=None), "TOKEN_MALFORMED"),
        "service: no session": (session_token(sid=None), "TOKEN_MALFORMED"),
    }
    for name, (token, expected) in cases.items():
        assert await reason(creds, token) == expected, name
    with pytest.raises(ApiError) as too_long:
        await creds.principal("Bearer " + "x" * 5000)
    assert too_long.value.reason == "TOKEN_MALFORMED"
    assert await creds.principal(None) == ANONYMOUS
    with pytest.raises(ApiError) as missing:
        ANONYMOUS.require_player()
    assert missing.value.reason == "TOKEN_MISSING"


async def test_good_tokens_name_their_player(provider: Provider) -> None:
    creds = credentials(provider)
    for kid in ("rsa-1", "ec-1"):
        caller = await creds.principal(f"Bearer {provider.token(sub='alice', kid=kid)}")
        assert caller == Principal(player=player_id("oidc", ISSUER, "alice"))
    served = await creds.principal(f"Bearer {session_token()}")
    assert served == Principal(player="g-player", session="session-1")
    seat = await creds.principal("Bearer " + "A" * 43)  # a seat token: a digest, no lookup
    assert seat == Principal(token_digest("A" * 43))
    # The same subject at another issuer is another player.
    assert player_id("oidc", "https://other.test", "alice") != caller.player


async def test_service_keys_rotate_without_signing_anyone_out(provider: Provider) -> None:
    """The new key is added second, then made first; tokens of the old key pass until it
    is dropped."""
    signed_old = session_token(KEY_OLD)
    for keys in (f"{KEY_OLD},{KEY_NEW}", f"{KEY_NEW},{KEY_OLD}"):
        creds = credentials(provider, keys)
        assert (await creds.principal(f"Bearer {signed_old}")).player == "g-player"
    assert (
        jwt.get_unverified_header((await credentials(provider).session_keys()).sign({"x": 1}))[
            "kid"
        ]
        == "new"
    )
    assert await reason(credentials(provider, KEY_NEW), signed_old) == "TOKEN_UNKNOWN_KEY"
    with pytest.raises(ValueError, match="32"):
        SessionKeys.parse("short:secret")


async def test_provider_keys_are_fetched_again_for_a_new_key_not_more(provider: Provider) -> None:
    creds = credentials(provider, oidc_jwks_min_interval=0.5)
    await creds.principal(f"Bearer {provider.token()}")
    fetched = provider.fetches
    # Unknown key ids in a burst: at most one fetch.
    stranger = rsa_key()
    forged = [provider.token(kid=f"made-up-{n}", key=stranger) for n in range(20)]
    for token in forged:
        assert await reason(creds, token) == "TOKEN_UNKNOWN_KEY"
    assert provider.fetches - fetched <= 1
    # The provider rotates: a token of its new key passes once a fetch is allowed again.
    provider.rotate("rsa-2", rsa_key())
    await asyncio.sleep(0.6)
    caller = await creds.principal(f"Bearer {provider.token(sub='bob', kid='rsa-2')}")
    assert caller.player == player_id("oidc", ISSUER, "bob")


async def test_provider_keys_from_a_file(provider: Provider, tmp_path: Path) -> None:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(provider.jwks()))
    settings = Settings(oidc_issuer=ISSUER, oidc_audience=AUDIENCE, oidc_jwks_file=str(path))
    creds = Credentials(MemoryStore(), settings)
    caller = await creds.principal(f"Bearer {provider.token(kid='ec-1')}")
    assert caller.player == player_id("oidc", ISSUER, "user-1")
    assert await reason(creds, provider.token(kid="rsa-9", key=ec_key())) == "TOKEN_UNKNOWN_KEY"


async def test_a_verified_token_is_kept_until_it_expires(provider: Provider) -> None:
    creds = credentials(provider)
    token = session_token()
    first = await creds.principal(f"Bearer {token}")
    creds._keys = SessionKeys.parse("other:" + "z" * 40)  # no longer verifiable
    assert await creds.principal(f"Bearer {token}") == first  # kept: not verified again
    creds.verified.put(token_digest(token), time.time() - 1, first)  # as if it ran out
    assert await reason(creds, token) == "TOKEN_UNKNOWN_KEY"  # verified again, and refused


async def test_a_revoked_session_is_refused_within_a_second(provider: Provider) -> None:
    creds = credentials(provider)
    other_worker = Credentials(creds.store, creds.settings)
    token = session_token(sid="doomed")
    assert (await other_worker.principal(f"Bearer {token}")).session == "doomed"
    learning = asyncio.create_task(other_worker.run())
    try:
        revoked_at = time.monotonic()
        await creds.store.revoke_session("doomed", creds.revocations_kept)
        while time.monotonic() - revoked_at < 1.0:
            await asyncio.sleep(0.02)
            try:
                await other_worker.principal(f"Bearer {token}")
            except ApiError as err:
                refused = err.reason
                break
        else:
            refused = "accepted for a second after it was revoked"
        assert refused == "TOKEN_REVOKED"
        # Another session of the same player is not affected.
        assert await other_worker.principal(f"Bearer {session_token(sid='alive')}")
    finally:
        learning.cancel()
