/**
 * The card game's table: every seat's score board (six colour rows, columns 0-10 in the four
 * areas 0 | 1-3 | 4-6 | 7-10, each marker's reach under the area rule), every seat's open
 * cards, and your hand. You play by choosing a card, then the colour it scores first.
 */
import {
  CardsPhase,
  type Card,
  type CardsView,
  type Color,
  type Move,
} from "genial-client";
import { useEffect, useRef, useState } from "preact/hooks";

import { Mark } from "./colours.js";
import type { TableProps } from "./game.js";
import { useTexts, type Texts } from "./i18n/index.js";
import { cardColours, COLOURS, colourName } from "./names.js";
import { cardName, colour } from "./narrate.js";

const COLUMNS = Array.from({ length: 11 }, (_, i) => i);
const AREAS: [number, number][] = [
  [0, 0],
  [1, 3],
  [4, 6],
  [7, 10],
];

function area(column: number): number {
  return AREAS.findIndex(([from, to]) => column >= from && column <= to);
}

/**
 * The highest column the marker of colour `index` may reach now: set by the lowest of the
 * seat's other five markers (at 0: 3; in 1-3: 6; from 4 on: 10).
 */
export function ceiling(markers: number[], index: number): number {
  const lowest = Math.min(...markers.filter((_, i) => i !== index));
  return lowest === 0 ? 3 : lowest <= 3 ? 6 : 10;
}

export interface Scored {
  color: Color;
  gain: number;
  to: number;
  lost: number;
}

/** What playing `card` with `first` scoring first would score, as the rules count it. */
export function score(
  view: CardsView,
  seat: number,
  card: Card,
  first: Color,
): Scored[] {
  const markers = [...(view.players[seat]?.markers ?? [])];
  const open = view.players.flatMap((p) => p.openCards);
  const [a, b] = cardColours(card);
  return (first === a ? [a, b] : [b, a]).map((color) => {
    const index = color - 1;
    const matches = open.filter((c) => cardColours(c).includes(color)).length;
    const from = markers[index] ?? 0;
    const to = Math.max(
      from,
      Math.min(from + matches, ceiling(markers, index), 10),
    );
    markers[index] = to;
    return { color, gain: to - from, to, lost: matches - (to - from) };
  });
}

export function CardsTable({ view, seat, moves, onMove, names }: TableProps) {
  const t = useTexts();
  const table = view.table.case === "cards" ? view.table.value : undefined;
  if (!table) {
    return null;
  }
  return (
    <div class="cards-table">
      <p class="piles">
        <span>{t.cards.deck(table.deckSize)}</span>{" "}
        <span>{t.cards.discard(table.discardSize)}</span>
        {table.bonusPlays > 0 && (
          <strong> {t.cards.bonus(table.bonusPlays)}</strong>
        )}
      </p>
      {seat !== undefined && (
        <Hand table={table} seat={seat} moves={moves} onMove={onMove} />
      )}
      <div class="boards">
        {table.players.map((player) => (
          <section
            key={player.seat}
            class={`seat-board${player.seat === seat ? " mine" : ""}`}
            aria-labelledby={`board-${player.seat}`}
          >
            <h2 id={`board-${player.seat}`}>{names(player.seat)}</h2>
            <ScoreBoard
              t={t}
              markers={player.markers}
              caption={t.cards.board(names(player.seat))}
            />
            <p class="muted">{t.cards.handSize(player.handSize)}</p>
            <div
              class="open-cards"
              role="group"
              aria-label={t.cards.openCards(names(player.seat))}
            >
              {player.openCards.map((card, i) => (
                <CardFace key={i} card={card} t={t} />
              ))}
            </div>
          </section>
        ))}
      </div>
      <p class="muted small">{t.cards.capNote}</p>
    </div>
  );
}

function ScoreBoard({
  t,
  markers,
  caption,
}: {
  t: Texts;
  markers: number[];
  caption: string;
}) {
  return (
    <table class="score-board">
      <caption class="sr-only">{caption}</caption>
      <thead>
        <tr class="areas">
          <td />
          {AREAS.map(([from, to], i) => (
            <th
              key={i}
              scope="colgroup"
              colSpan={to - from + 1}
              class={`area-${i}`}
            >
              {t.cards.area(from, to)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {COLOURS.map((name, index) => {
          const at = markers[index] ?? 0;
          const cap = ceiling(markers, index);
          const held = at >= cap && cap < 10;
          const label = held
            ? t.cards.heldBack(t.colour(name), at, cap)
            : t.cards.marker(t.colour(name), at);
          return (
            <tr key={name} class={held ? "held" : undefined}>
              <th scope="row">
                <Mark colour={name} />
              </th>
              {COLUMNS.map((column) => (
                <td
                  key={column}
                  class={`area-${area(column)}${[1, 4, 7].includes(column) ? " area-start" : ""}${column > cap ? " beyond" : ""}${column === at ? (held ? " at held" : " at") : ""}`}
                >
                  {column === at && <Mark colour={name} label={label} />}
                </td>
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function CardFace({ card, t }: { card: Card; t: Texts }) {
  const [a, b] = cardColours(card);
  return (
    <span class="card" role="img" aria-label={cardName(t, card)}>
      <Mark colour={colourName(a)} hidden />
      <Mark colour={colourName(b)} hidden />
    </span>
  );
}

type Play = { card: Card; first: Color };

function playOf(move: Move): Play | undefined {
  const m = move.move.case === "cards" ? move.move.value.move : undefined;
  return m?.case === "play"
    ? { card: m.value.card, first: m.value.first }
    : undefined;
}

function Hand({
  table,
  seat,
  moves,
  onMove,
}: {
  table: CardsView;
  seat: number;
  moves: Move[];
  onMove: TableProps["onMove"];
}) {
  const t = useTexts();
  const [chosen, setChosen] = useState<Card>();
  const firstButton = useRef<HTMLButtonElement>(null);
  const plays = moves.flatMap((m) => {
    const play = playOf(m);
    return play ? [{ ...play, move: m }] : [];
  });
  const swap = moves.find(
    (m) => m.move.case === "cards" && m.move.value.move.case === "swap",
  );
  const keep = moves.find(
    (m) => m.move.case === "cards" && m.move.value.move.case === "declineSwap",
  );
  const options = plays.filter((p) => p.card === chosen);

  useEffect(() => setChosen(undefined), [moves]);
  useEffect(() => firstButton.current?.focus(), [chosen]);

  return (
    <section class="hand" aria-labelledby="hand">
      <h2 id="hand">{t.cards.hand}</h2>
      {plays.length > 0 && (
        <p class="instruction">
          {chosen === undefined
            ? t.cards.playPrompt
            : t.cards.firstPrompt(cardName(t, chosen))}
        </p>
      )}
      <div class="hand-cards">
        {table.hand.map((card, i) => {
          const playable = plays.some((p) => p.card === card);
          return (
            <button
              key={`${card}-${i}`}
              type="button"
              class="card-button"
              data-action="card"
              disabled={!playable}
              aria-pressed={chosen === card}
              aria-label={cardName(t, card)}
              data-card={card}
              onClick={() => setChosen(chosen === card ? undefined : card)}
            >
              <CardFace card={card} t={t} />
            </button>
          );
        })}
      </div>
      {chosen !== undefined && (
        <div
          class="choices"
          role="group"
          aria-label={t.cards.firstPrompt(cardName(t, chosen))}
          onKeyDown={(e) => e.key === "Escape" && setChosen(undefined)}
        >
          {options.map((option, i) => {
            const preview = score(table, seat, option.card, option.first)
              .map((s) =>
                t.cards.preview(colour(t, s.color), s.gain, s.to, s.lost),
              )
              .join(", ");
            return (
              <button
                key={option.first}
                ref={i === 0 ? firstButton : undefined}
                type="button"
                class="primary"
                data-action="first"
                data-first={option.first}
                onClick={() => onMove(option.move)}
              >
                <Mark colour={colourName(option.first)} hidden />{" "}
                {t.cards.first(colour(t, option.first), preview)}
              </button>
            );
          })}
          <button type="button" onClick={() => setChosen(undefined)}>
            {t.cards.cancel}
          </button>
        </div>
      )}
      {table.phase === CardsPhase.SWAP && (swap || keep) && (
        <div class="choices">
          <p class="instruction">{t.cards.swapPrompt}</p>
          {swap && (
            <button
              type="button"
              data-action="swap"
              onClick={() => onMove(swap)}
            >
              {t.cards.swap}
            </button>
          )}
          {keep && (
            <button
              type="button"
              class="primary"
              data-action="keep"
              onClick={() => onMove(keep)}
            >
              {t.cards.keep}
            </button>
          )}
        </div>
      )}
    </section>
  );
}
