/**
 * `fetch` and `fetchLinks`: comma-separated `type.field` lists, e.g.
 * `price_list.title,price_list.currency`. The client joins arrays with commas;
 * Prismic's docs also show the list in brackets, so both forms are read.
 */

import { unsupportedError, validationError } from "./errors.ts";

/** Field names by type. */
export type FieldList = ReadonlyMap<string, ReadonlySet<string>>;

/** Reads every value of parameter `name`; null when it is absent. */
export function parseFieldList(
  name: "fetch" | "fetchLinks",
  values: readonly string[],
  knownTypes: readonly string[],
): FieldList | null {
  if (values.length === 0) return null;
  const list = new Map<string, Set<string>>();
  for (const raw of values) {
    let text = raw.trim();
    if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
    for (const item of text.split(",")) {
      const entry = item.trim();
      if (entry === "") continue;
      const parts = entry.split(".");
      const [type, field] = parts;
      if (type === undefined || field === undefined || type === "" || field === "") {
        throw validationError(`Invalid ${name} entry ${JSON.stringify(entry)}: expected <type>.<field>`);
      }
      if (parts.length > 2) {
        throw unsupportedError(
          `The local content service does not implement ${name} of fields inside groups (${entry}); name a top-level field (<type>.<field>)`,
        );
      }
      if (!knownTypes.includes(type)) {
        throw validationError(
          `Invalid ${name} entry ${JSON.stringify(entry)}: unknown type ${JSON.stringify(type)}`,
        );
      }
      const fields = list.get(type) ?? new Set<string>();
      fields.add(field);
      list.set(type, fields);
    }
  }
  return list;
}

/** A copy of `data` holding only `fields` (the ones the document has). */
export function pickFields(
  data: Record<string, unknown>,
  fields: ReadonlySet<string> | undefined,
): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const field of fields ?? []) {
    if (Object.hasOwn(data, field)) picked[field] = structuredClone(data[field]);
  }
  return picked;
}
