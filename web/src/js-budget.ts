import type { JavaScriptReport, PageJavaScript } from "#website/contract.ts";
import { wakesWithoutInteraction } from "./browser/island-wake.ts";
import { type BrowserManifest, javascriptBytes } from "./browser-bundle.ts";
import { islandsIn } from "./islands-in.ts";

/**
 * The JavaScript budget (gzip, 1 KB = 1,000 bytes, the stricter reading):
 * - `initial`: what a page without the two heavy islands runs before any interaction, on a first
 *   visit as for a returning visitor: the entry alone (the cookie notice a first visit shows is a
 *   plain module of it, browser/cookie-notice.ts), and never React (island-wake.ts);
 * - `plain`: the same pages once every island woke (the menu tapped: React and the menu's chunk).
 *   80 KB; it does not bind a visitor who only reads (`initial` does);
 * - `heaviest`: any demo page once every island woke.
 * Counted from the pages' own islands and the bundle's manifest; tests/e2e/js-budget.test.ts
 * counts what Chromium really fetches.
 */
export const JS_BUDGET = { initial: 10_000, plain: 80_000, heaviest: 110_000 } as const;
/** Islands that bring a library of their own (Swiper, libphonenumber-js). */
export const HEAVY_ISLANDS: ReadonlySet<string> = new Set(["carousel", "contact-form"]);

export type { JavaScriptReport, PageJavaScript } from "#website/contract.ts";

/** Tallies the JavaScript of each rendered HTML page of a build. */
export function createJavaScriptMeter(manifest: BrowserManifest) {
  let heaviest: PageJavaScript | undefined;
  let plain: PageJavaScript | undefined;
  let initial: (PageJavaScript & { react: boolean }) | undefined;
  const react = new Set(manifest.react);
  return {
    /** Counts a page, from its HTML or from the islands already found in it (a render thread's). */
    add(route: string, html: string | Iterable<string>): void {
      const islands = typeof html === "string" ? islandsIn(html) : new Set(html);
      const page = { route, bytes: javascriptBytes(manifest, islands) };
      if (!heaviest || page.bytes > heaviest.bytes) heaviest = page;
      if ([...islands].some((name) => HEAVY_ISLANDS.has(name))) return;
      if (!plain || page.bytes > plain.bytes) plain = page;
      // Before any interaction, first visit or not: the entry (the cookie notice's code included) and
      // the islands that wake by being seen.
      const seen = [...islands].filter(wakesWithoutInteraction);
      const files = [...manifest.entryFiles, ...seen.flatMap((name) => manifest.islands[name] ?? [])];
      const first = {
        route,
        bytes: javascriptBytes(manifest, seen),
        react: files.some((file) => react.has(file)),
      };
      if (!initial || first.bytes > initial.bytes || (first.react && !initial.react)) initial = first;
    },
    report(): JavaScriptReport {
      const overBudget: string[] = [];
      if (initial && initial.bytes > JS_BUDGET.initial)
        overBudget.push(
          `${initial.route} runs ${kb(initial.bytes)} of JavaScript before any interaction (budget ${kb(JS_BUDGET.initial)})`,
        );
      if (initial?.react)
        overBudget.push(`${initial.route} loads React before any interaction (a plain page must not)`);
      if (plain && plain.bytes > JS_BUDGET.plain)
        overBudget.push(
          `${plain.route} loads ${kb(plain.bytes)} of JavaScript (budget ${kb(JS_BUDGET.plain)})`,
        );
      if (heaviest && heaviest.bytes > JS_BUDGET.heaviest)
        overBudget.push(
          `${heaviest.route} loads ${kb(heaviest.bytes)} of JavaScript (budget ${kb(JS_BUDGET.heaviest)})`,
        );
      const lines: string[] = [];
      if (initial)
        lines.push(
          `JavaScript (gzip): before any interaction (first visit or returning visitor, no carousel or contact form), at most ${describe(initial)}, budget ${kb(JS_BUDGET.initial)}, ${initial.react ? "React included" : "no React"}`,
        );
      if (heaviest)
        lines.push(
          `JavaScript (gzip): heaviest page ${describe(heaviest)}, budget ${kb(JS_BUDGET.heaviest)} (every island woken)`,
        );
      if (plain)
        lines.push(
          `JavaScript (gzip): without carousel or contact form, at most ${describe(plain)}, budget ${kb(JS_BUDGET.plain)} (every island woken)`,
        );
      for (const line of overBudget) lines.push(`Over budget: ${line}`);
      return {
        ...(heaviest ? { heaviest } : {}),
        ...(plain ? { plain } : {}),
        ...(initial ? { initial } : {}),
        overBudget,
        lines,
      };
    },
  };
}

function describe(page: PageJavaScript): string {
  return `${kb(page.bytes)} (${page.route})`;
}

/** `73912` → `"73.9 KB"` (gzip). */
export function kb(bytes: number): string {
  return `${(bytes / 1000).toFixed(1)} KB`;
}
