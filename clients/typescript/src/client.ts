import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, createClient, type Client, type Transport } from "@connectrpc/connect";

import { auth, type Credential } from "./credential.js";
import { GenialError } from "./errors.js";
import {
  GameService,
  type CreateGameResponse,
  type CreateWatchTicketResponse,
  type GetHistoryResponse,
  type ListLegalMovesResponse,
  type MakeMoveResponse,
  type WatchGameResponse,
} from "./gen/genial/v1/game_service_pb.js";
import {
  BotStrength,
  GameKind,
  type GameOptionsSchema,
  type GameSummary,
  type GameView,
  type Move,
  type MoveSchema,
} from "./gen/genial/v1/types_pb.js";
import type { PlayerSession } from "./player.js";
import { createRestTransport, type RestTransportOptions } from "./rest.js";
import { streamReader } from "./sse.js";
import { DEFAULT_WATCH, follow, mask, type WatchOptions, type WatchPolicy } from "./watch.js";

/** The three games. */
export type Kind = "cards" | "dice" | "tiles";
/** How well a bot seated by the service plays. */
export type Strength = "random" | "greedy" | "strong";

const KINDS: Record<Kind, GameKind> = {
  cards: GameKind.CARDS,
  dice: GameKind.DICE,
  tiles: GameKind.TILES,
};
const STRENGTHS: Record<Strength, BotStrength> = {
  random: BotStrength.RANDOM,
  greedy: BotStrength.GREEDY,
  strong: BotStrength.STRONG,
};

/**
 * When and how often a call is tried again.
 *
 * A call is retried when the service could not apply it for now (ABORTED with reason
 * CONTENTION) and, for calls that are safe to repeat, when the service could not be reached
 * (UNAVAILABLE) or did not answer in time (DEADLINE_EXCEEDED). Every call but createGame
 * and joinGame is safe to repeat: reads change nothing, and each move carries a request id,
 * so the service applies it once however often it is sent. ABORTED with reason
 * STALE_VERSION is never retried: the game moved on since the move was chosen, and only the
 * caller can tell whether it still makes sense. A call refused by a rate limit
 * (RESOURCE_EXHAUSTED, reason RATE_LIMITED) was not run, so any call goes again once the
 * service's `retry_after` has passed, if that is at most `maxRateLimitWaitMs`.
 */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Milliseconds before the first retry, at most (the wait is jittered). */
  initialBackoffMs: number;
  /** The longest wait between two tries. */
  maxBackoffMs: number;
  /** How much the longest wait grows with each retry. */
  multiplier: number;
  /** The longest `retry_after` worth waiting for, in milliseconds (0: throw at once). */
  maxRateLimitWaitMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  initialBackoffMs: 50,
  maxBackoffMs: 2000,
  multiplier: 2,
  maxRateLimitWaitMs: 10_000,
};

/** Options of a GenialClient. */
export interface ClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Each unary call's deadline in milliseconds (default 10 s); watches have none. */
  timeoutMs?: number;
  /** How watches read the game and reconnect (`DEFAULT_WATCH`). */
  watch?: Partial<WatchPolicy>;
}

/** Options of a new game. */
export interface CreateOptions {
  /** The number of seats, 2-4 (default 2). */
  seats?: number;
  /** The seats to give to the service's bots, which then play by themselves. */
  bots?: Record<number, Strength>;
  /** The game's options; unset ones take the game's defaults. */
  options?: MessageInitShape<typeof GameOptionsSchema>;
  /** Seconds each seat has for a move; unset for no turn timer. */
  turnSeconds?: number;
}

/** A move, as a message or as its init object: `{ move: { case: "dice", value: ... } }`. */
export type MoveInit = MessageInitShape<typeof MoveSchema>;

/** Options of `GenialClient.move`. */
export interface MoveOptions {
  /** Refuse the move (ABORTED, STALE_VERSION) unless the game is at this version. */
  expectedVersion?: bigint;
  /** Makes retries safe; made up when not given. */
  requestId?: string;
  /** The answer's fields to send (paths in MakeMoveResponse, snake_case); all when unset. */
  readMask?: string[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A client of a genial server, over any Connect transport: gRPC in Node
 * (`connectGrpc` from "genial-client/node") or the REST/JSON gateway anywhere
 * (`GenialClient.rest`).
 *
 * ```ts
 * const client = GenialClient.rest("http://localhost:8080");
 * const game = await client.create("dice", { bots: { 1: "greedy" } });
 * const seat = await client.join(game.gameId, "Ada");
 * const moves = await seat.legalMoves();
 * await seat.move(moves[0]);
 * ```
 *
 * Methods that act for a seat take its player token; `Seat` carries it for you. Refusals
 * throw `GenialError`.
 */
export class GenialClient {
  /** The generated client, for calls the wrapper does not cover. */
  readonly api: Client<typeof GameService>;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  readonly watchPolicy: WatchPolicy;

  constructor(
    /** The transport, for the API's other services (`PlayerSession`). */
    readonly transport: Transport,
    options: ClientOptions = {},
  ) {
    this.api = createClient(GameService, transport);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.watchPolicy = { ...DEFAULT_WATCH, ...options.watch };
  }

  /**
   * A client of the REST/JSON gateway at `baseUrl` ("http://localhost:8080"). Watches stream
   * with `fetch` where it can, else with XMLHttpRequest (React Native), else they poll.
   */
  static rest(
    baseUrl: string,
    options: ClientOptions & Omit<RestTransportOptions, "baseUrl"> = {},
  ): GenialClient {
    const stream = options.stream ?? streamReader();
    const transport = createRestTransport({ baseUrl, fetch: options.fetch, stream });
    const watch = { poll: stream === "none", ...options.watch };
    return new GenialClient(transport, { ...options, watch });
  }

  /**
   * Calls `call` with the headers of `token`, retried as the policy allows; a refusal
   * throws GenialError. A player's session whose token is refused gets a new one and the
   * call goes again, once (it was not run). For the SDK's own modules.
   */
  async call<T>(
    call: (headers: HeadersInit) => Promise<T>,
    idempotent = true,
    token?: Credential,
  ): Promise<T> {
    let renewed = false;
    for (let retry = 1; ; retry++) {
      let delay: number | undefined;
      try {
        return await call(await auth(token));
      } catch (err) {
        const error = GenialError.from(err);
        if (error.code === Code.Unauthenticated && typeof token === "object" && !renewed) {
          await token.renew();
          renewed = true;
          retry--;
          continue;
        }
        delay = this.delay(error, retry, idempotent);
        if (delay === undefined) {
          throw error;
        }
      }
      await sleep(delay);
    }
  }

  /**
   * Signs a player in by a device id the app keeps (16-128 characters; the same id is the
   * same player, on any device): see `PlayerSession`.
   */
  async signInAsGuest(deviceId: string, displayName = ""): Promise<PlayerSession> {
    const { PlayerSession } = await import("./player.js");
    return PlayerSession.signInAsGuest(this, deviceId, displayName);
  }

  /** Milliseconds before retry number `retry` of a call that failed with `error`, if any. */
  private delay(error: GenialError, retry: number, idempotent: boolean): number | undefined {
    const { initialBackoffMs, maxBackoffMs, multiplier, maxRateLimitWaitMs } = this.retry;
    const waitMs = error.retryAfterMs;
    if (waitMs !== undefined) {
      const fits = retry < this.retry.attempts && waitMs >= 0 && waitMs <= maxRateLimitWaitMs;
      // A little past the window's end, spread out: clients refused together should not
      // all come back at the same instant.
      return fits ? waitMs + Math.random() * initialBackoffMs : undefined;
    }
    if (!this.shouldRetry(error, retry, idempotent)) {
      return undefined;
    }
    // Full jitter: clients that collided once spread out instead of colliding again.
    return Math.random() * Math.min(maxBackoffMs, initialBackoffMs * multiplier ** (retry - 1));
  }

  private shouldRetry(error: GenialError, retry: number, idempotent: boolean): boolean {
    if (retry >= this.retry.attempts) {
      return false;
    }
    if (error.code === Code.Aborted) {
      return error.reason !== "STALE_VERSION";
    }
    return idempotent && (error.code === Code.Unavailable || error.code === Code.DeadlineExceeded);
  }

  /** Creates a game of `kind` with open seats, and seats the bots asked for. */
  async create(kind: Kind, options: CreateOptions = {}): Promise<CreateGameResponse> {
    const bots = Object.entries(options.bots ?? {}).map(([seat, strength]) => ({
      seat: Number(seat),
      strength: STRENGTHS[strength],
    }));
    const request = {
      kind: KINDS[kind],
      seats: options.seats ?? 2,
      bots,
      options: options.options,
      turnSeconds: options.turnSeconds,
    };
    return this.call(() => this.api.createGame(request, { timeoutMs: this.timeoutMs }), false);
  }

  /** Takes a seat (the first open one, or `seat`); the Seat holds the player token. */
  async join(gameId: string, displayName: string, seat?: number): Promise<Seat> {
    const joined = await this.call(
      () => this.api.joinGame({ gameId, displayName, seat }, { timeoutMs: this.timeoutMs }),
      false,
    );
    return new Seat(this, gameId, joined.seat, joined.playerToken, joined.view?.version ?? 0n);
  }

  /**
   * The game as the seat of `token` sees it; without a token, a spectator's view. With
   * `readMask`, only those fields of the view (paths in GameView, in the proto's snake_case:
   * "version", "to_move", "dice.phase"): what is left out is neither built nor sent.
   */
  async view(
    gameId: string,
    token?: Credential,
    options: { readMask?: string[] } = {},
  ): Promise<GameView> {
    const readMask = mask(options.readMask?.map((path) => `view.${path}`));
    const response = await this.call(
      (headers) => this.api.getGame({ gameId, readMask }, { headers, timeoutMs: this.timeoutMs }),
      true,
      token,
    );
    if (response.view === undefined) {
      throw new GenialError(Code.Internal, "", "GetGame answered without a view");
    }
    return response.view;
  }

  /** The legal moves of the seat of `token`, with the version they are legal at. */
  async legalMoves(gameId: string, token: Credential): Promise<ListLegalMovesResponse> {
    return this.call(
      (headers) => this.api.listLegalMoves({ gameId }, { headers, timeoutMs: this.timeoutMs }),
      true,
      token,
    );
  }

  /**
   * Makes `move` for the seat of `token`. With `expectedVersion` it is refused (ABORTED,
   * STALE_VERSION) unless the game is still at that version. A request id is made up when
   * none is given; every retry sends the same one, so the move is applied at most once.
   * With `readMask` (paths in MakeMoveResponse, e.g. ["version", "events"]) the answer has
   * only those fields.
   */
  async move(
    gameId: string,
    token: Credential,
    move: MoveInit,
    options: MoveOptions = {},
  ): Promise<MakeMoveResponse> {
    const request = {
      gameId,
      move,
      expectedVersion: options.expectedVersion,
      requestId: options.requestId ?? crypto.randomUUID(),
      readMask: mask(options.readMask),
    };
    return this.call(
      (headers) => this.api.makeMove(request, { headers, timeoutMs: this.timeoutMs }),
      true,
      token,
    );
  }

  /**
   * Follows a game: each seat taken and each move after `fromVersion` (0: all of them), with
   * its events and a fresh view for the seat of `token` (or a spectator's), then the live
   * ones. Ends when the game is over; leave the loop to stop earlier. Keep-alives are not
   * yielded. When the connection fails or a worker stops, it reconnects by itself (see
   * `WatchPolicy`) and goes on after the last version it yielded: no event is missed or
   * yielded twice. Throws GenialError when the watch is refused, or cancelled by `signal`.
   */
  watch(gameId: string, options: WatchOptions = {}): AsyncGenerator<WatchGameResponse> {
    return follow(this, gameId, this.watchPolicy, options);
  }

  /**
   * Every move of the game with its events, and the seed once the game is over: all the
   * pages of GetHistory (of `pageSize` moves; 0 takes the service's default) as one answer.
   */
  async history(gameId: string, pageSize = 0): Promise<GetHistoryResponse> {
    let pageToken = "";
    let whole: GetHistoryResponse | undefined;
    do {
      const page = await this.call(() =>
        this.api.getHistory({ gameId, pageSize, pageToken }, { timeoutMs: this.timeoutMs }),
      );
      if (whole === undefined) {
        whole = page;
      } else {
        whole.entries.push(...page.entries);
        whole.seed = page.seed;
      }
      pageToken = page.nextPageToken;
    } while (pageToken);
    whole.nextPageToken = "";
    return whole;
  }

  /** The lobby's games with open seats (of `kind`, or of every kind), page after page. */
  async *games(kind?: Kind, pageSize = 0): AsyncGenerator<GameSummary> {
    let pageToken = "";
    do {
      const request = { kind: kind ? KINDS[kind] : GameKind.UNSPECIFIED, pageSize, pageToken };
      const page = await this.call(() =>
        this.api.listGames(request, { timeoutMs: this.timeoutMs }),
      );
      yield* page.games;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }
}

/**
 * One seat of one game, as its player holds it: the token, and the version of the game the
 * seat last looked at, which its moves expect by default. To come back to a game later,
 * keep `gameId`, `seat` and `token`, and build it again with `new Seat(client, ...)`.
 */
export class Seat {
  /**
   * The version of the last view, list of legal moves or move this seat got through
   * `view`, `legalMoves` or `move` (`watch` leaves it alone: what is seen there is not
   * necessarily what a move was chosen from).
   */
  version: bigint;

  constructor(
    readonly client: GenialClient,
    readonly gameId: string,
    readonly seat: number,
    /** The seat's player token, or the session of the player the seat is bound to. */
    readonly token: Credential,
    version = 0n,
  ) {
    this.version = version;
  }

  private saw(version: bigint): void {
    if (version > this.version) {
      this.version = version;
    }
  }

  /** The game as this seat sees it (its own hand included). */
  async view(): Promise<GameView> {
    const view = await this.client.view(this.gameId, this.token);
    this.saw(view.version);
    return view;
  }

  /** This seat's legal moves now, each exactly as `move` takes it; empty when it is not
   * the seat's turn. */
  async legalMoves(): Promise<Move[]> {
    const response = await this.client.legalMoves(this.gameId, this.token);
    this.saw(response.version);
    return response.moves;
  }

  /**
   * Makes `move`. By default it expects the game to be at `this.version`, the version the
   * seat last looked at, so a move chosen from an outdated view is refused (GenialError
   * with reason STALE_VERSION) rather than applied to a game that moved on; pass an
   * explicit version, or null to apply it to whatever the game is now. A `readMask` (see
   * `GenialClient.move`) always keeps the version, which the seat follows.
   */
  async move(
    move: MoveInit,
    options: { expectedVersion?: bigint | null; requestId?: string; readMask?: string[] } = {},
  ): Promise<MakeMoveResponse> {
    const expected = options.expectedVersion === undefined ? this.version : options.expectedVersion;
    const made = await this.client.move(this.gameId, this.token, move, {
      expectedVersion: expected ?? undefined,
      requestId: options.requestId,
      readMask: options.readMask?.length ? [...options.readMask, "version"] : undefined,
    });
    this.saw(made.version);
    return made;
  }

  /**
   * A watch ticket for this seat: a credential for watching this game only, good for a
   * minute, for a stream that cannot carry an authorization header. With the REST gateway
   * at `baseUrl`, `new EventSource(\`${baseUrl}/v1/games/${seat.gameId}/events?ticket=${ticket}\`)`
   * follows the game with this seat's views. Never put the seat's own token in a URL.
   */
  async watchTicket(): Promise<CreateWatchTicketResponse> {
    return this.client.call(
      (headers) =>
        this.client.api.createWatchTicket(
          { gameId: this.gameId },
          { headers, timeoutMs: this.client.timeoutMs },
        ),
      true,
      this.token,
    );
  }

  /** Follows the game with this seat's views, from `fromVersion` (default: the version the
   * seat last looked at). See `GenialClient.watch`. */
  watch(
    fromVersion?: bigint,
    options: Omit<WatchOptions, "fromVersion" | "token"> = {},
  ): AsyncGenerator<WatchGameResponse> {
    return this.client.watch(this.gameId, {
      ...options,
      fromVersion: fromVersion ?? this.version,
      token: this.token,
    });
  }
}
