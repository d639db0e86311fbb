/**
 * `PlayerSession`: a signed-in player, across games and devices.
 *
 * A guest signs in by a device id the app keeps (the same id is the same player). The session
 * keeps its tokens fresh by itself: the access token is refreshed a minute before it expires
 * and after the service refuses it, and a session the service ended (revoked, or unused for
 * too long) is replaced by signing in again with the device id. Its seats are `Seat`s that
 * act with the session, from any device.
 */
import { Code, createClient, type Client } from "@connectrpc/connect";

import { Seat, type GenialClient } from "./client.js";
import type { TokenSource } from "./credential.js";
import { GenialError } from "./errors.js";
import type { RematchResponse, ResignResponse } from "./gen/genial/v1/game_service_pb.js";
import {
  PlayerService,
  type MyGame,
  type PlayerProfile,
  type Session,
  type WatchPlayerResponse,
} from "./gen/genial/v1/player_service_pb.js";
import { WebhookService } from "./gen/genial/v1/webhook_service_pb.js";

/** Milliseconds before its expiry that an access token is refreshed. */
const REFRESH_MARGIN_MS = 60_000;
/** The first and the longest wait before a watch connects again, in milliseconds. */
const RECONNECT_MS = [200, 5000] as const;
/** Ends of a watch that call for connecting again (a worker went away, say). */
const RECONNECT_CODES = new Set([
  Code.Unavailable,
  Code.DeadlineExceeded,
  Code.Internal,
  Code.Unknown,
  Code.Canceled,
]);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * A signed-in player: its tokens, kept fresh, and what a player does beyond one seat.
 *
 * ```ts
 * const me = await client.signInAsGuest(deviceId);
 * for await (const game of me.myGames()) { ... }
 * ```
 *
 * It is a token source: pass it wherever a token goes (`new Seat(client, gameId, seat, me)`).
 */
export class PlayerSession implements TokenSource {
  /** The generated client of the player service. */
  readonly api: Client<typeof PlayerService>;
  private renewing: Promise<void> | undefined;

  constructor(
    readonly client: GenialClient,
    private session: Session,
    readonly deviceId?: string,
  ) {
    this.api = createClient(PlayerService, client.transport);
  }

  /** Signs in as a guest by `deviceId` (see `GenialClient.signInAsGuest`). */
  static async signInAsGuest(
    client: GenialClient,
    deviceId: string,
    displayName = "",
  ): Promise<PlayerSession> {
    return new PlayerSession(client, await create(client, deviceId, displayName), deviceId);
  }

  /** The session of a refresh token kept from earlier (it is spent for a new one). */
  static async resume(
    client: GenialClient,
    refreshToken: string,
    deviceId?: string,
  ): Promise<PlayerSession> {
    const empty = { refreshToken } as Session;
    const session = new PlayerSession(client, empty, deviceId);
    await session.renew();
    return session;
  }

  /** The player, as the last sign-in or refresh told it. */
  get player(): PlayerProfile | undefined {
    return this.session.player;
  }

  get playerId(): string {
    return this.session.player?.playerId ?? "";
  }

  /** The session's refresh token now: keep it to `resume` without signing in again. */
  get refreshToken(): string {
    return this.session.refreshToken;
  }

  // ---- the token source -------------------------------------------------------------------

  async accessToken(): Promise<string> {
    const expires = Number(this.session.accessTokenExpiresAt?.seconds ?? 0n) * 1000;
    if (!this.session.accessToken || expires - Date.now() < REFRESH_MARGIN_MS) {
      await this.renew();
    }
    return this.session.accessToken;
  }

  /** A new access token: by the refresh token, or (if the service ended the session) by
   * signing in again with the device id. Concurrent callers share one renewal. */
  async renew(): Promise<void> {
    this.renewing ??= this.refresh().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  private async refresh(): Promise<void> {
    const refreshToken = this.session.refreshToken;
    try {
      const refreshed = await this.client.call(
        () => this.api.refreshSession({ refreshToken }, { timeoutMs: this.client.timeoutMs }),
        false,
      );
      this.session = refreshed.session ?? this.session;
    } catch (err) {
      if (!(err instanceof GenialError) || err.code !== Code.Unauthenticated || !this.deviceId) {
        throw err;
      }
      this.session = await create(this.client, this.deviceId, "");
    }
  }

  // ---- the player -------------------------------------------------------------------------

  /** The player's profile. */
  async profile(): Promise<PlayerProfile | undefined> {
    const got = await this.client.call(
      (headers) => this.api.getPlayer({}, { headers, timeoutMs: this.client.timeoutMs }),
      true,
      this,
    );
    return got.player;
  }

  /** Changes the player's display name. */
  async rename(displayName: string): Promise<PlayerProfile | undefined> {
    const got = await this.client.call(
      (headers) =>
        this.api.updatePlayer({ displayName }, { headers, timeoutMs: this.client.timeoutMs }),
      true,
      this,
    );
    return got.player;
  }

  /** Sets the player's own webhook endpoint for signed notifications of its games (`events`:
   * the types wanted, none: all), where the service allows it; an empty URL removes it.
   * Returns the endpoint's new signing secret (whsec_...). */
  async setWebhook(url: string, events: string[] = []): Promise<string> {
    const api = createClient(WebhookService, this.client.transport);
    const got = await this.client.call(
      (headers) =>
        api.setPlayerWebhook({ url, events }, { headers, timeoutMs: this.client.timeoutMs }),
      true,
      this,
    );
    return got.secret;
  }

  /** The player's games: those where it is the player's turn first, then the other live
   * ones, then the last finished ones. */
  async *myGames(pageSize = 0): AsyncGenerator<MyGame> {
    let pageToken = "";
    do {
      const page = await this.client.call(
        (headers) =>
          this.api.listMyGames(
            { pageSize, pageToken },
            { headers, timeoutMs: this.client.timeoutMs },
          ),
        true,
        this,
      );
      yield* page.games;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }

  /** Takes a seat bound to this player (or its seat again, if it has one), under the
   * profile's display name unless another is given. */
  async join(gameId: string, displayName = "", seat?: number): Promise<Seat> {
    const joined = await this.client.call(
      (headers) =>
        this.client.api.joinGame(
          { gameId, displayName, seat },
          { headers, timeoutMs: this.client.timeoutMs },
        ),
      true,
      this,
    );
    return new Seat(this.client, gameId, joined.seat, this, joined.view?.version ?? 0n);
  }

  /** The player's seat at one of its games, as `myGames` lists it. */
  seat(game: MyGame): Seat {
    return new Seat(this.client, game.gameId, game.seat, this, game.version);
  }

  /** Leaves a game in progress for good: the greedy bot plays the seat to the end. */
  async resign(gameId: string): Promise<ResignResponse> {
    return this.client.call(
      (headers) =>
        this.client.api.resign({ gameId }, { headers, timeoutMs: this.client.timeoutMs }),
      true,
      this,
    );
  }

  /** A new game like a finished one (the same for everyone who asks), and the player's seat
   * there, taken. */
  async rematch(gameId: string): Promise<Seat> {
    const made: RematchResponse = await this.client.call(
      (headers) =>
        this.client.api.rematch({ gameId }, { headers, timeoutMs: this.client.timeoutMs }),
      true,
      this,
    );
    return this.join(made.gameId);
  }

  /**
   * What happens in the player's games: first the live games, then each event, until
   * `signal` aborts. A watch cut off (a worker going away, a network change) connects again
   * by itself and resumes after the last answer, so no event is missed; every connection
   * begins with the live games again; a watch refused by a rate limit connects again after
   * the wait the service asks. Keep-alives are not yielded.
   */
  async *watch(
    options: { cursor?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<WatchPlayerResponse> {
    let cursor = options.cursor ?? "";
    let backoff: number = RECONNECT_MS[0];
    while (!options.signal?.aborted) {
      let wait = backoff;
      try {
        const headers = { authorization: `Bearer ${await this.accessToken()}` };
        for await (const answer of this.api.watchPlayer(
          { cursor },
          { headers, signal: options.signal },
        )) {
          backoff = RECONNECT_MS[0];
          cursor = answer.cursor;
          if (answer.answer.case !== undefined) {
            yield answer;
          }
        }
      } catch (err) {
        const error = GenialError.from(err);
        if (options.signal?.aborted) {
          return;
        }
        if (error.code === Code.Unauthenticated) {
          await this.renew();
          continue;
        }
        // A rate limit ends the watch for as long as it says, not for good.
        const asked = error.retryAfterMs;
        if (!RECONNECT_CODES.has(error.code) && asked === undefined) {
          throw error;
        }
        wait = Math.max(backoff, asked ?? 0);
      }
      await sleep(wait, options.signal);
      backoff = Math.min(backoff * 2, RECONNECT_MS[1]);
    }
  }

  /** Ends the session: its tokens are refused from now on, on every worker. */
  async signOut(): Promise<void> {
    await this.client.call(
      (headers) => this.api.revokeSession({}, { headers, timeoutMs: this.client.timeoutMs }),
      true,
      this,
    );
  }
}

async function create(
  client: GenialClient,
  deviceId: string,
  displayName: string,
): Promise<Session> {
  const api = createClient(PlayerService, client.transport);
  const made = await client.call(
    () => api.createSession({ deviceId, displayName }, { timeoutMs: client.timeoutMs }),
    false,
  );
  if (made.session === undefined) {
    throw new GenialError(Code.Internal, "", "CreateSession answered without a session");
  }
  return made.session;
}
