/**
 * A first game with the TypeScript SDK: a dice game against the service's greedy bot, over
 * the REST/JSON gateway (what a browser uses). Run a server (`genial serve`), then
 * `npx tsx examples/first-move.ts`; GENIAL_HTTP_URL names another gateway. For gRPC from
 * Node, take the client from `connectGrpc("http://localhost:50051")` ("genial-client/node").
 */
import { GenialClient } from "../src/index.js";

const client = GenialClient.rest(process.env.GENIAL_HTTP_URL ?? "http://localhost:8080");
const game = await client.create("dice", { bots: { 1: "greedy" } });
const seat = await client.join(game.gameId, "Ada");
console.log(`game ${game.gameId}: you are seat ${seat.seat}`);

// Follow the game (the watch replays it from the start, then goes on live, and ends with
// the game); on your turn, as the game is now, pick one of the legal moves.
for await (const update of seat.watch(0n)) {
  if (update.view?.toMove !== seat.seat || update.version < seat.version) {
    continue;
  }
  const moves = await seat.legalMoves();
  if (moves.length > 0) {
    const made = await seat.move(moves[Math.floor(Math.random() * moves.length)]);
    console.log(`move ${made.version}: ${made.events.length} events`);
  }
}

for (const standing of (await seat.view()).standings) {
  console.log(`seat ${standing.seat}: rank ${standing.rank}, ${standing.points} points`);
}
