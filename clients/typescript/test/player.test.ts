/**
 * Players in the TypeScript SDK against a real `genial serve`, over gRPC and REST: a guest
 * signs in again on another client and finds its game, hears its turn, finishes, and plays a
 * rematch; a session ended elsewhere is replaced by signing in again; the resume example
 * carries on after a restart.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";

import {
  GameStatus,
  GenialClient,
  GenialError,
  PlayerEventType,
  type PlayerEvent,
  type PlayerSession,
  type Seat,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { startServer, type Server } from "./server.js";

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

function deviceId(): string {
  return randomBytes(24).toString("base64url");
}

/** Plays the seat's moves while it is its turn. */
async function playTurn(seat: Seat): Promise<void> {
  for (let moves = await seat.legalMoves(); moves.length > 0; moves = await seat.legalMoves()) {
    await seat.move(moves[Math.floor(Math.random() * moves.length)], { expectedVersion: null });
  }
}

/** Events of the player's watch, gathered until `stop` aborts. */
function gather(me: PlayerSession, stop: AbortController): PlayerEvent[] {
  const events: PlayerEvent[] = [];
  void (async () => {
    for await (const answer of me.watch({ signal: stop.signal })) {
      if (answer.answer.case === "event") {
        events.push(answer.answer.value);
      }
    }
  })();
  return events;
}

async function until(found: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!found()) {
    assert.ok(Date.now() < deadline, "not in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function suite(transport: string, connect: (server: Server) => [GenialClient, () => void]) {
  describe(`players over ${transport}`, () => {
    test("a guest comes back on another client, finishes its game and plays a rematch", async () => {
      const id = deviceId();
      const [first, closeFirst] = connect(server);
      const game = await first.create("dice", { bots: { 1: "greedy" } });
      const before = await first.signInAsGuest(id, "Ada");
      assert.equal((await before.join(game.gameId)).seat, 0);
      closeFirst();

      const [client, close] = connect(server);
      try {
        const me = await client.signInAsGuest(id);
        assert.equal(me.playerId, before.playerId);
        const listed = [];
        for await (const mine of me.myGames()) {
          listed.push(mine);
        }
        assert.deepEqual(
          listed.map((g) => g.gameId),
          [game.gameId],
        );
        const seat = me.seat(listed[0]);
        const stop = new AbortController();
        const events = gather(me, stop);
        try {
          while ((await seat.view()).status !== GameStatus.FINISHED) {
            await playTurn(seat);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          await until(() => events.some((e) => e.type === PlayerEventType.GAME_OVER));
          assert.ok(events.some((e) => e.type === PlayerEventType.YOUR_TURN && e.version > 0n));
          const again = await me.rematch(game.gameId);
          assert.notEqual(again.gameId, game.gameId);
          assert.equal(again.seat, 0);
          await until(() => events.some((e) => e.type === PlayerEventType.REMATCH_OFFERED));
          assert.equal((await again.view()).status, GameStatus.PLAYING);
        } finally {
          stop.abort();
        }
      } finally {
        close();
      }
    });

    test("a session ended elsewhere signs in again by the device id", async () => {
      const [client, close] = connect(server);
      try {
        const me = await client.signInAsGuest(deviceId(), "Ada");
        const elsewhere = await (
          await import("../src/player.js")
        ).PlayerSession.resume(client, me.refreshToken);
        await elsewhere.signOut();
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal((await me.profile())?.displayName, "Ada");
        assert.equal((await me.rename("Ada L."))?.displayName, "Ada L.");
      } finally {
        close();
      }
    });

    test("a player's webhook is refused where the service allows no hosts", async () => {
      const [client, close] = connect(server);
      try {
        const me = await client.signInAsGuest(deviceId(), "Ada");
        await assert.rejects(me.setWebhook("https://push.example.com/genial"), (err) => {
          assert.ok(err instanceof GenialError);
          assert.equal(err.reason, "WEBHOOKS_OFF");
          return true;
        });
        assert.equal(await me.setWebhook(""), ""); // removing one is always allowed
      } finally {
        close();
      }
    });
  });
}

suite("gRPC", (server) => {
  const { client, close } = connectGrpc(server.grpcUrl);
  return [client, close];
});
suite("REST", (server) => [GenialClient.rest(server.httpUrl), () => {}]);

test("the resume example carries on after a restart", async () => {
  const example = new URL("../examples/resume.ts", import.meta.url).pathname;
  const state = join(mkdtempSync(join(tmpdir(), "genial-")), "device-id");
  const run = async (moves?: number) =>
    (
      await promisify(execFile)(process.execPath, ["--import", "tsx", example], {
        env: {
          ...process.env,
          GENIAL_HTTP_URL: server.httpUrl,
          GENIAL_STATE: state,
          ...(moves ? { GENIAL_MOVES: `${moves}` } : {}),
        },
        timeout: 120_000,
      })
    ).stdout;
  const first = await run(3);
  assert.match(first, /^new game (\S+) as seat 0/);
  assert.match(first, /stopping after/);
  const gameId = first.split(" ")[2];
  const second = await run();
  assert.ok(second.startsWith(`resumed game ${gameId} as seat 0`), second);
  assert.ok(second.trim().endsWith("game over"), second);
});

test("a player's watch refused by a rate limit connects again once allowed", async () => {
  const limited = await startServer(["--rate-limit-token", "5"]);
  // Refusals reach the caller instead of being waited out by the call.
  const { client, close } = connectGrpc(limited.grpcUrl, { retry: { maxRateLimitWaitMs: 0 } });
  const stop = new AbortController();
  try {
    const me = await client.signInAsGuest(deviceId(), "Ada");
    let refused: unknown;
    for (let call = 0; call < 10 && refused === undefined; call++) {
      refused = await me.profile().then(
        () => undefined,
        (err: unknown) => err,
      );
    }
    assert.ok(refused instanceof GenialError);
    const asked = refused.retryAfterMs;
    assert.ok(asked !== undefined && asked > 0);
    const refusedAt = Date.now();
    const first = await me.watch({ signal: stop.signal }).next();
    assert.equal(first.value?.answer.case, "games");
    assert.ok(Date.now() - refusedAt >= asked - 50, "not before the wait the service asked");
  } finally {
    stop.abort();
    close();
    limited.stop();
  }
});
