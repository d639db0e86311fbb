/**
 * The dice game's table: every seat's score sheet (a row per colour, boxes in sections that
 * open one after the other) and the dice in front of it. On your turn you roll, roll again,
 * mark groups of equal dice as jokers with their colour, and score.
 */
import { Color, DicePhase, type DiceView, type Move } from "genial-client";
import { useEffect, useState } from "preact/hooks";

import { Mark } from "./colours.js";
import type { TableProps } from "./game.js";
import { useTexts, type Texts } from "./i18n/index.js";
import { COLOR_VALUES, COLOURS, colourName } from "./names.js";
import { colour } from "./narrate.js";

function diceMove(move: Move) {
  return move.move.case === "dice" ? move.move.value.move : undefined;
}

/** Whether each section is open: the first always, each next one once every row has a
 * cross in the one before. */
function openSections(sections: number[], sheet: number[]): boolean[] {
  let start = 0;
  return sections.map((size, s) => {
    const open =
      s === 0 || sheet.every((crosses) => crosses > start - sections[s - 1]!);
    start += size;
    return open;
  });
}

/** The jokers chosen: each group's colour, undefined while it is not chosen yet. */
type Jokers = Map<Color, Color | undefined>;

/** Crosses each colour would get, in colour order: each die scores the dice of its colour in
 * front of the others; a joker group scores its size less one in its chosen colour. */
function preview(view: DiceView, seat: number, jokers: Jokers): number[] {
  const crosses = COLOR_VALUES.map(() => 0);
  const others = view.players
    .filter((p) => p.seat !== seat)
    .flatMap((p) => p.dice);
  const mine = view.players[seat]?.dice ?? [];
  for (const die of new Set(mine)) {
    const size = mine.filter((d) => d === die).length;
    const joker = jokers.get(die);
    if (!jokers.has(die)) {
      crosses[die - 1]! += size * others.filter((d) => d === die).length;
    } else if (joker !== undefined) {
      crosses[joker - 1]! += size - 1;
    }
  }
  return crosses;
}

export function DiceTable({ view, seat, moves, onMove, names }: TableProps) {
  const t = useTexts();
  const table = view.table.case === "dice" ? view.table.value : undefined;
  if (!table) {
    return null;
  }
  return (
    <div class="dice-table">
      {seat !== undefined && moves.length > 0 && (
        <MyTurn table={table} seat={seat} moves={moves} onMove={onMove} />
      )}
      <div class="sheets">
        {table.players.map((player) => (
          <section
            key={player.seat}
            class={`seat-sheet${player.seat === seat ? " mine" : ""}`}
            aria-labelledby={`sheet-${player.seat}`}
          >
            <h2 id={`sheet-${player.seat}`}>{names(player.seat)}</h2>
            <Dice
              t={t}
              dice={player.dice}
              label={t.dice.dice(names(player.seat))}
            />
            {view.toMove === player.seat && (
              <p class="muted">{t.dice.rerollsLeft(table.rerollsLeft)}</p>
            )}
            <Sheet
              t={t}
              sections={table.sections}
              sheet={player.sheet}
              caption={t.dice.sheet(names(player.seat))}
            />
          </section>
        ))}
      </div>
    </div>
  );
}

function Dice({ t, dice, label }: { t: Texts; dice: Color[]; label: string }) {
  return (
    <div class="dice" role="group" aria-label={label}>
      {dice.length === 0 ? (
        <span class="muted">{t.dice.noDice}</span>
      ) : (
        dice.map((d, i) => (
          <span key={i} class="die">
            <Mark colour={colourName(d)} />
          </span>
        ))
      )}
    </div>
  );
}

function Sheet({
  t,
  sections,
  sheet,
  caption,
}: {
  t: Texts;
  sections: number[];
  sheet: number[];
  caption: string;
}) {
  const open = openSections(sections, sheet);
  const boxes = sections.reduce((a, b) => a + b, 0);
  return (
    <table class="score-sheet">
      <caption class="sr-only">{caption}</caption>
      <thead>
        <tr>
          <td />
          {sections.map((size, s) => (
            <th
              key={s}
              scope="colgroup"
              colSpan={size}
              class={open[s] ? undefined : "locked"}
            >
              {s + 1}
              {!open[s] && <span class="sr-only"> ({t.dice.locked})</span>}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {COLOURS.map((name, row) => {
          const crosses = sheet[row] ?? 0;
          let box = 0;
          return (
            <tr key={name}>
              <th scope="row">
                <Mark
                  colour={name}
                  label={t.dice.row(t.colour(name), crosses, boxes)}
                />
              </th>
              {sections.flatMap((size, s) =>
                Array.from({ length: size }, (_, i) => {
                  const crossed = box++ < crosses;
                  return (
                    <td
                      key={`${s}-${i}`}
                      class={`${i === 0 ? "section-start " : ""}${open[s] ? "" : "locked"}`}
                    >
                      {crossed && <span aria-hidden="true">✕</span>}
                    </td>
                  );
                }),
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Roll, roll again, or choose jokers and score. */
function MyTurn({
  table,
  seat,
  moves,
  onMove,
}: {
  table: DiceView;
  seat: number;
  moves: Move[];
  onMove: TableProps["onMove"];
}) {
  const t = useTexts();
  const [jokers, setJokers] = useState<Jokers>(new Map());
  useEffect(() => setJokers(new Map()), [moves]);
  const roll = moves.find((m) => diceMove(m)?.case === "roll");
  const reroll = moves.find((m) => diceMove(m)?.case === "reroll");
  const mine = table.players[seat]?.dice ?? [];
  const groups = COLOR_VALUES.map((c) => ({
    color: c,
    size: mine.filter((d) => d === c).length,
  })).filter((g) => g.size >= 2);
  // A joker whose colour is not chosen yet matches no move: nothing to score until it is.
  const score = moves.find((m) => {
    const d = diceMove(m);
    return (
      d?.case === "score" &&
      d.value.jokers.length === jokers.size &&
      d.value.jokers.every((j) => jokers.get(j.group) === j.color)
    );
  });
  const crosses = preview(table, seat, jokers);
  const previewText = crosses.some((n) => n > 0)
    ? crosses
        .flatMap((n, i) =>
          n > 0 ? [`+${n} ${colour(t, COLOR_VALUES[i]!)}`] : [],
        )
        .join(", ")
    : t.dice.nothing;

  return (
    <section class="my-turn" aria-labelledby="my-turn">
      <h2 id="my-turn" class="instruction">
        {table.phase === DicePhase.ROLL
          ? t.dice.rollPrompt
          : t.dice.decidePrompt}
      </h2>
      <div class="choices">
        {roll && (
          <button
            type="button"
            class="primary"
            data-action="roll"
            onClick={() => onMove(roll)}
          >
            {t.dice.roll}
          </button>
        )}
        {reroll && (
          <button
            type="button"
            class="reroll"
            data-action="reroll"
            onClick={() => onMove(reroll)}
          >
            <span class="dice" aria-hidden="true">
              {mine.map((d, i) => (
                <span key={i} class="die">
                  <Mark colour={colourName(d)} hidden />
                </span>
              ))}
            </span>
            {t.dice.reroll(table.rerollsLeft)}
          </button>
        )}
      </div>
      {groups.map((group) => {
        const joker = jokers.get(group.color);
        const isJoker = jokers.has(group.color);
        const name = colour(t, group.color);
        return (
          <div key={group.color} class="joker">
            <button
              type="button"
              aria-pressed={isJoker}
              data-action="joker"
              onClick={() =>
                setJokers((all) => {
                  const next = new Map(all);
                  if (next.has(group.color)) {
                    next.delete(group.color);
                  } else {
                    next.set(group.color, undefined);
                  }
                  return next;
                })
              }
            >
              <span class="dice" aria-hidden="true">
                {Array.from({ length: group.size }, (_, i) => (
                  <span key={i} class="die">
                    <Mark colour={colourName(group.color)} hidden />
                  </span>
                ))}
              </span>
              {t.dice.joker(name, group.size)}
            </button>
            {isJoker && (
              <fieldset class="joker-colour">
                <legend>{t.dice.jokerColour(group.size)}</legend>
                {COLOR_VALUES.map((c) => (
                  <label key={c} class="choice">
                    <input
                      type="radio"
                      name={`joker-${group.color}`}
                      checked={joker === c}
                      onChange={() =>
                        setJokers((all) => new Map(all).set(group.color, c))
                      }
                    />
                    <Mark colour={colourName(c)} hidden /> {colour(t, c)}
                  </label>
                ))}
              </fieldset>
            )}
          </div>
        );
      })}
      {moves.some((m) => diceMove(m)?.case === "score") && (
        <button
          type="button"
          class="primary score"
          data-action="score"
          disabled={!score}
          onClick={() => score && onMove(score)}
        >
          {t.dice.score(previewText)}
        </button>
      )}
    </section>
  );
}
