import type { PrismicDocument } from "@prismicio/client";
import type { DocumentRecord } from "./page-inputs.ts";

/**
 * A document's version as a listing without its content shows it: its last publication date, which
 * every publication of it moves, and the ids of its other languages (a language added or removed
 * changes what the API writes into it without publishing it). Undefined without a publication date:
 * such a document is never taken as unchanged.
 */
export function versionOf(doc: Pick<PrismicDocument, "last_publication_date" | "alternate_languages">) {
  if (!doc.last_publication_date) return undefined;
  const others = (doc.alternate_languages ?? []).map((alternate) => alternate.id).sort();
  return others.length > 0 ? `${doc.last_publication_date} ${others.join(" ")}` : doc.last_publication_date;
}

/** The documents whose facts the API wrote into `doc` besides its links (found by documentHash). */
export function alternateIds(doc: PrismicDocument): string[] {
  return (doc.alternate_languages ?? []).map((alternate) => alternate.id);
}

const dateOf = (version: string) => Date.parse(version.split(" ", 1)[0] as string);

/** The newest publication date among `versions` (ISO text), or undefined when there are none. */
export function newestDate(versions: Iterable<string>): string | undefined {
  let newest: number | undefined;
  for (const version of versions) {
    const date = dateOf(version);
    if (!Number.isNaN(date) && (newest === undefined || date > newest)) newest = date;
  }
  return newest === undefined ? undefined : new Date(newest).toISOString();
}

/**
 * Whether a document is as the last build read it, judged from versions alone: its own version and
 * that of every document whose facts it holds are the ones recorded (a target absent then is absent
 * now). A publication date has a resolution of one second, so a document published again within the
 * second the last build's newest publication fell in keeps its date: any version as new as that
 * (`newest`) proves nothing, and the document is read again, unless it is a target `settled` (its
 * content read in this build and found as the last build read it). Every publication after the last
 * build's ref is at least that new, so an older date is one no publication has touched since.
 */
export function unchangedSince(
  record: DocumentRecord | undefined,
  version: string | undefined,
  now: ReadonlyMap<string, string>,
  /** A document's version as the last build recorded it. */
  versionBefore: (id: string) => string | undefined,
  newest: number,
  settled: ReadonlySet<string> = NONE,
): boolean {
  if (!record || version === undefined || record.v !== version || !olderThan(version, newest)) return false;
  for (const id of record.t ?? []) {
    const then = versionBefore(id);
    const current = now.get(id);
    if (then !== current) return false;
    if (current !== undefined && !olderThan(current, newest) && !settled.has(id)) return false;
  }
  return true;
}

/**
 * Whether a version's date is older than `newest`, the last build's newest publication: one as new
 * as that may hide a publication within the same second (`unchangedSince`).
 */
export function olderThan(version: string, newest: number): boolean {
  return dateOf(version) < newest;
}

const NONE: ReadonlySet<string> = new Set();
