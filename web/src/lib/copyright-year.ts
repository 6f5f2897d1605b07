/**
 * The year in the copyright line: the year the page is rendered, in UTC, so it never stays on last
 * year. A clock in the HTML would break "incremental ≡ full" if nothing re-rendered it, so every
 * render that reads settings records `year:<n>` (`yearDependency`), and reconcile re-renders the
 * routes of an earlier year once the year turns (worker/src/publish/year-turn.ts).
 *
 * The year is read when settings is read (recorded) and when the footer renders (shown): a render
 * straddling midnight of December 31st records the old year and may show the new one, and the next
 * round re-renders it anyway. The other way round cannot happen.
 */
export function copyrightYear(now: Date = new Date()): number {
  return now.getUTCFullYear();
}

/** The dependency a render showing the copyright year records: `year:2026`. */
export function yearDependency(year: number = copyrightYear()): string {
  return `year:${year}`;
}
