/**
 * `runBot`: a bot that plays online, on the ladder (the match service), with a session.
 *
 * It keeps one ticket open per kind (FindMatch), hears of its games on the player's watch,
 * plays every game it sits at (up to `atOnce` at a time) on one watch of it, choosing each
 * move from the view of the version it is made at (a move costs two calls: ListLegalMoves
 * and MakeMove), takes a game up again after errors (after a rate limit, once the service's
 * retry_after has passed), and stops once it finished `games` games (when the games in
 * progress are over) or when `signal` aborts.
 * `choose(view, legalMoves)` gets the API's view and legal moves (the Python SDK's
 * `run_bot` hands the engine's shapes to the built-in bots instead).
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";

import { Seat, type GenialClient } from "./client.js";
import { GenialError } from "./errors.js";
import {
  MatchService,
  TicketStatus,
  type FindMatchRequestSchema,
} from "./gen/genial/v1/match_service_pb.js";
import { PlayerEventType } from "./gen/genial/v1/player_service_pb.js";
import {
  GameKind,
  GameStatus,
  type GameOptions,
  type GameView,
  type Move,
} from "./gen/genial/v1/types_pb.js";
import type { PlayerSession } from "./player.js";
import { sleep } from "./watch.js";

/** A bot's choice: one of the legal moves, given the seat's view. */
export type Choose = (view: GameView, legalMoves: Move[]) => Move | Promise<Move>;

export interface RunBotOptions {
  /** The kinds to play (default dice). */
  kinds?: GameKind[];
  /** Rated games (default true). */
  rated?: boolean;
  minSeats?: number;
  maxSeats?: number;
  acceptBots?: boolean;
  options?: GameOptions;
  /** Games to finish before it stops (default: no bound). */
  games?: number;
  /** Games at a time at most (default 4). */
  atOnce?: number;
  /** Stops the bot at once: it withdraws its tickets and leaves its games. */
  signal?: AbortSignal;
}

/** What a bot did. */
export interface BotStats {
  games: number;
  moves: number;
}

const POLL_MS = 1000;
const RETRY_MS = [500, 10_000] as const;

export async function runBot(
  client: GenialClient,
  me: PlayerSession,
  choose: Choose,
  options: RunBotOptions = {},
): Promise<BotStats> {
  const api = createClient(MatchService, client.transport);
  const call = <T>(run: (headers: HeadersInit) => Promise<T>) => client.call(run, true, me);
  const stats: BotStats = { games: 0, moves: 0 };
  const playing = new Map<string, Promise<void>>();
  const done = new Set<string>();
  const tickets = new Map<GameKind, string>();
  const stop = new AbortController();
  options.signal?.addEventListener("abort", () => stop.abort(), { once: true });
  const enough = () => options.games !== undefined && stats.games >= options.games;
  const asks: MessageInitShape<typeof FindMatchRequestSchema>[] = (
    options.kinds ?? [GameKind.DICE]
  ).map((kind) => ({
    kind,
    minSeats: options.minSeats ?? 2,
    maxSeats: options.maxSeats ?? 4,
    rated: options.rated ?? true,
    acceptBots: options.acceptBots ?? false,
    options: options.options,
  }));

  /** Makes the seat's moves while it is its turn, each chosen from the view of the version
   * it is made at (`known`, then each move's answer; read again when the game moved on
   * meanwhile); whether the game is over. */
  const act = async (seat: Seat, known: GameView | undefined): Promise<boolean> => {
    let view = known;
    for (;;) {
      view ??= await seat.view();
      if (view.status === GameStatus.FINISHED) {
        stats.games++;
        return true;
      }
      if (view.toMove !== seat.seat) {
        return false;
      }
      const legal = await seat.legalMoves();
      if (seat.version !== view.version) {
        view = undefined; // the game moved on since the view
        continue;
      }
      if (legal.length === 0) {
        return false; // played for the seat (resigned, or timed out)
      }
      try {
        const made = await seat.move(await choose(view, legal), { expectedVersion: view.version });
        stats.moves++;
        view = made.view;
      } catch (err) {
        if (GenialError.from(err).reason !== "STALE_VERSION") {
          throw err;
        }
        view = undefined;
      }
    }
  };

  /** Plays one game to its end on one watch of it: acts on each view it brings (a move's
   * answer brings the next view of the bot's own turn), and looks again after errors (a
   * worker gone, a bot that failed; a rate limit for as long as it says). A move costs two
   * calls, its legal moves and the move, which keeps a bot playing many games at once under
   * the per-player rate limit longer. */
  const game = async (gameId: string): Promise<void> => {
    let backoff: number = RETRY_MS[0];
    while (!stop.signal.aborted) {
      // The watch's own signal, so that its listeners go with it rather than pile up on
      // the bot's.
      const watch = new AbortController();
      const end = () => watch.abort();
      stop.signal.addEventListener("abort", end, { once: true });
      try {
        const view = await client.view(gameId, me);
        const seat = new Seat(client, gameId, view.viewer ?? 0, me, view.version);
        if (await act(seat, view)) {
          return;
        }
        for await (const update of seat.watch(seat.version, { signal: watch.signal })) {
          backoff = RETRY_MS[0];
          // Its own moves come back on the watch after their answers did.
          if (update.version > seat.version && (await act(seat, update.view))) {
            return;
          }
        }
      } catch (err) {
        await sleep(Math.max(backoff, askedWait(err)), stop.signal).catch(() => undefined);
        backoff = Math.min(backoff * 2, RETRY_MS[1]);
      } finally {
        stop.signal.removeEventListener("abort", end);
        watch.abort();
      }
    }
  };

  const play = (gameId: string) => {
    if (!playing.has(gameId) && !done.has(gameId)) {
      playing.set(
        gameId,
        game(gameId).finally(() => {
          playing.delete(gameId);
          done.add(gameId);
        }),
      );
    }
  };

  const watching = (async () => {
    try {
      for await (const answer of me.watch({ signal: stop.signal })) {
        if (answer.answer.case === "games") {
          answer.answer.value.games.forEach((g) => play(g.gameId));
        } else if (
          answer.answer.case === "event" &&
          [PlayerEventType.GAME_STARTED, PlayerEventType.YOUR_TURN].includes(
            answer.answer.value.type,
          )
        ) {
          play(answer.answer.value.gameId);
        }
      }
    } catch {
      // stopped
    }
  })();

  const withdraw = async () => {
    for (const [kind, ticketId] of [...tickets]) {
      const got = await call((headers) => api.cancelMatch({ ticketId }, { headers }));
      tickets.delete(kind);
      if (got.ticket?.status === TicketStatus.MATCHED) {
        play(got.ticket.gameId);
      }
    }
  };

  const look = async () => {
    for (const ask of asks) {
      const kind = ask.kind ?? GameKind.DICE;
      const ticketId = tickets.get(kind);
      if (ticketId !== undefined) {
        const got = await call((headers) => api.getMatchTicket({ ticketId }, { headers }));
        if (got.ticket?.status === TicketStatus.WAITING) {
          continue;
        }
        tickets.delete(kind);
        if (got.ticket?.status === TicketStatus.MATCHED) {
          play(got.ticket.gameId);
        }
      }
      const under = stats.games + playing.size;
      if (
        playing.size >= (options.atOnce ?? 4) ||
        (options.games !== undefined && under >= options.games)
      ) {
        continue;
      }
      const found = await call((headers) => api.findMatch(ask, { headers }));
      tickets.set(kind, found.ticket?.ticketId ?? "");
    }
  };

  try {
    while (!stop.signal.aborted) {
      let pause = POLL_MS;
      try {
        if (enough()) {
          await withdraw();
          if (playing.size === 0) {
            break;
          }
        } else {
          await look();
        }
      } catch (err) {
        pause = Math.max(POLL_MS, askedWait(err)); // again at the next look, if allowed then
      }
      await sleep(pause, stop.signal).catch(() => undefined);
    }
  } finally {
    await withdraw().catch(() => undefined);
    stop.abort();
    await Promise.allSettled([watching, ...playing.values()]);
  }
  return stats;
}

/** The milliseconds a rate limit asked the bot to wait after `err` (0 for other errors). */
function askedWait(err: unknown): number {
  return (err instanceof GenialError ? err.retryAfterMs : undefined) ?? 0;
}
