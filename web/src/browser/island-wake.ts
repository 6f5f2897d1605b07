/**
 * When each island wakes (loads React and its chunk, and hydrates). Nothing runs React before an
 * island needs it: a visitor on a plain page, first visit or returning, runs the entry alone
 * (docs/benchmarks.md, "JavaScript budget"); the cookie notice is no React island (a plain module
 * of the entry, cookie-notice.ts). Plain data, imported by the browser's loader and by the build's
 * budget.
 *
 * - `interaction`: the first pointerdown, focus, click or key on the island. Its server markup
 *   must work on its own for that first gesture (the mobile menu's `<details>` opens natively);
 *   hydration waits until the gesture is over, so the gesture is never split between two markups.
 * - `visible`: near the viewport (200 px).
 * - `visible-or-focus`: near the viewport, or as soon as focus enters it (a keyboard user tabbing in).
 */
export type Wake = "interaction" | "visible" | "visible-or-focus";

export const ISLAND_WAKE: Readonly<Record<string, Wake>> = {
  "mobile-menu": "interaction",
  carousel: "visible",
  "contact-form": "visible-or-focus",
};

/** Islands that may wake with no interaction at all (what a visitor who only looks still runs). */
export function wakesWithoutInteraction(name: string): boolean {
  const wake = ISLAND_WAKE[name];
  return wake === "visible" || wake === "visible-or-focus";
}
