import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

/**
 * The local content service answers in the shapes real Prismic answers, checked against answers
 * recorded from real repositories (tests/support/fixtures/, their sources in its
 * SOURCES.md): the `/api/v2` root of flusmic.cdn.prismic.io (2020, from github.com/PixelaGt/flusmic
 * test/error_flusmic_test.dart) and a `documents/search` answer (prismic-client commit e9e68554,
 * test/fixtures/search.json, trimmed to two results). Every field the real answer has is there, of
 * the same JSON kind (a `null` on either side is a value Prismic also leaves empty), the search
 * form's fields are the real ones, and a result's `href` is built the way Prismic builds it.
 * Repository-specific maps (custom type names, bookmarks, documents' data) are compared as maps.
 */
const FIXTURES = new URL("../support/fixtures/", import.meta.url).pathname;
const recorded = (name: string) => JSON.parse(readFileSync(`${FIXTURES}${name}`, "utf8"));
const REAL_ROOT = recorded("api-root.flusmic-2020.json");
const REAL_SEARCH = recorded("prismic-client-2017.search.trimmed.json");
/** Objects whose keys are the repository's own (type ids, bookmark names, a model's fields). */
const MAPS = new Set(["types", "bookmarks", "results[].data"]);

const kind = (value: unknown) => (Array.isArray(value) ? "array" : value === null ? "null" : typeof value);

/** Where `local` lacks what `real` has, or holds another kind of value there. */
function differences(real: unknown, local: unknown, path = ""): string[] {
  if (real === null || local === null) return [];
  if (kind(real) !== kind(local))
    return [`${path || "the answer"}: ${kind(local)} where Prismic has ${kind(real)}`];
  if (Array.isArray(real))
    return real.length > 0 && (local as unknown[]).length > 0
      ? differences(real[0], (local as unknown[])[0], `${path}[]`)
      : [];
  if (kind(real) !== "object" || MAPS.has(path)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(real as Record<string, unknown>)) {
    const at = path ? `${path}.${key}` : key;
    if (!(key in (local as Record<string, unknown>))) out.push(`${at}: missing`);
    else out.push(...differences(value, (local as Record<string, unknown>)[key], at));
  }
  return out;
}

let service: LocalPrismic;
let root: Record<string, unknown> & { refs: { ref: string }[] };

beforeAll(async () => {
  service = await startLocalPrismic();
  root = await (await fetch(service.endpoint)).json();
});
afterAll(() => service?.stop());

describe("the local content service's answers against answers recorded from real Prismic", () => {
  it("the API root has every field of a real one (flusmic.cdn.prismic.io, 2020), of the same kind", () => {
    expect(differences(REAL_ROOT, root)).toEqual([]);
    // The search form's fields, types, multiplicity and defaults are the real ones (and the access
    // token, which a private repository's form has too).
    const real = REAL_ROOT.forms.everything;
    const local = (root.forms as typeof REAL_ROOT.forms).everything;
    expect(local.method).toBe(real.method);
    expect(local.enctype).toBe(real.enctype);
    expect(local.action).toBe(`${service.endpoint}/documents/search`);
    expect(local.fields).toEqual({ ...real.fields, access_token: { type: "String", multiple: false } });
  });

  it("a search answer has the real envelope and documents' fields, and hrefs built as Prismic builds them", async () => {
    const ref = root.refs[0]?.ref as string;
    const search = await (
      await fetch(`${service.endpoint}/documents/search?ref=${ref}&pageSize=2&page=2`)
    ).json();
    expect(differences(REAL_SEARCH, search)).toEqual([]);
    expect(Object.keys(search)).toEqual(Object.keys(REAL_SEARCH));
    const hrefShape = (href: string, endpoint: string, id: string) =>
      href
        .replace(endpoint, "<endpoint>")
        .replace(/ref=[^&]+/, "ref=<ref>")
        .replace(encodeURIComponent(`"${id}"`), "<id>");
    const realDoc = REAL_SEARCH.results[0];
    const localDoc = search.results[0];
    expect(hrefShape(localDoc.href, service.endpoint, localDoc.id)).toBe(
      hrefShape(realDoc.href, "http://localhost:3000/api/v2", realDoc.id),
    );
    expect(search.next_page).toBe(`${service.endpoint}/documents/search?ref=${ref}&pageSize=2&page=3`);
    expect(search.prev_page).toBe(`${service.endpoint}/documents/search?ref=${ref}&pageSize=2&page=1`);
  });
});
