/** The form of a new game: which game, who sits where (you, open seats, bots), options. */
import type { CreateOptions, Strength } from "genial-client";
import type { JSX } from "preact";
import { useState } from "preact/hooks";

import { client, commitments, joinAndOpen } from "./api.js";
import { useTexts } from "./i18n/index.js";
import type { KindName } from "./names.js";

type Sitter = "you" | "open" | Strength;
const KINDS: KindName[] = ["cards", "dice", "tiles"];
const STRENGTHS: Strength[] = ["random", "greedy", "strong"];

/** Whole numbers from "3, 3, 3"; undefined when the text is not such a list. */
function numbers(text: string): number[] | undefined {
  const parts = text.split(",").map((p) => p.trim());
  return parts.every((p) => /^\d+$/.test(p)) ? parts.map(Number) : undefined;
}

export function CreateGame({
  needName,
  attempt,
}: {
  needName: () => string | undefined;
  attempt: (work: () => Promise<void>) => void;
}) {
  const t = useTexts();
  const [kind, setKind] = useState<KindName>("cards");
  const [sitters, setSitters] = useState<Sitter[]>([
    "you",
    "greedy",
    "greedy",
    "greedy",
  ]);
  const [count, setCount] = useState(2);
  const [rounds, setRounds] = useState("1");
  const [variantE, setVariantE] = useState(false);
  const [sections, setSections] = useState("3, 3, 3");
  const [lineLength, setLineLength] = useState("");
  const [timer, setTimer] = useState("");

  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const seated = sitters.slice(0, count);
    const playing = seated.includes("you");
    const name = playing ? needName() : "";
    if (name === undefined) {
      return;
    }
    const bots: Record<number, Strength> = {};
    seated.forEach((s, seat) => {
      if (s !== "you" && s !== "open") {
        bots[seat] = s;
      }
    });
    const options: CreateOptions["options"] = { rounds: Number(rounds) || 1 };
    if (kind === "dice") {
      options.variantE = variantE;
      options.sections = numbers(sections) ?? [];
    }
    if (kind === "tiles" && lineLength.trim()) {
      options.lineLength = Number(lineLength);
    }
    const turnSeconds = timer.trim() ? Number(timer) : undefined;
    attempt(async () => {
      const game = await client.create(kind, {
        seats: count,
        bots,
        options,
        turnSeconds,
      });
      commitments.saw(game.gameId, game.seedSha256);
      if (playing) {
        await joinAndOpen(game.gameId, kind, name);
      } else {
        location.hash = `#/game/${encodeURIComponent(game.gameId)}`;
      }
    });
  };

  return (
    <section aria-labelledby="new-game">
      <h2 id="new-game">{t.lobby.create}</h2>
      <form class="create" onSubmit={submit}>
        <fieldset>
          <legend>{t.lobby.game}</legend>
          {KINDS.map((k) => (
            <label key={k} class="choice">
              <input
                type="radio"
                name="kind"
                value={k}
                checked={kind === k}
                onChange={() => setKind(k)}
              />
              {t.kindTitle[k]} <span class="muted">({t.kind(k)})</span>
            </label>
          ))}
        </fieldset>
        <p class="field">
          <label for="seat-count">{t.lobby.seats}</label>
          <select
            id="seat-count"
            value={count}
            onChange={(e) => setCount(Number(e.currentTarget.value))}
          >
            {[2, 3, 4].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </p>
        <fieldset>
          <legend>{t.lobby.whoSits}</legend>
          {sitters.slice(0, count).map((sitter, seat) => (
            <p class="field" key={seat}>
              <label for={`sitter-${seat}`}>{t.lobby.seat(seat)}</label>
              <select
                id={`sitter-${seat}`}
                value={sitter}
                onChange={(e) => {
                  const chosen = e.currentTarget.value as Sitter;
                  // One seat is yours at most: choosing it here opens the other.
                  setSitters((all) =>
                    all.map((s, i) =>
                      i === seat
                        ? chosen
                        : chosen === "you" && s === "you"
                          ? "open"
                          : s,
                    ),
                  );
                }}
              >
                <option value="you">{t.lobby.you}</option>
                <option value="open">{t.lobby.open}</option>
                {STRENGTHS.map((s) => (
                  <option key={s} value={s}>
                    {t.lobby.bot(t.lobby.strengths[s] ?? s)}
                  </option>
                ))}
              </select>
            </p>
          ))}
        </fieldset>
        <TextField
          id="rounds"
          label={t.lobby.rounds}
          value={rounds}
          onInput={setRounds}
          type="number"
          min={1}
          max={10}
        />
        {kind === "dice" && (
          <>
            <p class="field">
              <label class="choice">
                <input
                  type="checkbox"
                  checked={variantE}
                  onChange={(e) => setVariantE(e.currentTarget.checked)}
                />
                {t.lobby.variantE}
              </label>
            </p>
            <TextField
              id="sections"
              label={t.lobby.sections}
              value={sections}
              onInput={setSections}
              inputMode="numeric"
            />
          </>
        )}
        {kind === "tiles" && (
          <TextField
            id="line-length"
            label={t.lobby.lineLength}
            value={lineLength}
            onInput={setLineLength}
            type="number"
            min={3}
            max={21}
          />
        )}
        <TextField
          id="turn-timer"
          label={t.lobby.turnTimer}
          value={timer}
          onInput={setTimer}
          type="number"
          min={10}
        />
        <button type="submit" class="primary">
          {t.lobby.start}
        </button>
      </form>
    </section>
  );
}

/** A labelled input of the form; `extra` are the input's own attributes (type, min, ...). */
function TextField({
  id,
  label,
  value,
  onInput,
  ...extra
}: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
} & Omit<
  JSX.InputHTMLAttributes<HTMLInputElement>,
  "id" | "value" | "onInput"
>) {
  return (
    <p class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        {...extra}
      />
    </p>
  );
}
