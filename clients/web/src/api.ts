/**
 * The client of the API, and what this browser keeps: the seats it holds (their tokens),
 * the seed commitments it saw, and the player's name. The API is the page's own origin,
 * unless the page names another in <meta name="genial-api"> (a client hosted elsewhere,
 * which the server must then allow in its cors_origins).
 */
import { GenialClient, GenialError, Code } from "genial-client";

import type { KindName } from "./names.js";

function apiBase(): string {
  const named = document.querySelector<HTMLMetaElement>(
    'meta[name="genial-api"]',
  )?.content;
  return named || location.origin;
}

export const client = GenialClient.rest(apiBase(), {
  // A player waits for a reconnect: give up on no server, but never wait long between tries.
  watch: { maxBackoffMs: 4000 },
});

/** A seat this browser holds: enough to come back to the game after a reload. */
export interface HeldSeat {
  gameId: string;
  kind: KindName;
  seat: number;
  token: string;
  name: string;
  joinedAt: number;
}

/** The seed's SHA-256 as this browser first saw it, published when the game was created. */
export interface Commitment {
  seedSha256: string;
  seenAt: number;
}

function read<T>(key: string): Record<string, T> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(key) ?? "{}");
    return parsed !== null && typeof parsed === "object"
      ? (parsed as Record<string, T>)
      : {};
  } catch {
    return {};
  }
}

function write<T>(key: string, value: Record<string, T>): void {
  localStorage.setItem(key, JSON.stringify(value));
}

const SEATS = "genial.seats";
const COMMITMENTS = "genial.commitments";
const NAME = "genial.name";

export const seats = {
  all(): HeldSeat[] {
    return Object.values(read<HeldSeat>(SEATS)).sort(
      (a, b) => b.joinedAt - a.joinedAt,
    );
  },
  get(gameId: string): HeldSeat | undefined {
    return read<HeldSeat>(SEATS)[gameId];
  },
  put(seat: HeldSeat): void {
    write(SEATS, { ...read<HeldSeat>(SEATS), [seat.gameId]: seat });
  },
  forget(gameId: string): void {
    const held = read<HeldSeat>(SEATS);
    delete held[gameId];
    write(SEATS, held);
  },
};

export const commitments = {
  get(gameId: string): Commitment | undefined {
    return read<Commitment>(COMMITMENTS)[gameId];
  },
  /** Keeps the first one seen: a later one could come from a server that changed it. */
  saw(gameId: string, seedSha256: string): void {
    const all = read<Commitment>(COMMITMENTS);
    if (seedSha256 && all[gameId] === undefined) {
      write(COMMITMENTS, {
        ...all,
        [gameId]: { seedSha256, seenAt: Date.now() },
      });
    }
  },
};

/** Takes a seat of `gameId` (the first open one), keeps it, and opens the game's table. */
export async function joinAndOpen(
  gameId: string,
  kind: KindName,
  name: string,
): Promise<void> {
  const seat = await client.join(gameId, name);
  if (typeof seat.token !== "string") {
    throw new Error("a seat taken without a session has a seat token");
  }
  seats.put({
    gameId,
    kind,
    seat: seat.seat,
    token: seat.token,
    name,
    joinedAt: Date.now(),
  });
  location.hash = `#/game/${encodeURIComponent(gameId)}`;
}

export const playerName = {
  get: (): string => localStorage.getItem(NAME) ?? "",
  set: (name: string): void => localStorage.setItem(NAME, name),
};

/** What went wrong, for people: the SDK's error by its code and reason. */
export function describe(
  err: unknown,
  t: {
    errors: {
      corsRefused(p: string, s: string): string;
      unreachable: string;
      notFound: string;
    };
  },
): string {
  const error = GenialError.from(err);
  if (error.reason === "CORS_REFUSED") {
    return t.errors.corsRefused(
      error.metadata.page ?? "",
      error.metadata.server ?? "",
    );
  }
  if (error.code === Code.Unavailable) {
    return t.errors.unreachable;
  }
  if (error.code === Code.NotFound) {
    return t.errors.notFound;
  }
  return error.message;
}
