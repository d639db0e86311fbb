"""An identity provider of the tests' own: keys generated here, a JWKS served over HTTP on
loopback (it counts its fetches), and ID tokens signed as a provider signs them."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

ISSUER = "https://id.genial.test"
AUDIENCE = "genial-app"

PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def public_jwk(key: PrivateKey, kid: str) -> dict[str, Any]:
    algorithm = jwt.algorithms.RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else None
    data: dict[str, Any] = json.loads(
        (algorithm or jwt.algorithms.ECAlgorithm).to_jwk(key.public_key())  # type: ignore[attr-defined]
    )
    return data | {"kid": kid, "use": "sig", "alg": "RS256" if algorithm else "ES256"}


class Provider:
    """Keys by kid, a JWKS server on loopback, and tokens."""

    def __init__(self) -> None:
        self.keys: dict[str, PrivateKey] = {"rsa-1": rsa_key(), "ec-1": ec_key()}
        self.published = set(self.keys)
        self.fetches = 0
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                provider.fetches += 1
                body = json.dumps(provider.jwks()).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"

    def jwks(self) -> dict[str, Any]:
        return {"keys": [public_jwk(self.keys[kid], kid) for kid in sorted(self.published)]}

    def rotate(self, kid: str, key: PrivateKey) -> None:
        self.keys[kid] = key
        self.published.add(kid)

    def token(
        self, sub: str = "user-1", kid: str = "rsa-1", key: PrivateKey | None = None, **claims: Any
    ) -> str:
        now = int(time.time())
        body = {"iss": ISSUER, "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + 600}
        body.update(claims)
        signing = key or self.keys[kid]
        algorithm = "RS256" if isinstance(signing, rsa.RSAPrivateKey) else "ES256"
        return jwt.encode(
            {k: v for k, v in body.items() if v is not None},
            signing,
            algorithm=algorithm,
            headers={"kid": kid},
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
