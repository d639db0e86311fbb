/**
 * One game as the page follows it: the latest view, every event in the order it happened
 * (each once, kept by version), the state of the connection, and for a seated player the
 * legal moves of the view shown, with a way to make one.
 */
import {
  Code,
  GameStatus,
  GenialError,
  type Event,
  type GameView,
  type Move,
  type MoveInit,
} from "genial-client";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import { client, commitments, describe, type HeldSeat } from "./api.js";
import { useTexts } from "./i18n/index.js";

/** One event of the game: the move's version and its place among the move's events. */
export interface Logged {
  key: string;
  version: bigint;
  event: Event;
}

export type Connection =
  | { state: "connecting" | "live" | "over" }
  | { state: "reconnecting"; inMs: number };

export interface Game {
  view: GameView | undefined;
  log: Logged[];
  connection: Connection;
  /** The legal moves of this seat at the version shown (empty: not its turn). */
  moves: Move[];
  /** Why the game cannot be shown, or why the last move was refused. */
  error: string | undefined;
  move(move: MoveInit): Promise<void>;
}

const NO_MOVES: Move[] = []; // one array, so that an empty list is the same from render to render

export function useGame(gameId: string, held: HeldSeat | undefined): Game {
  const t = useTexts();
  const [view, setView] = useState<GameView>();
  const [log, setLog] = useState<Logged[]>([]);
  const [connection, setConnection] = useState<Connection>({
    state: "connecting",
  });
  const [legal, setLegal] = useState<{ version: bigint; moves: Move[] }>();
  const [error, setError] = useState<string>();
  const latest = useRef(-1n); // the version the game was at when the page opened it
  const token = held?.token;

  useEffect(() => {
    const stop = new AbortController();
    setView(undefined);
    setLog([]);
    setLegal(undefined);
    setError(undefined);
    void (async () => {
      try {
        const now = await client.view(gameId, token);
        commitments.saw(gameId, now.seedSha256);
        latest.current = now.version;
        setView(now);
        let seen = -1n; // joins all have version 0: keep them all, then each move once
        const updates = client.watch(gameId, {
          fromVersion: 0n,
          token,
          signal: stop.signal,
          onReconnect: ({ delayMs }) =>
            setConnection({ state: "reconnecting", inMs: delayMs }),
          onConnected: () => setConnection({ state: "live" }),
        });
        for await (const update of updates) {
          if (update.version > 0n && update.version <= seen) {
            continue;
          }
          seen = update.version;
          const entries = update.events.map((event, i) => ({
            key: `${update.version}.${i}.${event.event.case}`,
            version: update.version,
            event,
          }));
          setLog((log) => [...log, ...entries]);
          if (update.view) {
            const fresh = update.view;
            setView((shown) =>
              shown && shown.version > fresh.version ? shown : fresh,
            );
          }
        }
        setConnection({ state: "over" });
      } catch (err) {
        if (!stop.signal.aborted) {
          setError(describe(err, t));
        }
      }
    })();
    return () => stop.abort();
    // The texts only word errors: a language switch must not reopen the game.
  }, [gameId, token]);

  const version = view?.version;
  const myTurn =
    held !== undefined &&
    view?.status === GameStatus.PLAYING &&
    view.toMove === held.seat &&
    view.version >= latest.current;
  useEffect(() => {
    if (!myTurn || token === undefined || version === undefined) {
      return;
    }
    let current = true;
    client.legalMoves(gameId, token).then(
      (answer) =>
        current && setLegal({ version: answer.version, moves: answer.moves }),
      (err: unknown) => current && setError(describe(err, t)),
    );
    return () => {
      current = false;
    };
  }, [gameId, token, myTurn, version]);

  const move = useCallback(
    async (chosen: MoveInit) => {
      if (token === undefined || version === undefined) {
        return;
      }
      setLegal(undefined); // one move per view: the next list comes with the next view
      try {
        const made = await client.move(gameId, token, chosen, {
          expectedVersion: version,
        });
        const fresh = made.view;
        if (fresh) {
          setView((shown) =>
            shown && shown.version > fresh.version ? shown : fresh,
          );
        }
        setError(undefined);
      } catch (err) {
        const refused = GenialError.from(err);
        const stale =
          refused.code === Code.Aborted && refused.reason === "STALE_VERSION";
        setError(stale ? t.table.stale : t.table.moveFailed(describe(err, t)));
      }
    },
    [gameId, token, version, t],
  );

  const moves =
    legal !== undefined && legal.version === version ? legal.moves : NO_MOVES;
  return { view, log, connection, moves, error, move };
}
