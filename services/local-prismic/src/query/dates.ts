/**
 * Publication dates come as `2020-04-03T17:09:09+0000`; the offset without a colon
 * is not ISO 8601, so normalise it before Date.parse.
 */

export function parsePrismicDate(text: string): number {
  return Date.parse(text.replace(/([+-]\d\d)(\d\d)$/, "$1:$2"));
}

const DAY_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Whether a publication date equals a predicate argument: a number is epoch
 * milliseconds (what `filter.at(path, new Date())` sends), a `YYYY-MM-DD` string
 * matches the whole UTC day, any other string is parsed as a full date.
 */
export function dateMatches(documentDate: string | null, argument: string | number): boolean {
  if (documentDate === null) return false;
  const time = parsePrismicDate(documentDate);
  if (Number.isNaN(time)) return false;
  if (typeof argument === "number") return time === argument;
  if (DAY_ONLY.test(argument)) return new Date(time).toISOString().slice(0, 10) === argument;
  return time === parsePrismicDate(argument);
}

/** Whether a predicate's date argument can be understood at all. */
export function isDateArgument(argument: unknown): argument is string | number {
  if (typeof argument === "number") return Number.isFinite(argument);
  return typeof argument === "string" && !Number.isNaN(parsePrismicDate(argument));
}
