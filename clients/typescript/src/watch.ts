/**
 * Following a game: the stream of WatchGame (or polling, where nothing can stream),
 * reconnected after a failure from the last version seen, so that the caller sees every
 * event once, in order, whatever happens to the connection or the server.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";

import type { GenialClient } from "./client.js";
import { auth, type Credential } from "./credential.js";
import { GenialError } from "./errors.js";
import { anySignal } from "./signals.js";
import {
  WatchGameResponseSchema,
  type WatchGameResponse,
} from "./gen/genial/v1/game_service_pb.js";
import { GameStatus, type EventSchema, type GameView } from "./gen/genial/v1/types_pb.js";

/** How a watch reads the game and comes back after a failure. */
export interface WatchPolicy {
  /** Open the stream again after it failed or was cut, from the last version seen. */
  reconnect: boolean;
  /** Failed reconnects in a row before the watch throws (Infinity: never gives up). */
  attempts: number;
  /** Milliseconds before the first reconnect, at most (the wait is jittered). */
  initialBackoffMs: number;
  /** The longest wait between two reconnects. */
  maxBackoffMs: number;
  /** How much the longest wait grows with each failed reconnect. */
  multiplier: number;
  /**
   * Milliseconds without anything from the server (the service sends a keep-alive every
   * 15 s by default) before the connection is taken for dead and opened again.
   */
  idleTimeoutMs: number;
  /** Poll GetGame and GetHistory instead of streaming (where nothing can stream). */
  poll: boolean;
  /** Milliseconds between two polls. */
  pollIntervalMs: number;
}

export const DEFAULT_WATCH: WatchPolicy = {
  reconnect: true,
  attempts: Infinity,
  initialBackoffMs: 250,
  maxBackoffMs: 10_000,
  multiplier: 2,
  idleTimeoutMs: 45_000,
  poll: false,
  pollIntervalMs: 1000,
};

/** What a watch tells its caller before it reconnects. */
export interface Reconnecting {
  /** Why the stream ended. */
  error: GenialError;
  /** Reconnects in a row so far, this one included. */
  attempt: number;
  /** Milliseconds until it tries. */
  delayMs: number;
  /** The version it resumes after. */
  fromVersion: bigint;
}

/** Options of one watch. */
export interface WatchOptions {
  /** Yield what happened after this version (0: the whole game, seats taken included). */
  fromVersion?: bigint;
  /** A seat's token (or its player's session), for that seat's views; none for a
   * spectator's. */
  token?: Credential;
  /** Ends the watch (it then throws CANCELLED). */
  signal?: AbortSignal;
  /** Called before each reconnect, to show that the connection was lost. */
  onReconnect?: (reconnecting: Reconnecting) => void;
  /** Called when the server answers a new connection (the first and each reconnect). */
  onConnected?: () => void;
  /** The fields of each update to send (paths in WatchGameResponse, snake_case, e.g.
   * ["events"] to follow the events alone); all when unset. The version is always kept:
   * the watch resumes from it. Polling sends whole updates. */
  readMask?: string[];
}

/** Codes after which a watch is opened again: nothing is wrong with the request itself. */
const TRANSIENT = new Set([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Aborted,
  Code.ResourceExhausted,
  Code.Unknown,
]);

/** A read mask of `paths`; none (everything) for no paths. */
export function mask(paths: string[] | undefined): { paths: string[] } | undefined {
  return paths?.length ? { paths } : undefined;
}

function over(view: GameView | undefined): boolean {
  return view?.status === GameStatus.FINISHED;
}

/** Waits `ms`, or throws CANCELLED when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      reject(new GenialError(Code.Canceled, "", "the watch was cancelled"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", done);
      resolve();
    }, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Every seat taken and every move after `fromVersion`, each once and in order, then the live
 * ones, until the game is over. After a failure (the network, a worker stopping) it waits
 * (jittered exponential backoff) and opens the watch again from the last version it saw.
 * Throws when the request itself is refused (NOT_FOUND, PERMISSION_DENIED, ...), when
 * `signal` aborts, or after `policy.attempts` failed reconnects.
 */
export async function* follow(
  client: GenialClient,
  gameId: string,
  policy: WatchPolicy,
  options: WatchOptions = {},
): AsyncGenerator<WatchGameResponse> {
  const { token, signal } = options;
  const readMask = mask(options.readMask?.length ? [...options.readMask, "version"] : undefined);
  let version = options.fromVersion ?? 0n;
  let joins = 0; // seats taken and yielded: all at version 0, told apart only by count
  let failures = 0;
  for (;;) {
    const attempt = new AbortController();
    const signals = anySignal(attempt.signal, signal);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const alive = () => {
      clearTimeout(idle);
      idle = setTimeout(() => attempt.abort(), policy.idleTimeoutMs);
    };
    let error: GenialError;
    try {
      alive();
      let skip = version === 0n ? joins : 0;
      const updates = policy.poll
        ? poll(client, gameId, version, token, signals, policy.pollIntervalMs)
        : client.api.watchGame(
            { gameId, fromVersion: version, readMask },
            { headers: await auth(token), signal: signals },
          );
      let answered = false;
      for await (const update of updates) {
        alive();
        failures = 0;
        if (!answered) {
          answered = true;
          options.onConnected?.();
        }
        if (update.keepAlive) {
          continue;
        }
        if (update.version === 0n) {
          if (version > 0n || skip-- > 0) {
            continue;
          }
          joins++;
        } else if (update.version <= version) {
          continue;
        } else {
          version = update.version;
        }
        yield update;
        if (over(update.view)) {
          return;
        }
      }
      // The stream ended: the game is over (seen before it was opened), or the worker
      // serving it stopped.
      if (over(await client.view(gameId, token))) {
        return;
      }
      error = new GenialError(Code.Unavailable, "STREAM_ENDED", "the watch ended before the game");
    } catch (err) {
      error = GenialError.from(err);
      if (attempt.signal.aborted && !signal?.aborted) {
        const quiet = `nothing from the server for ${policy.idleTimeoutMs} ms`;
        error = new GenialError(Code.Unavailable, "WATCH_IDLE", quiet, {}, { cause: err });
      }
    } finally {
      clearTimeout(idle);
      attempt.abort();
    }
    failures++;
    if (
      signal?.aborted ||
      !policy.reconnect ||
      !TRANSIENT.has(error.code) ||
      failures > policy.attempts
    ) {
      throw error;
    }
    const { initialBackoffMs, maxBackoffMs, multiplier } = policy;
    const ceiling = Math.min(maxBackoffMs, initialBackoffMs * multiplier ** (failures - 1));
    // At least the service's retry_after when it asked for one; else full jitter.
    const delayMs = Math.max(error.retryAfterMs ?? 0, Math.random() * ceiling);
    options.onReconnect?.({ error, attempt: failures, delayMs, fromVersion: version });
    await sleep(delayMs, signal);
  }
}

/**
 * The watch's answers made from GetGame and GetHistory, polled every `intervalMs`: for a
 * platform with no way to stream. Seats taken are told in seat order (the stream tells them
 * in the order they were taken), and a move's answer carries a view only when it is the
 * game's last move (older views are not to be had).
 */
async function* poll(
  client: GenialClient,
  gameId: string,
  fromVersion: bigint,
  token: Credential | undefined,
  signal: AbortSignal,
  intervalMs: number,
): AsyncGenerator<WatchGameResponse> {
  let version = fromVersion;
  const told = new Set<number>(); // seats whose taking was yielded (bots are seated, not joined)
  for (;;) {
    const view = await client.view(gameId, token);
    if (version === 0n) {
      const joined = view.players.filter(
        (p) => p.joined && p.bot === undefined && !told.has(p.seat),
      );
      for (const [i, player] of joined.entries()) {
        told.add(player.seat);
        const events: MessageInitShape<typeof EventSchema>[] = [
          {
            event: {
              case: "playerJoined" as const,
              value: { seat: player.seat, displayName: player.displayName },
            },
          },
          ...(i === joined.length - 1 && view.status !== GameStatus.WAITING
            ? [{ event: { case: "gameStarted" as const, value: {} } }]
            : []),
        ];
        yield create(WatchGameResponseSchema, { version: 0n, events, view });
      }
    }
    if (view.version > version) {
      // Moves made since the view was read wait for the next poll, with their view.
      const entries = (await client.history(gameId)).entries.filter(
        (e) => e.version > version && e.version <= view.version,
      );
      for (const entry of entries) {
        const latest = entry.version === view.version;
        yield create(WatchGameResponseSchema, {
          version: entry.version,
          events: entry.events,
          view: latest ? view : undefined,
        });
        version = entry.version;
      }
    }
    if (over(view)) {
      return;
    }
    yield create(WatchGameResponseSchema, { version, keepAlive: true }); // polling goes on
    await sleep(intervalMs, signal);
  }
}
