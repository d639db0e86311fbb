"""An example receiver of genial's webhooks: the app's backend side.

It verifies each request's Standard Webhooks signature with the `standardwebhooks` package
(which also refuses a timestamp more than 5 minutes from now, so a captured request cannot
be replayed later), answers a notification it has seen before (by `webhook-id`) without
acting again, and "sends a push" for each new one: here it prints it, and with --record it
appends it to a file as a JSON line. A real backend calls FCM or APNs where `push` prints.

    pip install standardwebhooks
    WEBHOOK_SECRET=whsec_... python receiver.py --port 8900

Then run genial with an endpoint at http://127.0.0.1:8900/genial and the same secret
(docs/notifications.md). Answer 2xx once a notification is safely taken: anything else, or
no answer within the endpoint's timeout, and genial sends it again later (the same
webhook-id).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

SEEN_SECONDS = 600.0
"""How long a webhook-id is remembered: longer than the 5 minutes a signature's timestamp
is accepted, so a duplicate is either remembered or refused as too old."""
MAX_BODY = 64 * 1024


class Receiver:
    """What the backend does with one request: verify, dedupe, push."""

    def __init__(self, secret: str, record: Path | None = None) -> None:
        self.webhook = Webhook(secret)
        self.record = record
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def handle(self, headers: dict[str, str], body: bytes) -> tuple[int, str]:
        """The status and text to answer a request with."""
        try:
            payload = self.webhook.verify(body, headers)
        except WebhookVerificationError as err:
            return 400, f"refused: {err}"
        webhook_id = {k.lower(): v for k, v in headers.items()}["webhook-id"]
        now = time.time()
        with self._lock:
            self._seen = {k: t for k, t in self._seen.items() if now - t < SEEN_SECONDS}
            if webhook_id in self._seen:
                return 200, "seen before"
            self._seen[webhook_id] = now
            self.push(webhook_id, payload, now)
        return 200, "ok"

    def push(self, webhook_id: str, payload: dict[str, Any], now: float) -> None:
        """Where a real backend sends a push notification to the player's devices."""
        data = payload["data"]
        print(f"push to {data['player_id']}: {payload['type']} in game {data['game_id']}")
        if self.record is not None:
            line = {"webhook_id": webhook_id, "received": now, **payload}
            with self.record.open("a") as out:
                out.write(json.dumps(line) + "\n")


def serve(receiver: Receiver, host: str, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length > MAX_BODY:
                self._answer(413, "too large")
                return
            body = self.rfile.read(length)
            status, text = receiver.handle(dict(self.headers.items()), body)
            self._answer(status, text)

        def _answer(self, status: int, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("content-type", "text/plain")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: push() prints what matters

    return ThreadingHTTPServer((host, port), Handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8900)
    parser.add_argument("--record", type=Path, help="append each new notification here")
    args = parser.parse_args(argv)
    secret = os.environ.get("WEBHOOK_SECRET", "")
    if not secret.startswith("whsec_"):
        print("set WEBHOOK_SECRET to the endpoint's whsec_ secret", file=sys.stderr)
        return 2
    server = serve(Receiver(secret, args.record), args.host, args.port)
    print(f"receiving on http://{args.host}:{args.port}/", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
