"""`genial webhooks failed` and `genial webhooks replay`: the dead letters, for operators.

A notification goes to the dead letters when its deliveries failed for
`webhook_retry_seconds`, when its endpoint answered 410 Gone (and is disabled), or when its
endpoint is no longer configured. Replayed, it goes to the end of its lane as if new (its
webhook-id is the same: a receiver that got it after all dedupes it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from ..settings import Settings
from ..store import GameStore, open_store
from .endpoints import decode_item

LISTED = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    failed = actions.add_parser("failed", help="list the dead letters, oldest first")
    failed.add_argument("--count", type=int, default=100)
    replay = actions.add_parser("replay", help="queue dead letters again")
    replay.add_argument("ids", nargs="*", help="dead letters' ids (from `failed`)")
    replay.add_argument("--all", action="store_true", help="every dead letter")
    for p in (failed, replay):
        p.add_argument("--redis-url", default=None, help="the store (env GENIAL_REDIS_URL)")
        p.add_argument("--redis-cluster", action=argparse.BooleanOptionalAction, default=None)


async def failed(store: GameStore, count: int) -> list[str]:
    """One JSON line a dead letter: its id, why, the endpoint, the webhook-id, the body."""
    lines = []
    for entry, raw, why in await store.dead_notifications(count):
        item = decode_item(raw)
        line = {"id": entry, "why": why, "endpoint": item.endpoint, "webhook_id": item.id}
        lines.append(json.dumps({**line, "body": json.loads(item.body)}))
    return lines


async def replay(store: GameStore, ids: list[str], every: bool) -> int:
    if every:
        ids = [entry for entry, _, _ in await store.dead_notifications(LISTED)]
    return await store.replay_notifications(ids, time.time())


def main(args: argparse.Namespace) -> int:
    settings = Settings.load(args)
    if args.action == "replay" and not args.ids and not args.all:
        print("name the dead letters to replay, or --all")
        return 2

    async def run() -> int:
        store = open_store(settings)
        try:
            if args.action == "failed":
                for line in await failed(store, args.count):
                    print(line)
                return 0
            print(f"queued again: {await replay(store, args.ids, args.all)}")
            return 0
        finally:
            await store.close()

    return asyncio.run(run())
