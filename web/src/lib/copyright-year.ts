import { calendarYear } from "#content/dependencies.ts";

/**
 * The year in the copyright line: the calendar year the page is rendered in (UTC), so it never
 * stays on last year. Every render that reads settings records it (`yearDependency`, in
 * recording-source.ts), and the worker re-renders the routes of an earlier year once it turns.
 *
 * The year is read when settings is read (recorded) and when the footer renders (shown): a render
 * straddling midnight of December 31st records the old year and may show the new one, and the next
 * round re-renders it anyway. The other way round cannot happen.
 */
export function copyrightYear(now: Date = new Date()): number {
  return calendarYear(now);
}
