/**
 * The tile game's table: the centre, the collection zone, the reserve, and every seat's
 * collection against the line length. On your turn you reveal (click the reserve), take
 * (click the zone), or make the alternative move (click the centre's tiles of that colour).
 */
import {
  TilesPhase,
  type Color,
  type Move,
  type TilesView,
} from "genial-client";

import { Mark } from "./colours.js";
import type { TableProps } from "./game.js";
import { useTexts, type Texts } from "./i18n/index.js";
import { COLOR_VALUES, COLOURS, colourName } from "./names.js";
import { colour } from "./narrate.js";

function tilesMove(move: Move) {
  return move.move.case === "tiles" ? move.move.value.move : undefined;
}

function Tile({ color, hidden = false }: { color: Color; hidden?: boolean }) {
  return (
    <span class="tile">
      <Mark colour={colourName(color)} hidden={hidden} />
    </span>
  );
}

export function TilesTable({ view, seat, moves, onMove, names }: TableProps) {
  const t = useTexts();
  const table = view.table.case === "tiles" ? view.table.value : undefined;
  if (!table) {
    return null;
  }
  const reveal = moves.find((m) => tilesMove(m)?.case === "reveal");
  const take = moves.find((m) => tilesMove(m)?.case === "take");
  const alternatives = new Map(
    moves.flatMap((m) => {
      const move = tilesMove(m);
      return move?.case === "alternative"
        ? [[move.value.color, m] as const]
        : [];
    }),
  );
  const taking =
    table.zone.length +
    table.zone.reduce(
      (n, c, i) =>
        table.zone.indexOf(c) === i ? n + (table.centre[c - 1] ?? 0) : n,
      0,
    );
  const mine = seat !== undefined && moves.length > 0;

  return (
    <div class="tiles-table">
      {mine && (
        <p class="instruction">
          {table.phase === TilesPhase.START
            ? t.tiles.startPrompt
            : t.tiles.decidePrompt}
        </p>
      )}
      <p class="piles">
        <span>{t.tiles.lineLength(table.lineLength)}</span>
        {table.bonusMoves > 0 && (
          <strong> {t.tiles.bonus(table.bonusMoves)}</strong>
        )}
      </p>
      <div class="tiles-middle">
        <section class="reserve" aria-labelledby="reserve">
          <h2 id="reserve">{t.tiles.reserve(table.reserveSize)}</h2>
          {reveal ? (
            <button
              type="button"
              class="primary bag"
              data-action="reveal"
              onClick={() => onMove(reveal)}
            >
              {t.tiles.reveal}
            </button>
          ) : (
            <span class="bag" aria-hidden="true" />
          )}
        </section>
        <section class="centre" aria-labelledby="centre">
          <h2 id="centre">{t.tiles.centre}</h2>
          <ul class="tile-groups">
            {COLOR_VALUES.map((c, i) => {
              const n = table.centre[i] ?? 0;
              if (n === 0) {
                return null;
              }
              const tiles = (
                <>
                  {Array.from({ length: n }, (_, k) => (
                    <Tile key={k} color={c} hidden />
                  ))}
                  <span class="sr-only">
                    {t.tiles.count(colour(t, c), n, n)}
                  </span>
                  <span class="count" aria-hidden="true">
                    ×{n}
                  </span>
                </>
              );
              const alternative = alternatives.get(c);
              return (
                <li key={c}>
                  {alternative ? (
                    <button
                      type="button"
                      class="tile-button"
                      aria-label={t.tiles.alternative(colour(t, c))}
                      data-action="alternative"
                      onClick={() => onMove(alternative)}
                    >
                      {tiles}
                    </button>
                  ) : (
                    <span
                      class="tile-group"
                      role="img"
                      aria-label={`${colour(t, c)} ×${n}`}
                    >
                      {tiles}
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
        </section>
        <section class="zone" aria-labelledby="zone">
          <h2 id="zone">{t.tiles.zone}</h2>
          {take ? (
            <button
              type="button"
              class="tile-button primary"
              data-action="take"
              onClick={() => onMove(take)}
            >
              {table.zone.map((c, i) => (
                <Tile key={i} color={c} hidden />
              ))}{" "}
              <span>{t.tiles.take(taking)}</span>
            </button>
          ) : (
            <ul class="tile-row">
              {table.zone.length === 0 && (
                <li class="muted">{t.tiles.emptyZone}</li>
              )}
              {table.zone.map((c, i) => (
                <li key={i}>
                  <Tile color={c} />
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      <div class="collections">
        {table.players.map((player) => (
          <Collection
            key={player.seat}
            t={t}
            table={table}
            player={player}
            name={names(player.seat)}
            mine={player.seat === seat}
          />
        ))}
      </div>
    </div>
  );
}

function Collection({
  t,
  table,
  player,
  name,
  mine,
}: {
  t: Texts;
  table: TilesView;
  player: TilesView["players"][number];
  name: string;
  mine: boolean;
}) {
  const boxes = Array.from({ length: table.lineLength }, (_, i) => i);
  return (
    <section
      class={`collection${mine ? " mine" : ""}`}
      aria-labelledby={`collection-${player.seat}`}
    >
      <h2 id={`collection-${player.seat}`}>{name}</h2>
      <table class="collection-table">
        <caption class="sr-only">{t.tiles.collection(name)}</caption>
        <tbody>
          {COLOURS.map((c, i) => {
            const n = player.collection[i] ?? 0;
            const line = player.lines.includes(COLOR_VALUES[i]!);
            return (
              <tr key={c} class={line ? "line" : undefined}>
                <th scope="row">
                  <Mark
                    colour={c}
                    label={
                      t.tiles.count(t.colour(c), n, table.lineLength) +
                      (line ? ` (${t.tiles.line})` : "")
                    }
                  />
                </th>
                {boxes.map((b) => (
                  <td key={b} class={b < n ? `filled c-${c}` : undefined} />
                ))}
                <td class="tally" aria-hidden="true">
                  {n}
                  {line && " ✓"}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
