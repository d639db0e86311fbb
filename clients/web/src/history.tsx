/**
 * A finished game step by step: the table after each move (the views a spectator's watch
 * replays), what each move did, and the fairness check: the SHA-256 of the revealed seed,
 * computed here with WebCrypto, against the commitment published when the game was created.
 */
import type { GameView, GetHistoryResponse } from "genial-client";
import { useEffect, useState } from "preact/hooks";

import { client, commitments, describe } from "./api.js";
import { namesOf, TABLES, type TableProps } from "./game.js";
import { useTexts } from "./i18n/index.js";
import { kindName } from "./names.js";
import { narrate } from "./narrate.js";

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(
    (hex.match(/../g) ?? []).map((byte) => parseInt(byte, 16)),
  );
}

/** The SHA-256 of the seed's bytes in hex, or undefined where WebCrypto is not available
 * (it needs a secure context: HTTPS, or localhost). */
async function sha256(hex: string): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) {
    return undefined;
  }
  const digest = await crypto.subtle.digest("SHA-256", hexBytes(hex));
  return [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

export function HistoryPage({ gameId }: { gameId: string }) {
  const t = useTexts();
  const [history, setHistory] = useState<GetHistoryResponse>();
  const [views, setViews] = useState<GameView[]>([]);
  const [step, setStep] = useState(0);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      try {
        setHistory(await client.history(gameId));
        const seen: GameView[] = [];
        for await (const update of client.watch(gameId, {
          signal: stop.signal,
        })) {
          if (update.view) {
            seen[Number(update.version)] = update.view; // the last view of each version
          }
        }
        const steps = seen.filter((v) => v !== undefined);
        setViews(steps);
        setStep(steps.length - 1);
      } catch (err) {
        if (!stop.signal.aborted) {
          setError(describe(err, t));
        }
      }
    })();
    return () => stop.abort();
  }, [gameId]);

  const view = views[step];
  const entry = history?.entries.find((e) => e.version === view?.version);
  const names = namesOf(t, view);
  const Table = view ? TABLES[kindName(view.kind)] : undefined;
  const last = views.length - 1;
  const props: TableProps | undefined = view && {
    view,
    seat: undefined,
    moves: [],
    onMove: () => {},
    names,
  };

  return (
    <div class="history">
      <h1 tabIndex={-1}>
        {t.history.title}{" "}
        {history && (
          <span class="muted">({t.kindTitle[kindName(history.kind)]})</span>
        )}
      </h1>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {history && <Fairness gameId={gameId} history={history} />}
      {view && Table && props && (
        <>
          <section class="stepper" aria-labelledby="step">
            <h2 id="step">
              {t.history.step(
                Number(view.version),
                Number(views[last]?.version ?? 0),
              )}
            </h2>
            <div class="choices">
              <button
                type="button"
                disabled={step === 0}
                onClick={() => setStep(0)}
              >
                {t.history.start}
              </button>
              <button
                type="button"
                disabled={step === 0}
                onClick={() => setStep(step - 1)}
              >
                {t.history.previous}
              </button>
              <button
                type="button"
                disabled={step === last}
                onClick={() => setStep(step + 1)}
              >
                {t.history.next}
              </button>
              <button
                type="button"
                disabled={step === last}
                onClick={() => setStep(last)}
              >
                {t.history.end}
              </button>
            </div>
            <label class="field">
              <span class="sr-only">
                {t.history.step(
                  Number(view.version),
                  Number(views[last]?.version ?? 0),
                )}
              </span>
              <input
                type="range"
                min={0}
                max={last}
                value={step}
                onInput={(e) => setStep(Number(e.currentTarget.value))}
              />
            </label>
            <ul class="step-events" aria-live="polite">
              {entry?.automatic && <li class="muted">{t.history.automatic}</li>}
              {(entry?.events ?? view.lastEvents).map((event, i) => (
                <li key={i}>{narrate(t, event, names)}</li>
              ))}
            </ul>
          </section>
          <Table {...props} />
        </>
      )}
      <p>
        <a href={`#/game/${encodeURIComponent(gameId)}`}>
          {t.history.backToTable}
        </a>
      </p>
    </div>
  );
}

function Fairness({
  gameId,
  history,
}: {
  gameId: string;
  history: GetHistoryResponse;
}) {
  const t = useTexts();
  const [computed, setComputed] = useState<string | null>();
  const seen = commitments.get(gameId);
  const published = seen?.seedSha256 ?? history.seedSha256;

  useEffect(() => {
    if (history.seed) {
      void sha256(history.seed).then((hash) => setComputed(hash ?? null));
    }
  }, [history.seed]);

  const verdict = !history.seed
    ? t.history.notOver
    : computed === null
      ? t.history.noCrypto
      : computed === undefined
        ? ""
        : computed === published
          ? t.history.verified
          : t.history.mismatch;
  const ok =
    computed !== undefined && computed !== null && computed === published;
  return (
    <section class="fairness" aria-labelledby="fairness">
      <h2 id="fairness">{t.history.fairness}</h2>
      <p>{t.history.fairnessText}</p>
      <dl>
        <dt>{t.history.published}</dt>
        <dd>
          <code>{published}</code>
          {seen && (
            <span class="muted">
              {" "}
              (
              {t.history.seenHere(new Date(seen.seenAt).toLocaleString(t.lang))}
              )
            </span>
          )}
        </dd>
        {history.seed && (
          <>
            <dt>{t.history.seed}</dt>
            <dd>
              <code>{history.seed}</code>
            </dd>
            <dt>{t.history.computed}</dt>
            <dd>
              <code>{computed ?? ""}</code>
            </dd>
          </>
        )}
      </dl>
      <p
        class={`verdict ${ok ? "verified" : history.seed && computed !== undefined ? "mismatch" : ""}`}
        role="status"
        data-verified={ok ? "yes" : "no"}
      >
        {ok ? "✔ " : history.seed && computed ? "✘ " : ""}
        {verdict}
      </p>
    </section>
  );
}
