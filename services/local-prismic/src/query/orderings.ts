/**
 * The `orderings` parameter: `[my.page.title desc, document.first_publication_date]`.
 * The client sends one bracketed value; older code sends several `orderings=` values,
 * with or without brackets: all are read, in order, as one list.
 */

import { parsePrismicDate } from "./dates.ts";
import { unsupportedError, validationError } from "./errors.ts";
import { describeKind, isRichText, richTextToPlain } from "./field-values.ts";
import { type Path, parsePath, readPath } from "./paths.ts";
import { isRecord, type PrismicDocument } from "./types.ts";

export interface Ordering {
  path: Path;
  descending: boolean;
}

/** A sortable value; null sorts last in both directions (an unset field is never "first"). */
type SortKey = string | number | boolean | null;

export function parseOrderings(values: readonly string[]): Ordering[] {
  const orderings: Ordering[] = [];
  for (const raw of values) {
    let text = raw.trim();
    if (text.startsWith("[") !== text.endsWith("]")) {
      throw validationError(`Invalid orderings ${JSON.stringify(raw)}: unbalanced brackets`);
    }
    if (text.startsWith("[")) text = text.slice(1, -1);
    for (const item of text.split(",")) {
      if (item.trim() === "") continue;
      orderings.push(parseOrdering(item.trim(), raw));
    }
  }
  return orderings;
}

function parseOrdering(item: string, raw: string): Ordering {
  const [pathText = "", direction, ...rest] = item.split(/\s+/);
  if (rest.length > 0 || (direction !== undefined && direction !== "desc" && direction !== "asc")) {
    throw validationError(
      `Invalid ordering ${JSON.stringify(item)} in orderings=${raw}: expected "<path>", "<path> asc" or "<path> desc"`,
    );
  }
  const result = parsePath(pathText);
  if (!result.ok) {
    throw result.reason === "unsupported"
      ? unsupportedError(`${result.message} (in orderings)`)
      : validationError(`${result.message} (in orderings)`);
  }
  if (result.path.kind === "document" && result.path.field === "tags") {
    throw validationError("Cannot order by document.tags");
  }
  return { path: result.path, descending: direction === "desc" };
}

const collator = new Intl.Collator("en");

/**
 * A sorted copy. Ties keep the incoming (creation) order: Array.prototype.sort is
 * stable, so paging through a sorted result never skips or repeats a document.
 */
export function sortDocuments(
  documents: readonly PrismicDocument[],
  orderings: readonly Ordering[],
): PrismicDocument[] {
  if (orderings.length === 0) return [...documents];
  const keyed = documents.map((doc) => ({ doc, keys: orderings.map((o) => sortKey(doc, o.path)) }));
  keyed.sort((a, b) => {
    for (const [i, ordering] of orderings.entries()) {
      const order = compareKeys(a.keys[i] ?? null, b.keys[i] ?? null, ordering.descending);
      if (order !== 0) return order;
    }
    return 0;
  });
  return keyed.map((entry) => entry.doc);
}

function compareKeys(a: SortKey, b: SortKey, descending: boolean): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  let order: number;
  if (typeof a !== typeof b) order = kindRank(a) - kindRank(b);
  else if (typeof a === "string") order = collator.compare(a, b as string);
  else order = a < b ? -1 : a > b ? 1 : 0;
  return descending ? -order : order;
}

const kindRank = (key: string | number | boolean): number =>
  typeof key === "number" ? 0 : typeof key === "string" ? 1 : 2;

function sortKey(doc: PrismicDocument, path: Path): SortKey {
  const value = readPath(doc, path);
  if (path.kind === "document" && path.field.endsWith("publication_date")) {
    const time = typeof value === "string" ? parsePrismicDate(value) : Number.NaN;
    return Number.isNaN(time) ? null : time;
  }
  if (value === undefined || value === null || value === "") return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  // Rich text (titles) sorts by its plain text, as Prismic does.
  if (isRichText(value)) return richTextToPlain(value) || null;
  if (isRecord(value) && value.link_type === "Any") return null;
  throw unsupportedError(
    `The local content service cannot order by ${path.text}: it holds a ${describeKind(value)} field ` +
      "(orderings compare text, select, number, boolean, date and rich text fields)",
  );
}
