/**
 * How field values look to predicates and orderings. Without the custom type
 * models at hand, the kind of a field is read from its value's shape.
 */

import { isRecord } from "./types.ts";

/** A rich text or title field: an array of blocks, each with a `type`. */
export function isRichText(value: unknown): value is Array<Record<string, unknown>> {
  return Array.isArray(value) && value.every((block) => isRecord(block) && typeof block.type === "string");
}

/** The plain text of rich text: the blocks' texts, one per line (images and embeds have none). */
export function richTextToPlain(blocks: ReadonlyArray<Record<string, unknown>>): string {
  return blocks
    .map((block) => (typeof block.text === "string" ? block.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** The linked document's id of a content relationship / Document link, else undefined. */
export function linkedDocumentId(value: unknown): string | undefined {
  if (isRecord(value) && value.link_type === "Document" && typeof value.id === "string") return value.id;
  return undefined;
}

/**
 * Whether a field is filled, as `has`/`missing` see it: not null, not "", not [],
 * not an empty link (`{link_type:"Any"}`, whatever `text`/`variant` it carries),
 * not `{}` or an object whose values are all null (an empty image, embed or geopoint),
 * and not rich text whose blocks all lack text (the editor stores an emptied field as one empty paragraph).
 */
export function isFilled(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return false;
  if (Array.isArray(value)) {
    if (value.length === 0) return false;
    if (isRichText(value)) {
      return value.some((block) =>
        typeof block.text === "string" ? block.text !== "" : "url" in block || "oembed" in block,
      );
    }
    return true;
  }
  if (isRecord(value)) {
    if ("link_type" in value) return value.link_type !== "Any";
    return Object.values(value).some((v) => v !== null && v !== undefined);
  }
  return true;
}

/** A short name for a value's kind, for error messages. */
export function describeKind(value: unknown): string {
  if (isRichText(value)) return "rich text";
  if (Array.isArray(value)) return "group or slice zone";
  if (isRecord(value)) {
    if (typeof value.link_type === "string") return `${value.link_type} link`;
    if ("url" in value && "dimensions" in value) return "image";
    return "structured (object) field";
  }
  return typeof value;
}
