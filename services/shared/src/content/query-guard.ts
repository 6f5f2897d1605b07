import { ContentQueryError } from "../errors.ts";
import type { ContentSchema } from "./content-schema.ts";

const FILTER_NAMES = new Set([
  "at",
  "not",
  "any",
  "in",
  "fulltext",
  "has",
  "missing",
  "similar",
  "geopoint.near",
  "number.lt",
  "number.gt",
  "number.inRange",
  "date.after",
  "date.before",
  "date.between",
  "date.day-of-month",
  "date.day-of-month-after",
  "date.day-of-month-before",
  "date.day-of-week",
  "date.day-of-week-after",
  "date.day-of-week-before",
  "date.month",
  "date.month-after",
  "date.month-before",
  "date.year",
  "date.hour",
  "date.hour-after",
  "date.hour-before",
]);

const DOCUMENT_FIELDS = new Set([
  "id",
  "type",
  "tags",
  "lang",
  "first_publication_date",
  "last_publication_date",
]);

export interface QueryParams {
  filters?: string | readonly string[];
  predicates?: string | readonly string[];
  lang?: string;
  orderings?: unknown;
}

/**
 * Refuses, before any request, a query that can only give a wrong answer: an
 * unknown filter, a field that no model has, a type that does not exist, or a
 * uid lookup across every language (uids are unique per language only).
 */
export function guardQuery(params: QueryParams, schema: ContentSchema | undefined): void {
  const filters = [...castArray(params.filters), ...castArray(params.predicates)];
  for (const filter of filters) {
    const match = /^\[\s*([\w.-]+)\(\s*([\w.]+)\s*(?:,\s*([\s\S]*))?\)\s*\]$/.exec(filter.trim());
    if (!match) throw new ContentQueryError(`Invalid query: cannot read the filter ${filter}`);
    const [, name = "", path = "", rawValue = ""] = match;
    if (!FILTER_NAMES.has(name))
      throw new ContentQueryError(`Invalid query: unknown filter "${name}" in ${filter}`);
    checkPath(path, filter, schema);
    if (path === "document.type" && schema && (name === "at" || name === "any" || name === "in")) {
      for (const type of stringValues(rawValue)) {
        if (!(type in schema.types)) {
          throw new ContentQueryError(
            `Invalid query: unknown document type "${type}" (known: ${Object.keys(schema.types).join(", ")})`,
          );
        }
      }
    }
    if (params.lang === "*" && /^my\.[\w-]+\.uid$/.test(path)) {
      throw new ContentQueryError(
        `Invalid query: a lookup by uid with lang "*" is refused, because a uid is unique only within one language; pass a language (e.g. "en-us") instead of "*"`,
      );
    }
  }
  for (const ordering of castArray(params.orderings as string | readonly string[] | undefined)) {
    const field =
      typeof ordering === "string" ? ordering.split(" ")[0] : (ordering as { field?: string }).field;
    if (field) checkPath(field, `orderings ${field}`, schema);
  }
}

function checkPath(path: string, context: string, schema: ContentSchema | undefined): void {
  const [root, type = "", field, ...rest] = path.split(".");
  if (root === "document" && field === undefined && DOCUMENT_FIELDS.has(type)) return;
  if (root !== "my" || !type || !field) throw new ContentQueryError(`Unknown field ${path} in ${context}`);
  if (!schema) return;
  const fields = schema.types[type];
  if (!fields)
    throw new ContentQueryError(`Unknown field ${path} in ${context}: there is no custom type "${type}"`);
  // `my.type.group.field` addresses a field inside a group; the group itself must exist.
  if (!fields.includes(field)) {
    throw new ContentQueryError(`Unknown field ${path} in ${context}: "${type}" has no field "${field}"`);
  }
  if (rest.length > 1) throw new ContentQueryError(`Unknown field ${path} in ${context}`);
}

function stringValues(raw: string): string[] {
  return [...raw.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? "");
}

function castArray<T>(value: T | readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}
