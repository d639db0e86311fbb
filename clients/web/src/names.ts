/** The names the client gives the API's enums: colours, cards and the kinds of game. */
import { Card, Color, GameKind } from "genial-client";

export const COLOURS = [
  "red",
  "green",
  "blue",
  "orange",
  "yellow",
  "purple",
] as const;
export type ColourName = (typeof COLOURS)[number];
export type KindName = "cards" | "dice" | "tiles";

/** The colours in the API's order, Color.RED first. */
export const COLOR_VALUES: Color[] = [
  Color.RED,
  Color.GREEN,
  Color.BLUE,
  Color.ORANGE,
  Color.YELLOW,
  Color.PURPLE,
];

export function colourName(color: Color): ColourName {
  return COLOURS[color - 1] ?? "red";
}

export function kindName(kind: GameKind): KindName {
  return kind === GameKind.DICE
    ? "dice"
    : kind === GameKind.TILES
      ? "tiles"
      : "cards";
}

/** The 15 cards, each the pair of its two colours in colour order (Card.RED_GREEN = 1). */
const PAIRS: [Color, Color][] = COLOR_VALUES.flatMap((a, i) =>
  COLOR_VALUES.slice(i + 1).map((b): [Color, Color] => [a, b]),
);

export function cardColours(card: Card): [Color, Color] {
  return PAIRS[card - 1] ?? [Color.RED, Color.GREEN];
}
