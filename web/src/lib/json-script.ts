const UNSAFE = /[<>&\u2028\u2029]/g;
const ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

/**
 * JSON for a `<script type="application/json">` body. `<` is escaped so that
 * content can never close the script (`</script>`) or open a comment; the
 * result still parses as the same JSON (`null` where `JSON.stringify` has none).
 */
export function jsonForScript(value: unknown): string {
  return escapeForScript(JSON.stringify(value) ?? "null");
}

function escapeForScript(text: string): string {
  return text.replace(UNSAFE, (char) => ESCAPES[char] ?? char);
}
