/**
 * jsonForScript: the body of a `<script type="application/json">` (island props, JSON-LD). What a
 * visitor's browser relies on: it parses to the same value, and no content can end the script.
 */
import { describe, expect, it } from "vitest";
import { jsonForScript } from "#web/lib/json-script.ts";

/** The definition: JSON.stringify, then the five escapes. */
const reference = (value: unknown) =>
  (JSON.stringify(value) ?? "null").replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

describe("jsonForScript", () => {
  const countries = [
    { code: "GB", label: "United Kingdom (+44)" },
    { code: "XX", label: "</script><script>alert(1)</script> & \u2028\u2029" },
  ];
  const values: [string, unknown][] = [
    ["a string that would close the script", "</script><!-- & \u2028 \u2029 >"],
    ["a number, null, a boolean", [1.5, null, true]],
    ["nested objects and arrays", { a: [{ b: "<b>" }, [1, [2]]], c: { d: "&" } }],
    ["members JSON leaves out", { kept: 1, gone: undefined, fn: () => 1, sym: Symbol("x"), last: "<" }],
    ["a member whose value is a Date (toJSON)", { at: new Date(Date.UTC(2026, 10, 27)), n: 0 }],
    ["an object with a toJSON of its own", { toJSON: () => ({ replaced: "<yes>" }) }],
    ["an object without a prototype", Object.assign(Object.create(null), { x: "<", y: [1] })],
    ["keys that need escaping", { "</script>": 1, "a\u2028b": "c", "": "empty key" }],
    ["integer-like keys (listed first by both)", { b: 1, 2: "two", a: 3, 1: "one" }],
    ["the same array twice", { id: "form-1", countries, again: countries }],
    ["an array alone", countries],
    ["a lone surrogate", { s: "\ud800" }],
    ["empty object and array", { o: {}, a: [] }],
  ];

  it.each(values)(
    "%s: the same characters as JSON.stringify with < > & U+2028 U+2029 escaped",
    (_, value) => {
      const json = jsonForScript(value);
      expect(json).toBe(reference(value));
      expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    },
  );

  it("parses back to the value, so the island gets the props the server rendered with", () => {
    const props = { id: "contact-form-1", defaultCountry: "GB", countries };
    expect(JSON.parse(jsonForScript(props))).toEqual(props);
  });

  it("writes null where JSON.stringify has nothing to write", () => {
    expect(jsonForScript(undefined)).toBe("null");
    expect(jsonForScript(() => 1)).toBe("null");
  });
});
