/**
 * `runBot` against a real `genial serve`, over gRPC and REST: a guest's bot asks for a rated
 * game, is matched with a built-in bot, plays it to the end and stops; its rating counts it.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";

import { createClient } from "@connectrpc/connect";

import { GameKind, GenialClient, MatchService, runBot } from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { startServer, type Server } from "./server.js";

let server: Server;
before(async () => {
  server = await startServer(["--match-bots-seconds", "1"]);
});
after(() => server.stop());

const transports: [string, () => [GenialClient, () => void]][] = [
  [
    "gRPC",
    () => {
      const { client, close } = connectGrpc(server.grpcUrl);
      return [client, close];
    },
  ],
  ["REST", () => [GenialClient.rest(server.httpUrl), () => {}]],
];

for (const [name, connect] of transports) {
  test(`a bot plays a rated game with runBot over ${name}`, async () => {
    const [client, close] = connect();
    try {
      const me = await client.signInAsGuest(randomBytes(24).toString("base64url"), "TS bot");
      const stats = await runBot(
        client,
        me,
        (_view, legal) => legal[Math.floor(Math.random() * legal.length)],
        {
          kinds: [GameKind.TILES],
          minSeats: 2,
          maxSeats: 2,
          acceptBots: true,
          games: 1,
          signal: AbortSignal.timeout(120_000),
        },
      );
      assert.equal(stats.games, 1);
      assert.ok(stats.moves > 0);
      const matches = createClient(MatchService, client.transport);
      const headers = { authorization: `Bearer ${await me.accessToken()}` };
      const ratings = await matches.getRatings({}, { headers });
      assert.deepEqual(
        ratings.ratings.map((r) => [r.kind, r.games]),
        [[GameKind.TILES, 1]],
      );
    } finally {
      close();
    }
  });
}
