/**
 * The TypeScript SDK against a real `genial serve`: whole games of every kind over gRPC
 * (connect-node) and over the REST/JSON gateway (fetch and Server-Sent Events).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";

import {
  Code,
  GameStatus,
  GenialClient,
  GenialError,
  type GameView,
  type Kind,
  type Seat,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { startServer, type Server } from "./server.js";

const KINDS: Kind[] = ["cards", "dice", "tiles"];

/** A player as a program would write one: follow the game and move when it is this seat's
 * turn, until the game is over. Returns the last view the watch showed. */
async function playFromWatch(seat: Seat): Promise<GameView | undefined> {
  let view: GameView | undefined;
  for await (const update of seat.watch(0n)) {
    view = update.view;
    // The watch first replays what happened before; act only on the game as it is now.
    if (view?.toMove !== seat.seat || update.version < seat.version) {
      continue;
    }
    const moves = await seat.legalMoves();
    if (moves.length > 0) {
      await seat.move(moves[Math.floor(Math.random() * moves.length)]);
    }
  }
  return view;
}

async function spectate(client: GenialClient, gameId: string): Promise<bigint[]> {
  const versions: bigint[] = [];
  for await (const update of client.watch(gameId)) {
    versions.push(update.version);
  }
  return versions;
}

let server: Server;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

/**
 * The same checks over each transport. Over gRPC two players share each game; over REST, as
 * in a browser, one player plays against a bot (which also keeps the slower transport's
 * run short).
 */
function suite(
  transport: string,
  humans: number,
  connectClient: (server: Server) => [GenialClient, () => void],
) {
  describe(`over ${transport}`, () => {
    let client: GenialClient;
    let close: () => void;

    before(() => {
      [client, close] = connectClient(server);
    });
    after(() => close());

    for (const kind of KINDS) {
      const players = humans === 2 ? "two players" : "a player against a bot";
      test(`${players} and a spectator follow a whole game of ${kind}`, async () => {
        const game = await client.create(kind, { bots: humans === 1 ? { 1: "random" } : {} });
        const watching = spectate(client, game.gameId);
        const seats: Seat[] = [];
        for (const name of ["Ada", "Grace"].slice(0, humans)) {
          seats.push(await client.join(game.gameId, name));
        }
        assert.deepEqual(
          seats.map((s) => s.seat),
          [0, 1].slice(0, humans),
        );

        const finals = await Promise.all(seats.map(playFromWatch));
        const versions = await watching;

        for (const [i, final] of finals.entries()) {
          assert.equal(final?.status, GameStatus.FINISHED);
          assert.equal(final?.viewer, i);
          assert.deepEqual((await seats[i].view()).standings, final?.standings);
        }
        // One entry per seat taken (at version 0), then every move exactly once, in order.
        const last = finals[0]?.version ?? 0n;
        const moves = Array.from({ length: Number(last) }, (_, i) => BigInt(i + 1));
        assert.deepEqual(versions, [...Array<bigint>(humans).fill(0n), ...moves]);
        const history = await client.history(game.gameId);
        assert.equal(BigInt(history.entries.length), last);
        assert.notEqual(history.seed, "");
      });
    }

    test("a move chosen from an outdated view is refused with the reason", async () => {
      const game = await client.create("dice", { bots: { 1: "random" } });
      const seat = await client.join(game.gameId, "Ada", 0);
      const [roll] = await seat.legalMoves();
      await seat.move(roll, { expectedVersion: null, requestId: "roll" });
      const replayed = await seat.move(roll, { expectedVersion: 0n, requestId: "roll" });
      assert.equal(replayed.version, 1n, "the same request id is applied once");
      const stale = await seat.move(roll, { expectedVersion: 0n }).catch((err: unknown) => err);
      assert.ok(stale instanceof GenialError);
      assert.equal(stale.code, Code.Aborted);
      assert.equal(stale.reason, "STALE_VERSION");
      assert.deepEqual(stale.metadata, { current_version: "1" });
    });

    test("read masks leave out what is not asked for", async () => {
      const game = await client.create("dice", { bots: { 1: "random" } });
      const seat = await client.join(game.gameId, "Ada", 0);
      const [roll] = await seat.legalMoves();
      const made = await seat.move(roll, { readMask: ["events"] });
      assert.equal(made.view, undefined);
      assert.ok(made.events.length > 0);
      assert.equal(made.version, 1n, "a seat's masked move keeps the version");
      const view = await client.view(game.gameId, seat.token, { readMask: ["version", "dice"] });
      assert.equal(view.version, 1n);
      assert.ok(view.table.case === "dice");
      assert.deepEqual(view.players, []);
      const updates = seat.watch(0n, { readMask: ["events"] });
      const first = await updates.next();
      assert.ok(!first.done);
      assert.equal(first.value.view, undefined);
      assert.ok(first.value.events.length > 0);
      await updates.return(undefined);
      const refused = await client
        .view(game.gameId, undefined, { readMask: ["nope"] })
        .catch((err: unknown) => err);
      assert.ok(refused instanceof GenialError);
      assert.equal(refused.code, Code.InvalidArgument);
      assert.equal(refused.reason, "BAD_READ_MASK");
    });

    test("refusals carry the service's reason", async () => {
      const missing = await client.join("nosuchgame00000x", "Ada").catch((err: unknown) => err);
      assert.ok(missing instanceof GenialError);
      assert.equal(missing.code, Code.NotFound);
      assert.equal(missing.reason, "GAME_NOT_FOUND");
    });

    test("the lobby is read page by page", async () => {
      const created = new Set<string>();
      for (let i = 0; i < 3; i++) {
        created.add((await client.create("tiles", { seats: 3 })).gameId);
      }
      const listed = new Set<string>();
      for await (const game of client.games("tiles", 2)) {
        listed.add(game.gameId);
      }
      assert.ok([...created].every((id) => listed.has(id)));
    });
  });
}

suite("gRPC", 2, (server) => {
  const { client, close } = connectGrpc(server.grpcUrl);
  return [client, close];
});
suite("REST", 1, (server) => [GenialClient.rest(server.httpUrl), () => {}]);

test("a rate-limited call waits for retry_after, or throws when told not to wait", async () => {
  const limited = await startServer(["--rate-limit-token", "20"]);
  const grpc = connectGrpc(limited.grpcUrl);
  const rest = GenialClient.rest(limited.httpUrl);
  try {
    const seats = await Promise.all(
      [grpc.client, rest].map(async (client) => {
        const game = await client.create("dice", { bots: { 1: "random" } });
        return client.join(game.gameId, "Ada", 0);
      }),
    );
    // The service counts in windows of 10 s: start early in one, so that 30 reads with one
    // token (over a limit of 20) all fall in it, and the 21st waits for the next.
    const phase = Date.now() % 10_000;
    if (phase > 6_000) {
      await sleep(10_100 - phase);
    }
    await Promise.all(
      seats.map(async (seat, i) => {
        const started = Date.now();
        for (let read = 0; read < 30; read++) {
          await seat.view();
        }
        assert.ok(Date.now() - started >= 500, `${["gRPC", "REST"][i]}: the reads waited`);
      }),
    );
    // Now early in a window again: 30 reads of a client told not to wait.
    const impatient = GenialClient.rest(limited.httpUrl, { retry: { maxRateLimitWaitMs: 0 } });
    const game = await impatient.create("dice", { bots: { 1: "random" } });
    const seat = await impatient.join(game.gameId, "Ada", 0);
    let refused: unknown;
    for (let read = 0; read < 30 && refused === undefined; read++) {
      refused = await seat.view().then(
        () => undefined,
        (err: unknown) => err,
      );
    }
    assert.ok(refused instanceof GenialError);
    assert.equal(refused.code, Code.ResourceExhausted);
    assert.equal(refused.reason, "RATE_LIMITED");
    assert.ok(Number(refused.metadata.retry_after) >= 1);
  } finally {
    grpc.close();
    await limited.stop();
  }
});

test("the README's first game runs", async () => {
  const example = new URL("../examples/first-move.ts", import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", example], {
    env: { ...process.env, GENIAL_HTTP_URL: server.httpUrl },
    timeout: 60_000,
  });
  assert.match(stdout, /you are seat 0/);
  assert.match(stdout, /seat 1: rank \d/);
});
