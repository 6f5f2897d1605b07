import { type BrowserManifest, islandsIn, javascriptBytes } from "./browser-bundle.ts";

/**
 * The JavaScript budget (gzip, 1 KB = 1,000 bytes, the stricter reading): a
 * page without the two heavy islands loads at most `plain`, any demo page at
 * most `heaviest`. Counted as everything the page would load once all its
 * islands hydrated: the entry and its imports, plus each island's files once.
 */
export const JS_BUDGET = { plain: 75_000, heaviest: 110_000 } as const;
/** Islands that bring a library of their own (Swiper, libphonenumber-js). */
export const HEAVY_ISLANDS: ReadonlySet<string> = new Set(["carousel", "contact-form"]);

export interface PageJavaScript {
  route: string;
  bytes: number;
}

export interface JavaScriptReport {
  /** The page loading the most JavaScript. */
  heaviest?: PageJavaScript;
  /** The heaviest page among those without a heavy island. */
  plain?: PageJavaScript;
  /** Human-readable lines for each budget exceeded; empty when within budget. */
  overBudget: string[];
  /** What the build prints: both figures against their budgets, then anything over. */
  lines: string[];
}

/** Tallies the JavaScript of each rendered HTML page of a build. */
export function createJavaScriptMeter(manifest: BrowserManifest) {
  let heaviest: PageJavaScript | undefined;
  let plain: PageJavaScript | undefined;
  return {
    /** Counts a page, from its HTML or from the islands already found in it (a render thread's). */
    add(route: string, html: string | Iterable<string>): void {
      const islands = typeof html === "string" ? islandsIn(html) : new Set(html);
      const page = { route, bytes: javascriptBytes(manifest, islands) };
      if (!heaviest || page.bytes > heaviest.bytes) heaviest = page;
      const isPlain = ![...islands].some((name) => HEAVY_ISLANDS.has(name));
      if (isPlain && (!plain || page.bytes > plain.bytes)) plain = page;
    },
    report(): JavaScriptReport {
      const overBudget: string[] = [];
      if (plain && plain.bytes > JS_BUDGET.plain)
        overBudget.push(
          `${plain.route} loads ${kb(plain.bytes)} of JavaScript (budget ${kb(JS_BUDGET.plain)})`,
        );
      if (heaviest && heaviest.bytes > JS_BUDGET.heaviest)
        overBudget.push(
          `${heaviest.route} loads ${kb(heaviest.bytes)} of JavaScript (budget ${kb(JS_BUDGET.heaviest)})`,
        );
      const lines: string[] = [];
      if (heaviest)
        lines.push(
          `JavaScript (gzip): heaviest page ${describe(heaviest)}, budget ${kb(JS_BUDGET.heaviest)}`,
        );
      if (plain)
        lines.push(
          `JavaScript (gzip): without carousel or contact form, at most ${describe(plain)}, budget ${kb(JS_BUDGET.plain)}`,
        );
      for (const line of overBudget) lines.push(`Over budget: ${line}`);
      return { ...(heaviest ? { heaviest } : {}), ...(plain ? { plain } : {}), overBudget, lines };
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
