"""The webhook endpoints the operator configures, and what is sent to them.

`webhook_endpoints` is a JSON list; each endpoint has a name (its notifications' lanes and
metrics are by name), a URL, one or more `whsec_` secrets (each signs every request, so a
receiver may move to a new secret while the old one still verifies), the event types it
wants, a timeout and how many deliveries a worker makes to it at once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from google.protobuf import json_format
from standardwebhooks.webhooks import Webhook

from genial.v1 import player_service_pb2 as pb

PREFIX = "PLAYER_EVENT_TYPE_"
EVENT_TYPES = {
    number: name.removeprefix(PREFIX).lower()
    for name, number in pb.PlayerEventType.items()
    if number != pb.PLAYER_EVENT_TYPE_UNSPECIFIED
}
"""The notifications' `type` by the player event's: your_turn, turn_timed_out,
game_started, game_over, seat_taken, resigned (a bot took the seat over), rematch_offered."""
YOUR_TURN = EVENT_TYPES[pb.PLAYER_EVENT_TYPE_YOUR_TURN]
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
DROPPED = ("id", "type")
"""Fields of the player event the body has elsewhere (the type) or not at all."""
DEFAULT_TIMEOUT = 10.0
DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True, slots=True)
class Endpoint:
    name: str
    url: str
    signers: tuple[Webhook, ...]
    events: frozenset[str]
    timeout: float
    concurrency: int

    @property
    def key(self) -> str:
        """What a 410 Gone disables: the name and the URL, so that a new URL enables the
        endpoint again."""
        return f"{self.name} {hashlib.sha256(self.url.encode()).hexdigest()[:16]}"

    def signature(self, webhook_id: str, timestamp: int, body: str) -> str:
        """The `webhook-signature` header: one signature for each secret."""
        at = datetime.fromtimestamp(timestamp, UTC)
        return " ".join(signer.sign(webhook_id, at, body) for signer in self.signers)


def parse_endpoints(raw: str) -> dict[str, Endpoint]:
    """The endpoints of the `webhook_endpoints` setting, by name; a ValueError says what is
    wrong (never with a secret in it)."""
    if not raw.strip():
        return {}
    try:
        found = json.loads(raw)
    except json.JSONDecodeError as err:
        raise ValueError(f"webhook_endpoints is not JSON: {err.msg}") from None
    if not isinstance(found, list):
        raise ValueError("webhook_endpoints is a JSON list of endpoints")
    endpoints: dict[str, Endpoint] = {}
    for i, entry in enumerate(found):
        endpoint = _endpoint(entry, f"webhook_endpoints[{i}]")
        if endpoint.name in endpoints:
            raise ValueError(f"webhook_endpoints: the name {endpoint.name!r} is used twice")
        endpoints[endpoint.name] = endpoint
    return endpoints


def _endpoint(entry: Any, where: str) -> Endpoint:
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where} is not an object")
    unknown = set(entry) - {"name", "url", "secrets", "events", "timeout", "concurrency"}
    if unknown:
        raise ValueError(f"{where}: unknown fields {sorted(unknown)}")
    name, url = entry.get("name"), entry.get("url")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"{where}: a name is 1-64 letters, digits, '_', '.' or '-'")
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        raise ValueError(f"{where}: the url is an http:// or https:// URL")
    secrets = entry.get("secrets")
    if not isinstance(secrets, list) or not secrets:
        raise ValueError(f"{where}: secrets is a list of one or more whsec_ secrets")
    signers = []
    for secret in secrets:
        if not isinstance(secret, str) or not secret.startswith("whsec_"):
            raise ValueError(f"{where}: every secret starts with whsec_")
        try:
            signers.append(Webhook(secret))
        except Exception:
            raise ValueError(f"{where}: a secret is not whsec_ and base64") from None
    events = entry.get("events", sorted(EVENT_TYPES.values()))
    if not isinstance(events, list) or not set(events) <= set(EVENT_TYPES.values()):
        raise ValueError(f"{where}: events are among {sorted(EVENT_TYPES.values())}")
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    concurrency = entry.get("concurrency", DEFAULT_CONCURRENCY)
    if not isinstance(timeout, int | float) or not 0 < timeout <= 60:
        raise ValueError(f"{where}: timeout is 0-60 seconds")
    if not isinstance(concurrency, int) or not 1 <= concurrency <= 256:
        raise ValueError(f"{where}: concurrency is 1-256")
    return Endpoint(name, url, tuple(signers), frozenset(events), float(timeout), concurrency)


class Item(msgspec.Struct, frozen=True):
    """A queued notification: what the deliverer needs."""

    id: str
    """The webhook-id."""
    endpoint: str
    body: str


encode_item = msgspec.json.Encoder().encode
decode_item = msgspec.json.Decoder(Item).decode


def webhook_id(endpoint: str, player: str, event_id: str) -> str:
    """The same for the same event of the same player to the same endpoint."""
    digest = hashlib.sha256(f"{endpoint}\n{player}\n{event_id}".encode()).hexdigest()
    return f"msg_{digest[:32]}"


def body(player: str, event: pb.PlayerEvent, at: float) -> str:
    """The notification's JSON: its type, when it was made, and the event's facts (ids,
    seats, versions, a deadline, standings: what every seat may see) with the player."""
    facts = json_format.MessageToDict(
        event,
        always_print_fields_with_no_presence=True,  # seat 0 is a fact
        preserving_proto_field_name=True,
        unquote_int64_if_possible=True,
    )
    data: dict[str, Any] = {"player_id": player}
    data.update((k, v) for k, v in facts.items() if v not in ("", []) and k not in DROPPED)
    stamp = datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")
    payload = {"type": EVENT_TYPES[event.type], "timestamp": stamp.replace("+00:00", "Z")}
    return json.dumps({**payload, "data": data}, separators=(",", ":"))
