"""Bot accounts: players an operator creates (`genial players create-bot NAME`), who call
with an API key instead of a session's tokens, and are marked as bots on the leaderboards
and in their ratings.

An API key is `gbk_<key id>.<secret>`: the key id names a session of the player's (kept
like guests' sessions), which keeps only the secret's digest; the key is printed once.
A worker checks a key in the store the first time it sees it and again a minute later
(`credentials.Credentials`); a revoked key is refused by every worker within a second (the
sessions' revocations). Calls with a key are rate-limited like any player's.
"""

from __future__ import annotations

import secrets
import time

import msgspec

from ..credentials import API_KEY_PREFIX, token_digest
from ..games import display_name
from ..settings import Settings
from ..store import GameStore
from .sessions import Profile

KEY_SECONDS = 10 * 365 * 86_400.0
"""How long an API key lasts unless revoked."""


async def create_bot(store: GameStore, name: str) -> tuple[str, str]:
    """A new bot account named `name`: its player id and its API key (shown once)."""
    name = display_name(name)
    player = "b-" + secrets.token_urlsafe(16)[:22]
    session, secret = secrets.token_urlsafe(12), secrets.token_urlsafe(32)
    profile = Profile(created=time.time(), name=name, bot=True)
    await store.set_player_profile(player, msgspec.json.encode(profile), KEY_SECONDS)
    await store.create_session(session, player, token_digest(secret), KEY_SECONDS)
    return player, f"{API_KEY_PREFIX}{session}.{secret}"


async def revoke_bot_key(store: GameStore, settings: Settings, api_key: str) -> bool:
    """Revoke an API key (given whole, or by its key id); False if there is no such key."""
    session = api_key.removeprefix(API_KEY_PREFIX).partition(".")[0]
    if not session or await store.session_holder(session) is None:
        return False
    await store.revoke_session(session, settings.access_token_seconds)
    return True
