/**
 * `runBot` against a real `genial serve`, over gRPC and REST: a guest's bot asks for a rated
 * game, is matched with a built-in bot, plays it to the end and stops; its rating counts it.
 * A move costs two calls, and a bot refused by the rate limit waits the retry_after the
 * service sends.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";

import { createClient, type Transport } from "@connectrpc/connect";

import {
  GameKind,
  GenialClient,
  GenialError,
  MatchService,
  runBot,
  type ClientOptions,
  type RunBotOptions,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { startServer, type Server } from "./server.js";

let server: Server;
let limited: Server;
before(async () => {
  [server, limited] = await Promise.all([
    startServer(["--match-bots-seconds", "1"]),
    startServer(["--match-bots-seconds", "1", "--rate-limit-token", "15"]),
  ]);
});
after(() => Promise.all([server.stop(), limited.stop()]));

/** A call as the bot's transport carried it: when it began, and when it was refused by the
 * rate limit (with the wait asked for; a stream refused once it is read is not seen here). */
interface Call {
  method: string;
  at: number;
  refused?: { at: number; retryAfterMs: number };
}

/** `transport`, logging each call it carries in `calls`. */
function logged(transport: Transport, calls: Call[]): Transport {
  const log = (method: string) => {
    const call: Call = { method, at: Date.now() };
    calls.push(call);
    return (err: unknown) => {
      const retryAfterMs = GenialError.from(err).retryAfterMs;
      if (retryAfterMs !== undefined) {
        call.refused = { at: Date.now(), retryAfterMs };
      }
      throw err;
    };
  };
  return {
    unary: (method, ...rest) => transport.unary(method, ...rest).catch(log(method.name)),
    stream: (method, ...rest) => transport.stream(method, ...rest).catch(log(method.name)),
  };
}

type Connect = (server: Server, options: ClientOptions) => [GenialClient, () => void];

const transports: [string, Connect][] = [
  [
    "gRPC",
    (server, options) => {
      const { client, close } = connectGrpc(server.grpcUrl, options);
      return [client, close];
    },
  ],
  ["REST", (server, options) => [GenialClient.rest(server.httpUrl, options), () => {}]],
];

/** The calls of playing the game, the tickets and the player's watch left out. */
const GAME_METHODS = ["GetGame", "WatchGame", "ListLegalMoves", "MakeMove"];

/** One game of two (rated unless `bot` says otherwise) against a built-in bot on `on`,
 * played by a new guest's random bot over a client with `options`; the calls it made. */
async function playOne(connect: Connect, on: Server, bot: RunBotOptions, options: ClientOptions) {
  const calls: Call[] = [];
  const [plain, close] = connect(on, options);
  const client = new GenialClient(logged(plain.transport, calls), options);
  try {
    const me = await client.signInAsGuest(randomBytes(24).toString("base64url"), "TS bot");
    const random = <T>(legal: T[]) => legal[Math.floor(Math.random() * legal.length)];
    const stats = await runBot(client, me, (_view, legal) => random(legal), {
      ...bot,
      minSeats: 2,
      maxSeats: 2,
      acceptBots: true,
      games: 1,
      signal: AbortSignal.timeout(120_000),
    });
    return { client, me, stats, calls };
  } finally {
    close();
  }
}

for (const [name, connect] of transports) {
  test(`a bot plays a rated game with runBot over ${name}, two calls a move`, async () => {
    const { client, me, stats, calls } = await playOne(
      connect,
      server,
      { kinds: [GameKind.TILES] },
      {},
    );
    assert.equal(stats.games, 1);
    assert.ok(stats.moves > 0);
    const count = (method: string) => calls.filter((c) => c.method === method).length;
    // One read of the game and one watch serve it all; each move is its legal moves and
    // the move.
    assert.deepEqual(
      GAME_METHODS.map((method) => [method, count(method)]),
      [
        ["GetGame", 1],
        ["WatchGame", 1],
        ["ListLegalMoves", stats.moves],
        ["MakeMove", stats.moves],
      ],
    );
    const matches = createClient(MatchService, client.transport);
    const headers = { authorization: `Bearer ${await me.accessToken()}` };
    const ratings = await matches.getRatings({}, { headers });
    assert.deepEqual(
      ratings.ratings.map((r) => [r.kind, r.games]),
      [[GameKind.TILES, 1]],
    );
  });
}

test("a rate-limited bot waits the service's retry_after, over gRPC and REST", async () => {
  // Cards, the shortest game: some 40 calls, more than two windows of the limit (15) allow.
  // One rated, one casual: pools of their own, so that each meets a built-in bot, not the
  // other. The calls themselves do not wait: each refusal reaches the bot's loop.
  const played = await Promise.all(
    transports.map(([, connect], i) =>
      playOne(
        connect,
        limited,
        { kinds: [GameKind.CARDS], rated: i === 0 },
        { retry: { maxRateLimitWaitMs: 0 } },
      ),
    ),
  );
  for (const [i, { stats, calls }] of played.entries()) {
    const name = transports[i][0];
    assert.equal(stats.games, 1, name);
    const game = calls.filter((c) => GAME_METHODS.includes(c.method));
    assert.ok(
      game.some((c) => c.refused !== undefined),
      `${name}: the bot met the rate limit while it played`,
    );
    for (const [j, { method, refused }] of game.entries()) {
      const next = game[j + 1];
      if (refused !== undefined && next !== undefined) {
        const waited = next.at - refused.at;
        // A few ms of slack: timers count from the event loop's clock, a little behind.
        assert.ok(
          waited >= refused.retryAfterMs - 20,
          `${name}: ${method} refused for ${refused.retryAfterMs} ms, then ${next.method} in ${waited} ms`,
        );
      }
    }
  }
});
