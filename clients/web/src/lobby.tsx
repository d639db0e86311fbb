/** The lobby: your name, your games, a new game, and the open games to join or watch. */
import { GameStatus, type GameSummary, type GameView } from "genial-client";
import { useEffect, useRef, useState } from "preact/hooks";

import {
  client,
  describe,
  joinAndOpen,
  playerName,
  seats,
  type HeldSeat,
} from "./api.js";
import { CreateGame } from "./create.js";
import { useTexts, type Texts } from "./i18n/index.js";
import { kindName, type KindName } from "./names.js";

export function Lobby() {
  const t = useTexts();
  const [name, setName] = useState(playerName.get);
  const [error, setError] = useState<string>();
  const nameField = useRef<HTMLInputElement>(null);

  /** The name to play under, or undefined (and the field focused) when there is none. */
  const needName = (): string | undefined => {
    const trimmed = name.trim();
    if (!trimmed) {
      setError(t.lobby.nameNeeded);
      nameField.current?.focus();
      return undefined;
    }
    playerName.set(trimmed);
    return trimmed;
  };
  const attempt = (work: () => Promise<void>) =>
    work().catch((err: unknown) => setError(describe(err, t)));

  return (
    <div class="lobby">
      <h1 tabIndex={-1}>{t.lobby.title}</h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p class="field">
        <label for="player-name">{t.lobby.yourName}</label>
        <input
          id="player-name"
          ref={nameField}
          value={name}
          maxLength={40}
          autoComplete="nickname"
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </p>
      <MyGames />
      <CreateGame needName={needName} attempt={attempt} />
      <OpenGames
        onError={(err) => setError(describe(err, t))}
        onJoin={(game) =>
          attempt(async () => {
            const player = needName();
            if (player) {
              await joinAndOpen(game.gameId, kindName(game.kind), player);
            }
          })
        }
      />
    </div>
  );
}

/** The games whose seats this browser holds, with "your turn" where it is. */
function MyGames() {
  const t = useTexts();
  const [held, setHeld] = useState(seats.all);
  const [views, setViews] = useState<Record<string, GameView | null>>({});

  useEffect(() => {
    let current = true;
    for (const seat of held.slice(0, 20)) {
      client.view(seat.gameId, seat.token).then(
        (view) => current && setViews((v) => ({ ...v, [seat.gameId]: view })),
        () => current && setViews((v) => ({ ...v, [seat.gameId]: null })),
      );
    }
    return () => {
      current = false;
    };
  }, [held]);

  return (
    <section aria-labelledby="my-games">
      <h2 id="my-games">{t.lobby.myGames}</h2>
      {held.length === 0 ? (
        <p>{t.lobby.noGames}</p>
      ) : (
        <ul class="games">
          {held.map((seat) => (
            <li key={seat.gameId}>
              <MyGame
                seat={seat}
                view={views[seat.gameId]}
                t={t}
                onForget={() => {
                  seats.forget(seat.gameId);
                  setHeld(seats.all());
                }}
              />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function MyGame({
  seat,
  view,
  t,
  onForget,
}: {
  seat: HeldSeat;
  view: GameView | null | undefined;
  t: Texts;
  onForget: () => void;
}) {
  const status =
    view === null
      ? t.errors.notFound
      : view === undefined
        ? ""
        : view.status === GameStatus.WAITING
          ? t.lobby.waiting
          : view.status === GameStatus.FINISHED
            ? t.lobby.finished
            : t.lobby.playing;
  const yourTurn =
    view?.status === GameStatus.PLAYING && view.toMove === seat.seat;
  const id = encodeURIComponent(seat.gameId);
  return (
    <>
      <a href={`#/game/${id}`}>
        {t.kindTitle[seat.kind]}{" "}
        <span class="muted">
          ({t.kind(seat.kind)}, {seat.name})
        </span>
      </a>{" "}
      <span class="status">{status}</span>
      {yourTurn && <strong class="badge your-turn">{t.lobby.yourTurn}</strong>}
      {view?.status === GameStatus.FINISHED && (
        <a href={`#/history/${id}`}>{t.lobby.history}</a>
      )}
      <button type="button" class="link" onClick={onForget}>
        {t.lobby.forget}
      </button>
    </>
  );
}

const KINDS: KindName[] = ["cards", "dice", "tiles"];

function OpenGames({
  onJoin,
  onError,
}: {
  onJoin: (game: GameSummary) => void;
  onError: (err: unknown) => void;
}) {
  const t = useTexts();
  const [kind, setKind] = useState<KindName | "">("");
  const [games, setGames] = useState<GameSummary[]>();
  const [refreshed, setRefreshed] = useState(0);

  useEffect(() => {
    let current = true;
    void (async () => {
      const found: GameSummary[] = [];
      try {
        for await (const game of client.games(kind || undefined, 20)) {
          found.push(game);
          if (found.length >= 20) {
            break;
          }
        }
      } finally {
        if (current) {
          setGames(found);
        }
      }
    })().catch((err: unknown) => current && onError(err));
    return () => {
      current = false;
    };
    // onError is a new function at each render of the lobby; the list follows kind only.
  }, [kind, refreshed]);

  return (
    <section aria-labelledby="open-games">
      <h2 id="open-games">{t.lobby.openGames}</h2>
      <p class="row">
        <label for="open-kind">{t.lobby.game}</label>
        <select
          id="open-kind"
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value as KindName | "")}
        >
          <option value="">{t.lobby.allKinds}</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {t.kindTitle[k]} ({t.kind(k)})
            </option>
          ))}
        </select>
        <button type="button" onClick={() => setRefreshed((n) => n + 1)}>
          {t.lobby.refresh}
        </button>
      </p>
      {games !== undefined && games.length === 0 && (
        <p>{t.lobby.noOpenGames}</p>
      )}
      <ul class="games">
        {games?.map((game) => {
          const k = kindName(game.kind);
          const options = [t.lobby.roundsOption(game.options?.rounds ?? 1)];
          return (
            <li key={game.gameId}>
              <span>
                {t.kindTitle[k]} <span class="muted">({t.kind(k)})</span>:{" "}
                {t.lobby.openOf(game.openSeats, game.seats)},{" "}
                {t.lobby.options(options)}
              </span>
              <button type="button" onClick={() => onJoin(game)}>
                {t.lobby.join}
              </button>
              <a
                class="button"
                href={`#/game/${encodeURIComponent(game.gameId)}`}
              >
                {t.lobby.watch}
              </a>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
