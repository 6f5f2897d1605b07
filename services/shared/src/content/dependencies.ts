/**
 * The grammar of what a render depends on, shared by the website's recording of its reads and the
 * engine's dependency index (worker/src/publish/dependency-index.ts):
 *   - `doc:<id>`: the render showed the document's data;
 *   - `url:<id>`: it only linked to it, and `sees:<id>:<route>` says where the link pointed;
 *   - `type:<type>`: a listing of every document of the type; `routes:<type>` when it shows only
 *     their routes and dates (the sitemap);
 *   - `routes:<type>@<slot>`: such a listing of only the documents in one listing slot (a part of a
 *     divided sitemap, `listingSlotOf`);
 *   - `count:<type>`: how many documents of the type there are (what divides the sitemap);
 *   - `part:<route>`: the render (a divided sitemap's index) names `<route>` as one of its parts: no
 *     change is ever planned for it; the engine reads it to delete a part the index stops naming;
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

/**
 * Listing slots: every document id falls in one of `LISTING_SLOTS` slots (`listingSlotOf`), for
 * good: a listing divided by slot (a large sitemap's parts) re-renders only the part whose slot
 * holds a changed document, and reads only that part's documents. 256 slots: a listing is divided
 * into at most 256 parts.
 */
export const LISTING_SLOTS = 256;

/** Slots `from` (included) to `to` (excluded), 0 ≤ from < to ≤ LISTING_SLOTS. */
export interface SlotRange {
  readonly from: number;
  readonly to: number;
}

/**
 * The listing slot of a document id: FNV-1a (32 bits) of its UTF-16 code units, folded to 8 bits.
 * Stable across processes and releases: changing it re-divides every divided listing.
 */
export function listingSlotOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash >>>= 0;
  return (hash ^ (hash >>> 8) ^ (hash >>> 16) ^ (hash >>> 24)) & (LISTING_SLOTS - 1);
}

/** Whether `slot` is within `range` (every slot when there is none). */
export function inSlots(slot: number, range: SlotRange | undefined): boolean {
  return range === undefined || (slot >= range.from && slot < range.to);
}

/** The dependency of a routes-only listing of the documents of `type` in `slot`: `routes:page@17`. */
export function routesSlotDependency(type: string, slot: number): string {
  return `routes:${type}@${slot}`;
}

/** The dependency of a render that showed how many documents of `type` there are: `count:page`. */
export function countDependency(type: string): string {
  return `count:${type}`;
}

/** What a sitemap index records of each part it names: `part:/sitemap-1-of-4.xml`. */
export function partDependency(route: string): string {
  return `part:${route}`;
}

/** The parts a render named (`partDependency`), from its recorded dependencies. */
export function partsNamed(dependencies: readonly string[]): string[] {
  return dependencies.filter((dep) => dep.startsWith("part:")).map((dep) => dep.slice("part:".length));
}
