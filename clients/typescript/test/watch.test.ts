/**
 * The SDK's watch where the connection breaks and where nothing can stream: a real
 * `genial serve`, reached through a TCP proxy that cuts every connection now and then, and
 * through a fetch that, like React Native's, answers only once the whole body is in.
 */
import assert from "node:assert/strict";
import { createServer, connect, type Server as NetServer, type Socket } from "node:net";
import { after, before, test } from "node:test";

import { GameStatus, GenialClient, streamReader, type Reconnecting } from "../src/index.js";
import { startServer, type Server } from "./server.js";

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

/** Plays `seat` of a game against a bot from its watch; returns the versions it saw. */
async function playAndCount(client: GenialClient, gameId: string): Promise<bigint[]> {
  const seat = await client.join(gameId, "Ada", 0);
  const seen: bigint[] = [];
  let last: GameStatus | undefined;
  for await (const update of seat.watch(0n)) {
    seen.push(update.version);
    last = update.view?.status ?? last;
    if (update.view?.toMove === 0 && update.version >= seat.version) {
      const moves = await seat.legalMoves();
      if (moves.length > 0) {
        await seat.move(moves[0]);
      }
    }
  }
  assert.equal(last, GameStatus.FINISHED);
  return seen;
}

/** 0 for the seat taken, then every move once, in order, up to the game's last. */
async function assertEveryMoveOnce(client: GenialClient, gameId: string, seen: bigint[]) {
  const moves = (await client.history(gameId)).entries.length;
  const expected = [0n, ...Array.from({ length: moves }, (_, i) => BigInt(i + 1))];
  assert.deepEqual(seen, expected);
}

test("without a streaming fetch (as in React Native) the watch polls to the game's end", async () => {
  // React Native has no ReadableStream, and its fetch (whatwg-fetch over XMLHttpRequest)
  // answers once the body is whole, with no `body` to read as it comes.
  const realFetch = globalThis.fetch;
  const requested: string[] = [];
  const bufferingFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    requested.push(String(input));
    const response = await realFetch(input, init);
    const text = await response.text();
    const headers = response.headers;
    const { ok, status } = response;
    return { ok, status, headers, text: async () => text, json: async () => JSON.parse(text) };
  };
  // Node's own fetch needs ReadableStream: it is hidden only while the client looks.
  const saved = globalThis.ReadableStream;
  Reflect.deleteProperty(globalThis, "ReadableStream");
  let client: GenialClient;
  try {
    assert.equal(streamReader(), "none", "no stream reader is detected");
    client = GenialClient.rest(server.httpUrl, {
      fetch: bufferingFetch as unknown as typeof fetch,
      watch: { pollIntervalMs: 50 },
    });
  } finally {
    globalThis.ReadableStream = saved;
  }
  assert.equal(client.watchPolicy.poll, true);
  const game = await client.create("dice", {
    bots: { 1: "random" },
    options: { sections: [1, 1] },
  });
  const seen = await playAndCount(client, game.gameId);
  await assertEveryMoveOnce(client, game.gameId, seen);
  assert.ok(
    requested.every((url) => !url.includes("/events")),
    "the stream is never opened",
  );
});

/** A TCP proxy to `port` whose `cut()` ends every connection through it at once. */
async function cuttingProxy(port: number): Promise<{ url: string; cut(): void; close(): void }> {
  const sockets = new Set<Socket>();
  const proxy: NetServer = createServer((inbound) => {
    const outbound = connect(port, "127.0.0.1");
    for (const [a, b] of [
      [inbound, outbound],
      [outbound, inbound],
    ]) {
      sockets.add(a);
      a.pipe(b);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        sockets.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    url: `http://127.0.0.1:${address.port}`,
    cut: () => sockets.forEach((socket) => socket.destroy()),
    close: () => proxy.close(),
  };
}

test("a watch whose connection is cut reconnects from the last version it saw", async () => {
  const port = Number(new URL(server.httpUrl).port);
  const proxy = await cuttingProxy(port);
  const reconnects: Reconnecting[] = [];
  const client = GenialClient.rest(proxy.url, { watch: { initialBackoffMs: 20 } });
  const spectator = GenialClient.rest(proxy.url, { watch: { initialBackoffMs: 20 } });
  const cutter = setInterval(() => proxy.cut(), 150);
  try {
    const game = await client.create("tiles", {
      bots: { 1: "random" },
      options: { lineLength: 3 },
    });
    const watched: bigint[] = [];
    const watching = (async () => {
      const options = { onReconnect: (r: Reconnecting) => reconnects.push(r) };
      for await (const update of spectator.watch(game.gameId, options)) {
        watched.push(update.version);
        // One cut for sure, whatever the timer: on a quiet machine the game can end before
        // the timer's first.
        if (watched.length === 1) proxy.cut();
      }
    })();
    const seen = await playAndCount(client, game.gameId);
    await watching;
    await assertEveryMoveOnce(client, game.gameId, seen);
    await assertEveryMoveOnce(client, game.gameId, watched);
    assert.ok(reconnects.length > 0, "the spectator's connection was cut and came back");
    assert.ok(reconnects.every((r) => r.error.reason === "NETWORK_ERROR"));
  } finally {
    clearInterval(cutter);
    proxy.close();
  }
});
