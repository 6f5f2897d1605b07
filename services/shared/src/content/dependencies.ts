/**
 * The grammar of what a render depends on, shared by the website's recording of its reads and the
 * engine's dependency index (worker/src/publish/dependency-index.ts):
 *   - `doc:<id>`: the render showed the document's data;
 *   - `url:<id>`: it only linked to it, and `sees:<id>:<route>` says where the link pointed;
 *   - `type:<type>`: a listing of every document of the type; `routes:<type>` when it shows only
 *     their routes and dates (the sitemap);
 *   - `year:<n>`: it showed the calendar year (a copyright line): re-rendered when the year turns.
 */

/** The dependency of a render that linked to `id` and showed it at `route` ("" for a broken link). */
export function seesDependency(id: string, route: string | null | undefined): string {
  return `sees:${id}:${route ?? ""}`;
}

/**
 * The year a render shows as "this year": the year it is rendered, in UTC. A clock in the HTML
 * would break "incremental ≡ full" if nothing re-rendered it, so a render that shows it records
 * `yearDependency`, and the worker re-renders the routes of an earlier year once it turns.
 */
export function calendarYear(now: Date = new Date()): number {
  return now.getUTCFullYear();
}

/** The dependency a render showing the calendar year records: `year:2026`. */
export function yearDependency(year: number = calendarYear()): string {
  return `year:${year}`;
}
