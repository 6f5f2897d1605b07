/**
 * The palette, taken from the demo illustrations and the logo (see
 * docs/design.md). The single source for the CSS custom properties (written
 * as `:root` by assets.ts), the favicon and the browser's theme colour.
 */
export const PALETTE = {
  /** Page background: a warm, barely-tinted white. */
  paper: "#fffaf2",
  /** Alternate bands, cards on paper. */
  sand: "#f4e9d8",
  sandDeep: "#eadbc3",
  /** Body text (15.5:1 on paper). */
  ink: "#0e2236",
  /** Headings, footer background (12.6:1 on paper). */
  navy: "#16324f",
  /** Secondary text (7:1 on paper). */
  muted: "#4a5868",
  /** Accent for shapes and large text only (3:1 on paper). */
  coral: "#e76f51",
  /** Buttons and focus rings: coral deepened to 4.9:1 under white text. */
  coralDeep: "#c2492b",
  coralDeeper: "#a33b20",
  /** Links and eyebrows: teal deepened to 6.1:1 on paper. */
  teal: "#2a9d8f",
  tealDeep: "#1a6b61",
  /** Highlights: featured rows, focus on navy (7.8:1 on navy). */
  mustard: "#e9c46a",
  mustardSoft: "#fbefcf",
  sky: "#a8dadc",
  /** Hairlines and card borders (decorative). */
  line: "#e4d8c5",
  /** Form field borders: 4.2:1 on white (non-text contrast needs 3:1). */
  lineStrong: "#857a68",
  /** Secondary text on navy (10:1). */
  mist: "#d9e2ea",
  white: "#ffffff",
} as const;

/** The browser chrome matches the sticky header. */
export const THEME_COLOR = PALETTE.paper;

/** `:root { --color-paper: …; … }` from the palette. */
export function paletteCss(): string {
  const lines = Object.entries(PALETTE).map(
    ([name, value]) => `--color-${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}:${value};`,
  );
  return `:root{${lines.join("")}}`;
}
