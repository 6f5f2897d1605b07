const UNSAFE = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * Values declared unchanging (`unchangingJson`) and their escaped JSON, made the first time one is
 * written. The contact form's country list (11 KB of JSON, the same array in every form's props) was
 * serialized and escaped again on every page with a form: about 90 µs a page of a 10,000-page
 * build (docs/benchmarks.md, "Issue 22, third pass").
 */
const unchanging = new WeakMap<object, string | undefined>();

/**
 * Declares `value` unchanging for the life of the process: it is deeply frozen (a change throws in
 * strict code instead of going unseen) and `jsonForScript` writes its JSON once, wherever it appears
 * as a value or as a member of a plain object.
 */
export function unchangingJson<T extends object>(value: T): T {
  if (unchanging.has(value)) return value;
  deepFreeze(value);
  unchanging.set(value, undefined);
  return value;
}

/** Freezes `value` and everything in it (a frozen array may still hold objects that are not). */
function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  Object.freeze(value);
  for (const member of Object.values(value)) deepFreeze(member);
}

/**
 * JSON for a `<script type="application/json">` body. `<` is escaped so that
 * content can never close the script (`</script>`) or open a comment; the
 * result still parses as the same JSON.
 *
 * The same characters as `JSON.stringify(value)` with those escapes (`null` where it has none),
 * made member by member for a plain object so that an unchanging member's JSON is reused (escaping
 * works character by character, so the escaped parts joined are the whole escaped).
 */
export function jsonForScript(value: unknown): string {
  if (!isPlainObject(value) || unchanging.has(value)) return json(value) ?? "null";
  let out = "";
  for (const key of Object.keys(value)) {
    const member = json(value[key]);
    if (member === undefined) continue; // JSON.stringify leaves out undefined, functions and symbols
    out += `${out === "" ? "" : ","}${escapeForScript(JSON.stringify(key))}:${member}`;
  }
  return `{${out}}`;
}

/** Escaped JSON of one value; undefined where JSON.stringify answers undefined (no JSON). */
function json(value: unknown): string | undefined {
  if (typeof value === "object" && value !== null && unchanging.has(value)) {
    let made = unchanging.get(value);
    if (made === undefined) {
      made = escapeForScript(JSON.stringify(value));
      unchanging.set(value, made);
    }
    return made;
  }
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : escapeForScript(text);
}

function escapeForScript(text: string): string {
  return text.replace(UNSAFE, (char) => ESCAPES[char] ?? char);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
