/**
 * The six colours drawn so that they are told apart without colour too: each has a shape
 * of its own (after the symbols of the games: red's sun, blue's star, ...) on every marker,
 * die and tile, and its name for screen readers.
 */
import type { ComponentChildren } from "preact";

import { useTexts } from "./i18n/index.js";
import type { ColourName } from "./names.js";

const SHAPES: Record<ColourName, ComponentChildren> = {
  // A sun: a disc with eight rays.
  red: (
    <>
      <circle cx="12" cy="12" r="4.5" />
      <path d="M12 1.5v5M12 17.5v5M1.5 12h5M17.5 12h5M4.6 4.6l3.5 3.5M15.9 15.9l3.5 3.5M4.6 19.4l3.5-3.5M15.9 8.1l3.5-3.5" />
    </>
  ),
  green: <circle cx="12" cy="12" r="8" />,
  blue: (
    <path d="M12 2l2.6 6.1 6.6.6-5 4.4 1.5 6.5L12 16.2l-5.7 3.4 1.5-6.5-5-4.4 6.6-.6z" />
  ),
  orange: <path d="M12 2.5l8.2 4.75v9.5L12 21.5l-8.2-4.75v-9.5z" />,
  yellow: <circle cx="12" cy="12" r="7" fill="none" stroke-width="3.5" />,
  purple: <path d="M12 2.5l9.5 9.5-9.5 9.5-9.5-9.5z" />,
};

/** A colour's mark: its shape on its colour, named for screen readers unless `hidden`. */
export function Mark({
  colour,
  hidden = false,
  label,
}: {
  colour: ColourName;
  hidden?: boolean;
  label?: string;
}) {
  const t = useTexts();
  const name = label ?? t.colour(colour);
  return (
    <span
      class={`mark c-${colour}`}
      role={hidden ? undefined : "img"}
      aria-label={hidden ? undefined : name}
      aria-hidden={hidden ? "true" : undefined}
      title={name}
    >
      <svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        {SHAPES[colour]}
      </svg>
    </span>
  );
}
