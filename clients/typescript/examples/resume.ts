/**
 * An app that resumes its games after a restart, with the TypeScript SDK: it signs in as a
 * guest by a device id it keeps (here in a file; in a browser, localStorage), so that the
 * next run, or another device with the same id, is the same player; finds its game with
 * `myGames` (or starts one against the greedy bot); then plays whenever the player's feed
 * says it is its turn, until the game is over. Stop it at any time (or let GENIAL_MOVES stop
 * it) and run it again: it carries on where it was.
 *
 * Run a server (`genial serve`), then `npx tsx examples/resume.ts`; GENIAL_HTTP_URL names
 * another gateway, GENIAL_STATE the file that keeps the device id.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

import { GameStatus, GenialClient, PlayerEventType, type Seat } from "../src/index.js";

const state = process.env.GENIAL_STATE ?? "genial-device-id";
if (!existsSync(state)) {
  writeFileSync(state, randomBytes(24).toString("base64url"));
}
const limit = process.env.GENIAL_MOVES ? Number(process.env.GENIAL_MOVES) : Infinity;

const client = GenialClient.rest(process.env.GENIAL_HTTP_URL ?? "http://localhost:8080");
const me = await client.signInAsGuest(readFileSync(state, "utf8").trim(), "Ada");

let seat: Seat | undefined;
for await (const game of me.myGames()) {
  if (game.status !== GameStatus.FINISHED) {
    seat = me.seat(game);
    console.log(`resumed game ${seat.gameId} as seat ${seat.seat}`);
    break;
  }
}
if (seat === undefined) {
  const game = await client.create("dice", { bots: { 1: "greedy" } });
  seat = await me.join(game.gameId);
  console.log(`new game ${seat.gameId} as seat ${seat.seat}`);
}

/** Plays the seat's moves while it is its turn; how many were made. */
async function myTurn(seat: Seat): Promise<number> {
  let made = 0;
  for (let moves = await seat.legalMoves(); moves.length > 0; moves = await seat.legalMoves()) {
    await seat.move(moves[Math.floor(Math.random() * moves.length)]);
    made++;
  }
  return made;
}

const stop = new AbortController();
let made = 0;
for await (const answer of me.watch({ signal: stop.signal })) {
  const event = answer.answer.case === "event" ? answer.answer.value : undefined;
  if (
    answer.answer.case === "games" ||
    (event?.type === PlayerEventType.YOUR_TURN && event.gameId === seat.gameId)
  ) {
    made += await myTurn(seat);
  }
  if (event?.type === PlayerEventType.GAME_OVER && event.gameId === seat.gameId) {
    for (const standing of event.standings) {
      console.log(`seat ${standing.seat}: rank ${standing.rank}`);
    }
    console.log("game over");
    stop.abort();
  } else if (made >= limit) {
    console.log(`stopping after ${made} moves`);
    stop.abort();
  }
}
