/**
 * The year in the copyright line: the year the page is rendered, in UTC (issue 13: it must not stay
 * on last year). A clock in the HTML would break "incremental ≡ full" for good if nothing
 * re-rendered it, so every render that reads settings (every render with the footer) records
 * `year:<n>` (`yearDependency`), and the worker's reconcile re-renders the routes of an earlier
 * year once the year turns (worker/src/publish/year-turn.ts). Within one year a full build and an
 * incremental publish agree byte for byte.
 *
 * The year is read twice per render, when settings is read (recorded) and when the footer renders
 * (shown). A render straddling midnight of December 31st records the old year and may show the new
 * one: the next round re-renders it anyway. The other way round cannot happen.
 */
export function copyrightYear(now: Date = new Date()): number {
  return now.getUTCFullYear();
}

/** The dependency a render showing the copyright year records: `year:2026`. */
export function yearDependency(year: number = copyrightYear()): string {
  return `year:${year}`;
}
