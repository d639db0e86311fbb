"""An identity provider's public keys (a JWKS), by key id: fetched from its URL and kept, or
read from a file for setups without a way out.

The keys are fetched again when they are older than `MAX_AGE`, and when a token names a key
id not among them (the provider rotated its keys), but then at most once every
`min_interval` seconds, so that tokens with made-up key ids cannot make the service hammer
the provider. One fetch at a time: callers that need it meanwhile wait for it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.request
from pathlib import Path
from typing import Any

import jwt

from ..errors import ApiError, Reason

log = logging.getLogger("genial.players")

MAX_AGE = 3600.0
"""Seconds keys are used before they are fetched again."""
FETCH_TIMEOUT = 5.0
MAX_JWKS_BYTES = 1 << 20


class KeySet:
    def __init__(self, url: str = "", file: str = "", min_interval: float = 10.0) -> None:
        if bool(url) == bool(file):
            raise ValueError("keys come from a JWKS URL or a JWKS file (one of the two)")
        self.url = url
        self.file = file
        self.min_interval = min_interval
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched = -float("inf")
        self._attempted = -float("inf")
        self._fetching: asyncio.Lock | None = None
        self.fetches = 0
        """How many times the keys were fetched (for tests and logs)."""

    async def key(self, kid: str) -> jwt.PyJWK:
        """The key with id `kid` (the only key when the set has one and the token names none)."""
        now = time.monotonic()
        wanted = now - self._fetched > MAX_AGE or kid not in self._keys
        if wanted and now - self._attempted >= self.min_interval:
            await self._refresh()
        found = self._keys.get(kid)
        if found is None and not kid and len(self._keys) == 1:
            found = next(iter(self._keys.values()))
        if found is None:
            if not self._keys:
                raise ApiError(Reason.KEYS_UNAVAILABLE, "the identity provider's keys are unknown")
            raise ApiError(Reason.TOKEN_UNKNOWN_KEY, "the token's key id is not the provider's")
        return found

    async def _refresh(self) -> None:
        if self._fetching is None:
            self._fetching = asyncio.Lock()
        async with self._fetching:
            if time.monotonic() - self._attempted < self.min_interval:
                return  # fetched (or tried) by another caller meanwhile
            self._attempted = time.monotonic()
            try:
                keys = _usable(await asyncio.to_thread(self._read))
            except Exception as err:  # keep the keys we have; try again after min_interval
                log.warning("identity provider keys: fetch failed: %s", type(err).__name__)
                return
            self._keys = keys
            self._fetched = time.monotonic()
            self.fetches += 1

    def _read(self) -> dict[str, Any]:
        if self.file:
            raw = Path(self.file).read_bytes()
        else:
            request = urllib.request.Request(self.url, headers={"accept": "application/json"})
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as reply:
                raw = reply.read(MAX_JWKS_BYTES + 1)
        if len(raw) > MAX_JWKS_BYTES:
            raise ValueError("the JWKS is too large")
        document = json.loads(raw)
        if not isinstance(document, dict):
            raise ValueError("a JWKS is a JSON object")
        return document


def _usable(document: dict[str, Any]) -> dict[str, jwt.PyJWK]:
    """The signing keys of a JWKS, by key id (keys PyJWT cannot use are left out)."""
    keys: dict[str, jwt.PyJWK] = {}
    for data in document.get("keys", []):
        if not isinstance(data, dict) or data.get("use", "sig") != "sig":
            continue
        try:
            key = jwt.PyJWK(data)
        except jwt.PyJWTError:
            continue
        keys[str(data.get("kid", ""))] = key
    if not keys:
        raise ValueError("no usable signing key in the JWKS")
    return keys
