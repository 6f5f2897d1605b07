/**
 * Paths name a value of a document: `document.<meta>` or `my.<type>.<field>`.
 * Predicates, orderings and field lists all read them through here.
 */

import type { PrismicDocument } from "./types.ts";

export const DOCUMENT_FIELDS = [
  "id",
  "type",
  "tags",
  "lang",
  "first_publication_date",
  "last_publication_date",
] as const;
export type DocumentField = (typeof DOCUMENT_FIELDS)[number];

export type Path =
  | { kind: "document"; field: DocumentField; text: string }
  /** `my.<type>.uid`: the document's uid, only for documents of that type. */
  | { kind: "uid"; type: string; text: string }
  /** `my.<type>.<field>`: a top-level data field, only for documents of that type. */
  | { kind: "field"; type: string; field: string; text: string };

/**
 * `invalid`: Prismic would refuse the path too; `unsupported`: Prismic accepts it
 * (group sub-fields, other metadata) but this service does not implement it.
 */
export type PathResult =
  | { ok: true; path: Path }
  | { ok: false; reason: "invalid" | "unsupported"; message: string };

const NAME = /^[A-Za-z0-9_-]+$/;

export function parsePath(text: string): PathResult {
  const parts = text.split(".");
  const [root, second, third] = parts;
  if (root === "document" && parts.length === 2 && second !== undefined) {
    const field = DOCUMENT_FIELDS.find((f) => f === second);
    if (field) return { ok: true, path: { kind: "document", field, text } };
    return {
      ok: false,
      reason: "unsupported",
      message: `The local content service does not implement the path ${text} (document paths: ${DOCUMENT_FIELDS.map((f) => `document.${f}`).join(", ")})`,
    };
  }
  if (root === "my" && second !== undefined && third !== undefined && NAME.test(second) && NAME.test(third)) {
    if (parts.length > 3) {
      return {
        ok: false,
        reason: "unsupported",
        message: `The local content service does not implement the path ${text}: only top-level fields (my.<type>.<field>) are supported, not fields inside groups or slices`,
      };
    }
    if (third === "uid") return { ok: true, path: { kind: "uid", type: second, text } };
    return { ok: true, path: { kind: "field", type: second, field: third, text } };
  }
  return {
    ok: false,
    reason: "invalid",
    message: `Invalid path ${text}: expected document.<field> or my.<type>.<field>`,
  };
}

/**
 * The value a path reads on a document; `undefined` when a `my.` path names
 * another type, so that such documents never match (Prismic scopes `my.<type>` paths to the type).
 */
export function readPath(doc: PrismicDocument, path: Path): unknown {
  switch (path.kind) {
    case "document":
      return doc[path.field];
    case "uid":
      return doc.type === path.type ? doc.uid : undefined;
    case "field":
      return doc.type === path.type ? doc.data[path.field] : undefined;
  }
}

/** Whether a `my.` path applies to this document at all. */
export function pathAppliesTo(doc: PrismicDocument, path: Path): boolean {
  return path.kind === "document" || doc.type === path.type;
}
