import { randomBytes } from "node:crypto";

/** Prismic ids and refs are 16 url-safe characters (e.g. `X6qn-RIAACMAVge1`). */
export function newPrismicId(): string {
  return randomBytes(12).toString("base64url");
}

/** Prismic's date format: `2020-04-03T17:09:09+0000`. */
export function prismicDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+0000`;
}
