"""Webhooks: signed notifications of players' events ("your turn", ...) to the app's
backend, delivered at least once, in order per player, deduplicable by `webhook-id`.

- `endpoints`: the endpoints the operator configures, the notification's body and its
  Standard Webhooks signature.
- `notifier`: a follow-up consumer (`followups`): the events a change makes for players
  (`players.feed.events_of`) become notifications in the outbox (`store.Outbox`), queued
  once by their webhook-id however often the change is handed over.
- `delivery`: every worker delivers from the outbox (a consumer group), retries with
  backoff, dead-letters what fails for too long.

docs/notifications.md describes the receiver's side and the choices made.
"""
