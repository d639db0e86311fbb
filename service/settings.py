"""Configuration in one object, read from flags and `GENIAL_*` environment variables.

A flag wins over the environment, the environment over the default. Every field
is a flag `--name-with-dashes` and a variable `GENIAL_NAME`.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


def _doc(text: str) -> dict[str, str]:
    return {"doc": text}


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = field(default="0.0.0.0", metadata=_doc("address to listen on"))
    grpc_port: int = field(default=50051, metadata=_doc("gRPC port (0: any free port)"))
    http_port: int = field(default=8080, metadata=_doc("HTTP port (0: any free port)"))
    admin_port: int = field(
        default=9090,
        metadata=_doc(
            "port of /healthz, /readyz and /metrics, plain HTTP, for the cluster only (0: any "
            "free port)"
        ),
    )
    serve_web: bool = field(default=True, metadata=_doc("serve the web client at / on HTTP"))
    serve_docs: bool = field(
        default=True, metadata=_doc("serve the API's reference at /docs on HTTP")
    )
    tls_cert_file: str = field(
        default="",
        metadata=_doc(
            "PEM certificate chain for TLS on the gRPC and HTTP ports, reloaded when it "
            "changes; empty: plain text"
        ),
    )
    tls_key_file: str = field(default="", metadata=_doc("PEM private key of tls_cert_file"))
    redis_url: str = field(
        default="",
        metadata=_doc(
            "Redis URL (redis://, rediss://, unix://); empty or memory://: the in-process "
            "store (one worker only)"
        ),
    )
    redis_cluster: bool = field(default=False, metadata=_doc("the URL names a Redis Cluster"))
    redis_timeout: float = field(default=2.0, metadata=_doc("seconds before a Redis call fails"))
    redis_pool_size: int = field(
        default=32,
        metadata=_doc(
            "Redis connections a worker opens for what is not the move path or a watch "
            "(lobby, schedules, players), at most; a node each on Cluster"
        ),
    )
    redis_password: str = field(
        default="",
        metadata=_doc("password of the Redis servers (wins over one in the URL); empty: the URL's"),
    )
    redis_sentinels: str = field(
        default="",
        metadata=_doc(
            "comma-separated host:port of Redis Sentinels ([v6]:port for IPv6); set: the "
            "master is found through them and followed on failover (the URL, if any, gives "
            "only the scheme, user and database)"
        ),
    )
    redis_sentinel_master: str = field(
        default="mymaster", metadata=_doc("name of the master the Sentinels watch")
    )
    redis_sentinel_password: str = field(
        default="", metadata=_doc("password of the Sentinels themselves; empty: none")
    )
    redis_wait_replicas: int = field(
        default=0,
        metadata=_doc(
            "replicas that must have a move (WAIT) before it is acknowledged; 0: off "
            "(a failover may then lose the last moves acknowledged)"
        ),
    )
    record_codec: str = field(
        default="zstd",
        metadata=_doc(
            "how game records are written in Redis: zstd, or zlib while workers of releases "
            "before 2026-12-05 still run (they read zlib only; every worker reads both)"
        ),
    )
    redis_wait_timeout_ms: int = field(
        default=500,
        metadata=_doc(
            "milliseconds a move waits for its replicas; past it the move is answered "
            "UNAVAILABLE (applied on the master: a retry with its request id is recognised)"
        ),
    )
    waiting_ttl: float = field(
        default=30 * 60, metadata=_doc("seconds a game that never fills is kept")
    )
    idle_ttl: float = field(
        default=7 * 24 * 3600, metadata=_doc("seconds a running game is kept without a move")
    )
    finished_ttl: float = field(default=3600, metadata=_doc("seconds a finished game is kept"))
    turn_lease_seconds: float = field(
        default=10.0, metadata=_doc("seconds a worker holds a bot's turn before another may")
    )
    min_turn_seconds: int = field(default=10, metadata=_doc("shortest turn timer a game may set"))
    rate_limit_token: int = field(
        default=600, metadata=_doc("requests per 10 s for one token, over all workers; 0: off")
    )
    rate_limit_address: int = field(
        default=6000, metadata=_doc("requests per 10 s from one address, all workers; 0: off")
    )
    games_per_minute: int = field(
        default=30,
        metadata=_doc(
            "games one address may create a minute, all workers (a game of bots only counts "
            "as bot_game_cost); 0: no limit"
        ),
    )
    waiting_games: int = field(
        default=20, metadata=_doc("games one address may have waiting for players; 0: no limit")
    )
    bot_game_cost: int = field(
        default=10, metadata=_doc("what a game with no seat for a player counts as, created")
    )
    store_full_fraction: float = field(
        default=0.9,
        metadata=_doc(
            "share of Redis's maxmemory past which new games are refused, leaving the rest "
            "to the moves of running games"
        ),
    )
    trusted_proxies: str = field(
        default="",
        metadata=_doc(
            "comma-separated CIDRs of proxies whose X-Forwarded-For is believed (e.g. the "
            "ingress controller's pods); empty: none, the peer is the client"
        ),
    )
    max_streams: int = field(
        default=20_000, metadata=_doc("watch streams one worker serves at once")
    )
    max_streams_per_address: int = field(
        default=64,
        metadata=_doc(
            "watch streams one client address may hold on one worker; keep it under "
            "max_streams_per_connection, or a client's calls on a connection its watches "
            "fill wait for one to end (grpc's channels to one target share a connection)"
        ),
    )
    max_streams_per_connection: int = field(
        default=100, metadata=_doc("concurrent gRPC streams on one connection")
    )
    max_header_bytes: int = field(
        default=16 * 1024, metadata=_doc("largest request head (HTTP) or metadata (gRPC)")
    )
    request_read_seconds: float = field(
        default=10.0,
        metadata=_doc(
            "seconds a client has to send a whole request (HTTP), handshake or request "
            "message (gRPC)"
        ),
    )
    write_stall_seconds: float = field(
        default=30.0,
        metadata=_doc("seconds an answer may wait for a client that does not read it"),
    )
    grpc_servers: int = field(
        default=8,
        metadata=_doc(
            "grpc.aio servers sharing the gRPC port, each taking up one call at a time (the "
            "port is opened with SO_REUSEPORT when more than 1)"
        ),
    )
    grpc_idle_seconds: float = field(
        default=300.0, metadata=_doc("seconds a gRPC connection without calls is kept, at most")
    )
    grpc_max_age_seconds: float = field(
        default=7200.0,
        metadata=_doc(
            "seconds a gRPC connection lives before it is asked to reconnect (after a grace "
            "of drain_seconds; its watches resume elsewhere); 0: for ever"
        ),
    )
    record_cache_games: int = field(
        default=10_000,
        metadata=_doc(
            "games whose last record a worker keeps, to move with one Redis call; 0: off"
        ),
    )
    max_request_bytes: int = field(default=4096, metadata=_doc("largest request accepted"))
    max_page_size: int = field(default=100, metadata=_doc("largest lobby page"))
    watch_keepalive: float = field(
        default=15.0, metadata=_doc("seconds between keep-alives on an idle watch")
    )
    drain_seconds: float = field(
        default=10.0, metadata=_doc("seconds to finish requests on SIGTERM")
    )
    cors_origins: str = field(
        default="",
        metadata=_doc(
            "comma-separated origins whose pages may call the HTTP API "
            "(https://app.example.com; * for any); empty: the same origin only"
        ),
    )
    session_keys: str = field(
        default="",
        metadata=_doc(
            "keys that sign players' session tokens, 'kid:secret,kid2:secret2' (secrets of "
            "32+ characters; the first signs, all verify); empty: one kept in the store "
            "(for trials only)"
        ),
    )
    access_token_seconds: int = field(
        default=3600, metadata=_doc("seconds a player's access token is valid")
    )
    refresh_token_seconds: int = field(
        default=30 * 86400, metadata=_doc("seconds an unused refresh token (a session) lives")
    )
    oidc_issuer: str = field(
        default="",
        metadata=_doc("issuer of the identity provider whose tokens are taken; empty: none"),
    )
    oidc_audience: str = field(
        default="", metadata=_doc("audience the identity provider's tokens must be for")
    )
    oidc_algorithms: str = field(
        default="RS256,ES256", metadata=_doc("algorithms taken for the provider's tokens")
    )
    oidc_jwks_url: str = field(default="", metadata=_doc("URL of the provider's JWKS"))
    oidc_jwks_file: str = field(
        default="", metadata=_doc("file with the provider's JWKS (instead of the URL)")
    )
    oidc_jwks_min_interval: float = field(
        default=10.0,
        metadata=_doc("least seconds between two fetches of the JWKS for an unknown key id"),
    )
    token_cache_size: int = field(
        default=10_000, metadata=_doc("players' tokens a worker keeps verified; 0: off")
    )
    live_games_per_player: int = field(
        default=100, metadata=_doc("games a player may sit at before they are over")
    )
    finished_games_per_player: int = field(
        default=20, metadata=_doc("finished games listed per player")
    )
    player_events_kept: int = field(
        default=200, metadata=_doc("events kept per player for watches to resume from")
    )
    player_ttl: float = field(
        default=365 * 86400,
        metadata=_doc("seconds a player's profile, games and events are kept unused"),
    )
    rematch_seconds: float = field(
        default=300.0, metadata=_doc("seconds a rematch keeps seats for its players")
    )
    follow_up_lease_seconds: float = field(
        default=5.0,
        metadata=_doc("seconds before another worker does a move's follow-ups (player events)"),
    )
    otlp_endpoint: str = field(
        default="",
        metadata=_doc(
            "OTLP/gRPC endpoint traces are exported to (http://collector:4317); empty: no tracing"
        ),
    )
    webhook_endpoints: str = field(
        default="",
        metadata=_doc(
            "webhook endpoints, a JSON list of objects: name, url, secrets (whsec_..., the "
            "first signs; several sign at once during a rotation), events (types wanted; "
            "absent: all), timeout (seconds, default 10), concurrency (per worker, default "
            "8); empty: no notifications"
        ),
    )
    webhook_retry_seconds: float = field(
        default=24 * 3600,
        metadata=_doc("seconds a notification is retried before it goes to the dead letters"),
    )
    webhook_backoff_seconds: float = field(
        default=1.0,
        metadata=_doc("seconds before a first retry; each next twice as long (at most 1 h)"),
    )
    webhook_visibility_seconds: float = field(
        default=60.0,
        metadata=_doc("seconds a delivery may take before another worker takes it over"),
    )
    webhook_coalesce_seconds: float = field(
        default=60.0,
        metadata=_doc("seconds after a 'your turn' in which the same game's next is not sent"),
    )
    webhook_player_hosts: str = field(
        default="",
        metadata=_doc(
            "comma-separated hosts (or *.domain) players' own webhook endpoints may name "
            "(SetPlayerWebhook); empty: players may not set one"
        ),
    )
    webhook_player_networks: str = field(
        default="",
        metadata=_doc(
            "comma-separated CIDRs players' endpoints may resolve to besides public "
            "addresses (loopback, private and link-local ones are refused otherwise)"
        ),
    )
    match_ticket_seconds: float = field(
        default=600.0, metadata=_doc("seconds a matchmaking ticket waits before it expires")
    )
    match_tickets_per_player: int = field(
        default=3,
        metadata=_doc("matchmaking tickets a player may have waiting at once (one per kind)"),
    )
    match_fill_seconds: float = field(
        default=3.0,
        metadata=_doc(
            "seconds a ticket waits for a full table before it takes a smaller one all its "
            "players accept"
        ),
    )
    match_bots_seconds: float = field(
        default=15.0,
        metadata=_doc("seconds before built-in bots fill a table whose players accept bots"),
    )
    rating_window: float = field(
        default=2.0,
        metadata=_doc("rated tickets: the widest difference of mu at first between players"),
    )
    rating_window_growth: float = field(
        default=0.5, metadata=_doc("rated tickets: how much the window widens a second waited")
    )
    leaderboard_min_games: int = field(
        default=5, metadata=_doc("rated games a player needs to be on a leaderboard")
    )
    log_level: str = field(default="INFO", metadata=_doc("DEBUG, INFO, WARNING or ERROR"))
    log_json: bool = field(default=True, metadata=_doc("structured (JSON) log lines"))

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        for f in dataclasses.fields(cls):
            flag = "--" + f.name.replace("_", "-")
            helptext = f"{f.metadata['doc']} (env GENIAL_{f.name.upper()}, default {f.default!r})"
            if f.type == "bool":
                parser.add_argument(flag, action=argparse.BooleanOptionalAction, help=helptext)
            else:
                parser.add_argument(flag, type=_parser(f.type), help=helptext)

    @classmethod
    def load(
        cls, args: argparse.Namespace | None = None, environ: Mapping[str, str] | None = None
    ) -> Settings:
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            flag = getattr(args, f.name, None) if args is not None else None
            if flag is not None:
                values[f.name] = flag
            elif f"GENIAL_{f.name.upper()}" in environ:
                raw = environ[f"GENIAL_{f.name.upper()}"]
                values[f.name] = _parser(str(f.type))(raw)
        return cls(**values)

    @classmethod
    def from_argv(cls, argv: Sequence[str]) -> Settings:
        parser = argparse.ArgumentParser()
        cls.add_arguments(parser)
        return cls.load(parser.parse_args(argv), {})


def _bool(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a boolean: {raw!r}")


def _parser(type_name: object) -> Any:
    return {"int": int, "float": float, "str": str, "bool": _bool}[str(type_name)]
