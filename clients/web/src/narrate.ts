/** Every event told in words, as the log shows it ("Ada plays red/blue, red first: ..."). */
import {
  Color,
  TilesRevealOutcome,
  type Card,
  type CardsEvent,
  type DiceEvent,
  type Event,
  type TilesEvent,
} from "genial-client";

import type { Texts } from "./i18n/index.js";
import { cardColours, COLOR_VALUES, colourName } from "./names.js";

/** The name of each seat, for the log. */
export type Names = (seat: number) => string;

export function colour(t: Texts, color: Color): string {
  return t.colour(colourName(color));
}

export function cardName(t: Texts, card: Card): string {
  const [a, b] = cardColours(card);
  return t.cards.card(colour(t, a), colour(t, b));
}

function list(t: Texts, items: string[]): string {
  return items.length === 0 ? t.events.none : items.join(", ");
}

/** "2 red, 1 blue" from counts in colour order. */
function counts(t: Texts, values: number[]): string {
  const parts = values.flatMap((n, i) =>
    n > 0 ? [`${n} ${colour(t, COLOR_VALUES[i]!)}`] : [],
  );
  return list(t, parts);
}

export function narrate(t: Texts, event: Event, name: Names): string {
  const e = t.events;
  const { event: ev } = event;
  switch (ev.case) {
    case "playerJoined":
      return e.joined(ev.value.displayName, ev.value.seat);
    case "gameStarted":
      return e.started;
    case "turnTimedOut":
      return e.timedOut(name(ev.value.seat));
    case "seatReclaimed":
      return e.reclaimed(name(ev.value.seat));
    case "roundOver": {
      const results = ev.value.points.map((points, seat) =>
        e.result(name(seat), points),
      );
      return e.roundOver(ev.value.round, results.join(", "));
    }
    case "gameOver": {
      const winners = ev.value.standings
        .filter((s) => s.rank === 1)
        .map((s) => name(s.seat));
      return e.gameOver(winners.join(e.and));
    }
    case "cards":
      return cards(t, ev.value, name);
    case "dice":
      return dice(t, ev.value, name);
    case "tiles":
      return tiles(t, ev.value, name);
    default:
      return "";
  }
}

function cards(t: Texts, event: CardsEvent, name: Names): string {
  const e = t.events;
  const { event: ev } = event;
  switch (ev.case) {
    case "deal":
      return e.cardsDeal(ev.value.round, name(ev.value.firstSeat));
    case "draw":
      return e.cardsDraw(name(ev.value.seat), ev.value.count);
    case "reshuffle":
      return e.cardsReshuffle(ev.value.deckSize);
    case "play": {
      const { seat, card, first, scores, bonusPlays } = ev.value;
      const scored = scores.map((s) =>
        e.cardsScore(s.to - s.from, colour(t, s.color), s.to, s.lost),
      );
      const text = e.cardsPlay(
        name(seat),
        cardName(t, card),
        colour(t, first),
        scored.join(", "),
      );
      return bonusPlays > 0 ? text + e.cardsBonus(bonusPlays) : text;
    }
    case "bonusLapsed":
      return e.cardsBonusLapsed(name(ev.value.seat), ev.value.count);
    case "swap":
      return e.cardsSwap(
        name(ev.value.seat),
        list(
          t,
          ev.value.cards.map((c) => cardName(t, c)),
        ),
      );
    case "declineSwap":
      return e.cardsKeep(name(ev.value.seat));
    default:
      return "";
  }
}

function dice(t: Texts, event: DiceEvent, name: Names): string {
  const e = t.events;
  const { event: ev } = event;
  switch (ev.case) {
    case "setup":
      return e.diceSetup(ev.value.round, name(ev.value.firstSeat));
    case "roll": {
      const rolled = list(
        t,
        ev.value.dice.map((d) => colour(t, d)),
      );
      return e.diceRoll(
        name(ev.value.seat),
        rolled,
        ev.value.reroll,
        ev.value.rerollsLeft,
      );
    }
    case "score": {
      const jokers = ev.value.jokers.map((j) =>
        e.diceJoker(colour(t, j.group), colour(t, j.color)),
      );
      const lost = ev.value.lost.some((n) => n > 0)
        ? e.diceLost(counts(t, ev.value.lost))
        : "";
      const used = jokers.length > 0 ? e.diceJokers(jokers.join(e.and)) : "";
      return e.diceScore(
        name(ev.value.seat),
        counts(t, ev.value.crosses),
        used,
        lost,
      );
    }
    default:
      return "";
  }
}

const OUTCOMES = {
  [TilesRevealOutcome.SUCCESS]: "success",
  [TilesRevealOutcome.NO_MATCH]: "no_match",
  [TilesRevealOutcome.CONFLICT]: "conflict",
} as const;

function tiles(t: Texts, event: TilesEvent, name: Names): string {
  const e = t.events;
  const { event: ev } = event;
  switch (ev.case) {
    case "setup":
      return e.tilesSetup(ev.value.round, name(ev.value.firstSeat));
    case "refill":
      return e.tilesRefill(
        list(
          t,
          ev.value.colors.map((c) => colour(t, c)),
        ),
      );
    case "reveal": {
      const outcome =
        OUTCOMES[ev.value.outcome as keyof typeof OUTCOMES] ?? "no_match";
      return e.tilesReveal(
        name(ev.value.seat),
        colour(t, ev.value.color),
        outcome,
      );
    }
    case "take":
      return e.tilesTake(name(ev.value.seat), counts(t, ev.value.tiles));
    case "alternative":
      return e.tilesAlternative(name(ev.value.seat), colour(t, ev.value.color));
    case "bonus":
      return e.tilesBonus(
        name(ev.value.seat),
        list(
          t,
          ev.value.colors.map((c) => colour(t, c)),
        ),
      );
    case "return":
      return e.tilesReturn(name(ev.value.seat), counts(t, ev.value.tiles));
    case "pass":
      return e.tilesPass(name(ev.value.seat));
    case "turnEnd":
      return e.tilesTurnEnd(name(ev.value.seat));
    default:
      return "";
  }
}
