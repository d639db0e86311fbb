/** A game's table: who sits where and whose turn it is, the game itself, and the log. */
import type { JSX } from "preact";
import {
  GameStatus,
  type GameView,
  type Move,
  type MoveInit,
} from "genial-client";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

import { seats } from "./api.js";
import { CardsTable } from "./cards.js";
import { DiceTable } from "./dice.js";
import { useTexts, type Texts } from "./i18n/index.js";
import { kindName, type KindName } from "./names.js";
import { narrate, type Names } from "./narrate.js";
import { TilesTable } from "./tiles.js";
import { useGame, type Connection, type Logged } from "./use-game.js";

/** What every game's table gets. `moves` are the seat's legal moves now (empty when it is
 * not its turn, or for a spectator); `onMove` makes one of them. */
export interface TableProps {
  view: GameView;
  seat: number | undefined;
  moves: Move[];
  onMove: (move: MoveInit) => void;
  names: Names;
}

/** Each game's table, by kind. */
export const TABLES: Record<
  KindName,
  (props: TableProps) => JSX.Element | null
> = {
  cards: CardsTable,
  dice: DiceTable,
  tiles: TilesTable,
};

export function namesOf(t: Texts, view: GameView | undefined): Names {
  return (seat) => view?.players[seat]?.displayName || t.lobby.seat(seat);
}

export function GamePage({ gameId }: { gameId: string }) {
  const t = useTexts();
  const [held] = useState(() => seats.get(gameId));
  const game = useGame(gameId, held);
  const { view } = game;
  const names = namesOf(t, view);
  const kind = view ? kindName(view.kind) : held?.kind;
  const Table = kind && TABLES[kind];

  return (
    <div
      class="game"
      data-version={view?.version.toString()}
      data-status={view?.status}
    >
      <h1 tabIndex={-1}>
        {kind ? t.kindTitle[kind] : t.appName}{" "}
        {kind && <span class="muted">({t.kind(kind)})</span>}
      </h1>
      <ConnectionState connection={game.connection} />
      {game.error && (
        <p class="error" role="alert">
          {game.error}
        </p>
      )}
      {view && (
        <div class="table-area">
          <div class="table-main">
            <Players view={view} names={names} mine={held?.seat} />
            <Prompt view={view} names={names} mine={held?.seat} />
            {Table && (
              <Table
                view={view}
                seat={held?.seat}
                moves={game.moves}
                onMove={game.move}
                names={names}
              />
            )}
            {view.status === GameStatus.FINISHED && (
              <Standings view={view} names={names} gameId={gameId} />
            )}
            <p class="share">
              {t.table.share} <code>{gameId}</code>
            </p>
          </div>
          <Log log={game.log} names={names} />
        </div>
      )}
    </div>
  );
}

function ConnectionState({ connection }: { connection: Connection }) {
  const t = useTexts();
  const text =
    connection.state === "reconnecting"
      ? t.connection.reconnecting(Math.ceil(connection.inMs / 1000))
      : t.connection[connection.state];
  return (
    <p
      class={`connection ${connection.state}`}
      role="status"
      data-state={connection.state}
    >
      {text}
    </p>
  );
}

/** The game as a seat sees it: `mine` is the page's seat, undefined for a spectator. */
interface SeatProps {
  view: GameView;
  names: Names;
  mine: number | undefined;
}

function Players({ view, names, mine }: SeatProps) {
  const t = useTexts();
  const rounds = view.options?.rounds ?? 1;
  return (
    <section class="players" aria-label={t.table.round(view.round, rounds)}>
      <p class="round">{t.table.round(view.round, rounds)}</p>
      <ul>
        {view.players.map((p) => (
          <li
            key={p.seat}
            class={view.toMove === p.seat ? "to-move" : undefined}
            aria-current={view.toMove === p.seat ? "true" : undefined}
          >
            <span class="name">{t.table.seatOf(names(p.seat), p.seat)}</span>
            {p.seat === mine && <span class="badge">{t.table.you}</span>}
            <BotBadge t={t} bot={p.bot} name={names(p.seat)} />
            {p.botAccount && <span class="badge">{t.table.botAccount}</span>}
            {p.away && <span class="badge">{t.table.away}</span>}
            {view.toMove === p.seat && (
              <strong class="badge turn">{t.table.toMove}</strong>
            )}
            {rounds > 1 && (
              <span class="points">
                {t.table.points(view.points[p.seat] ?? 0)}
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

const STRENGTHS = ["", "random", "greedy", "strong"];

/** Who plays a bot's seat, in the page's language (unless its name says so already). */
function BotBadge({
  t,
  bot,
  name,
}: {
  t: Texts;
  bot: number | undefined;
  name: string;
}) {
  const strength = bot === undefined ? undefined : STRENGTHS[bot];
  const text = strength && t.lobby.bot(t.lobby.strengths[strength] ?? strength);
  return text && text !== name ? <span class="badge">{text}</span> : null;
}

function Prompt({ view, names, mine }: SeatProps) {
  const t = useTexts();
  const left = useCountdown(view);
  let text: string;
  if (view.status === GameStatus.WAITING) {
    text = t.table.waitingForPlayers(
      view.players.filter((p) => !p.joined).length,
    );
  } else if (view.status === GameStatus.FINISHED) {
    text = t.connection.over;
  } else if (view.toMove === mine && mine !== undefined) {
    text = t.table.yourTurn;
  } else {
    text = t.table.waitingFor(names(view.toMove ?? 0));
  }
  return (
    <div class="prompt" aria-live="polite">
      <p
        class={
          view.toMove === mine && mine !== undefined ? "your-turn" : undefined
        }
        data-testid="prompt"
      >
        {text}
      </p>
      {mine === undefined && view.status !== GameStatus.FINISHED && (
        <p class="muted">{t.table.spectating}</p>
      )}
      {left !== undefined && <p class="timer">{t.table.timer(left)}</p>}
    </div>
  );
}

/** Seconds left on the turn timer, ticking; undefined without one. */
function useCountdown(view: GameView): number | undefined {
  const deadline = view.turnDeadline
    ? Number(view.turnDeadline.seconds) * 1000 + view.turnDeadline.nanos / 1e6
    : undefined;
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (deadline === undefined) {
      return;
    }
    const tick = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(tick);
  }, [deadline]);
  return deadline === undefined
    ? undefined
    : Math.max(0, Math.round((deadline - now) / 1000));
}

function Standings({
  view,
  names,
  gameId,
}: {
  view: GameView;
  names: Names;
  gameId: string;
}) {
  const t = useTexts();
  const rows = [...view.standings].sort(
    (a, b) => a.rank - b.rank || a.seat - b.seat,
  );
  return (
    <section class="standings" aria-labelledby="standings">
      <h2 id="standings">{t.table.standings}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">{t.table.rank}</th>
            <th scope="col">{t.table.player}</th>
            <th scope="col">{t.table.pointsColumn}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.seat} data-seat={s.seat}>
              <td>{s.rank}</td>
              <th scope="row">{names(s.seat)}</th>
              <td>{s.points}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <a href={`#/history/${encodeURIComponent(gameId)}`}>
          {t.table.history}
        </a>
      </p>
    </section>
  );
}

function Log({ log, names }: { log: Logged[]; names: Names }) {
  const t = useTexts();
  const list = useRef<HTMLOListElement>(null);
  useLayoutEffect(() => {
    const box = list.current;
    if (box) {
      box.scrollTop = box.scrollHeight;
    }
  }, [log.length]);
  return (
    <section class="log" aria-labelledby="log">
      <h2 id="log">{t.table.log}</h2>
      <ol
        ref={list}
        aria-live="polite"
        aria-relevant="additions"
        tabIndex={0}
        aria-labelledby="log"
      >
        {log.map((entry) => (
          <li key={entry.key} data-key={entry.key}>
            {narrate(t, entry.event, names)}
          </li>
        ))}
      </ol>
    </section>
  );
}
