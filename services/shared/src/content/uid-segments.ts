/**
 * Which uids can stand in a path segment and a storage key, and how one is spelled there: the
 * grammar every website's routes use, the redirects' paths too. A website adds its own reserved
 * names on top (its `routes.uidProblem`). This file imports nothing: a website's code and the
 * browser may import it as well (.dependency-cruiser.cjs).
 *
 * Prismic accepts lowercase letters, digits, `-` and `_` (docs: "The value cannot contain special
 * characters, except hyphens (-) and underscores (_)"), with leading, trailing and doubled dashes
 * or underscores. Letters outside ASCII (`café`, `über-uns`) are lowercase letters too: they are
 * accepted and percent-encoded in paths (`/caf%C3%A9`) while the storage key holds the uid itself
 * (`café/index.html`), which is what S3 website hosting looks up for that request. A uid must also
 * look like itself: no invisible character, and no Latin letters mixed with lookalike ones of
 * another script (`аbout` with a Cyrillic а); a uid wholly in one script is fine.
 */

export const MAX_UID_LENGTH = 100;
/** A storage key segment's limit (services/shared/src/storage/storage-keys.ts, MAX_SEGMENT_BYTES). */
export const MAX_UID_BYTES = 255;

/** Lowercase letters of any script, letters without case (CJK…), combining marks, digits, `-`, `_`. */
const UID_CHARACTERS = /^[\p{Ll}\p{Lo}\p{Lm}\p{M}\p{Nd}_-]+$/u;
const ASCII_UID = /^[a-z0-9_-]+$/;

/**
 * Why `uid` cannot be a path segment, in words an editor can act on; undefined when it can. A
 * website's reserved names are not checked here.
 */
export function uidSegmentProblem(uid: unknown): string | undefined {
  if (typeof uid !== "string" || uid === "") return "has no uid";
  // Nearly every uid: ASCII within the length, so within the bytes, in the grammar and in NFC. A
  // build asks several times per document (every route it resolves), so the rest waits for others.
  if (uid.length <= MAX_UID_LENGTH && ASCII_UID.test(uid)) return undefined;
  const shown = JSON.stringify(uid.length > 40 ? `${uid.slice(0, 40)}…` : uid);
  if (uid.length > MAX_UID_LENGTH) return `uid ${shown} is longer than ${MAX_UID_LENGTH} characters`;
  // A uid is a folder name in storage: 255 bytes at most (100 letters of 3 bytes each would not fit).
  if (new TextEncoder().encode(uid).length > MAX_UID_BYTES) {
    return `uid ${shown} is longer than ${MAX_UID_BYTES} bytes in UTF-8 (use fewer non-ASCII letters)`;
  }
  if (!UID_CHARACTERS.test(uid)) {
    return `uid ${shown} cannot be a path segment: use lowercase letters, digits, "-" and "_" only`;
  }
  const invisible = INVISIBLE.exec(uid)?.[0];
  if (invisible !== undefined) {
    const code = (invisible.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0");
    return `uid ${shown} holds an invisible character (U+${code}): an address must show every character it has; remove it`;
  }
  // Two spellings of one text (é as one code point or as e + accent) must not be two routes.
  if (uid.normalize("NFC") !== uid) return `uid ${shown} is not in Unicode normal form (NFC)`;
  const mixed = mixedScript(uid);
  if (mixed) return `uid ${shown} ${mixed}: write it in one script`;
  return undefined;
}

/**
 * Characters browsers draw as nothing (Unicode's default-ignorable code points: the Hangul fillers,
 * which count as letters, variation selectors and the grapheme joiner, which count as marks): a
 * uid holding one looks like another uid, or like nothing at all.
 */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

/**
 * Scripts with letters drawn like Latin ones (Cyrillic а, е, о, р, с, і; Greek ο, ν; Armenian օ, ո;
 * Cherokee): `аbout` with a Cyrillic а looks like `about` and would be another page. A uid wholly
 * in one of them is fine (`о-нас`), and so is Latin beside a script no one takes for it (`会社-about`).
 */
const LOOKALIKE_SCRIPTS = [
  ["Cyrillic", /\p{Script=Cyrillic}/gu],
  ["Greek", /\p{Script=Greek}/gu],
  ["Armenian", /\p{Script=Armenian}/gu],
  ["Cherokee", /\p{Script=Cherokee}/gu],
] as const;
const LATIN = /\p{Script=Latin}/u;

/** How `uid` mixes Latin letters with a script whose letters look like them, or undefined. */
function mixedScript(uid: string): string | undefined {
  if (!LATIN.test(uid)) return undefined;
  for (const [script, letters] of LOOKALIKE_SCRIPTS) {
    const found = uid.match(letters);
    if (found)
      return `mixes Latin letters with ${script} ones (${[...new Set(found)].join(", ")}), which can look the same`;
  }
  return undefined;
}

/** Whether `uid` may stand in a path segment (the grammar alone, no reserved names). */
export function isUidSegmentSafe(uid: unknown): uid is string {
  return uidSegmentProblem(uid) === undefined;
}

/** The path segment of a uid: itself when ASCII, percent-encoded otherwise. */
export function uidToSegment(uid: string): string {
  return ASCII_UID.test(uid) ? uid : encodeURIComponent(uid);
}

/**
 * The uid a path segment names, or undefined. Only the canonical spelling (`uidToSegment`) is
 * accepted, so one uid has exactly one path and an encoded `/`, `.` or `%` can never slip through.
 */
export function uidFromSegment(segment: string): string | undefined {
  if (ASCII_UID.test(segment)) return isUidSegmentSafe(segment) ? segment : undefined;
  if (!/^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/.test(segment)) return undefined;
  let uid: string;
  try {
    uid = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  return isUidSegmentSafe(uid) && uidToSegment(uid) === segment ? uid : undefined;
}
