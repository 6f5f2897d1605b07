import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadDemoDocuments } from "#local-prismic/demo.ts";
import { generatedPageUid, generateRepository } from "#local-prismic/generate.ts";
import { loadModels } from "#local-prismic/models.ts";
import { validateRepository } from "#local-prismic/validate.ts";
import { uidProblem } from "#web/uid-rules.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const models = loadModels(ROOT);
const hash = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex");

describe("generateRepository", () => {
  const docs = generateRepository({ pages: 300, priceLists: 8, seed: 1, models });

  it("makes the requested documents, all valid together", () => {
    expect(docs.filter((d) => d.type === "page")).toHaveLength(300);
    expect(docs.filter((d) => d.type === "price_list")).toHaveLength(8);
    expect(docs.filter((d) => d.type === "settings")).toHaveLength(1);
    expect(validateRepository(docs, models)).toEqual([]);
  });

  it("gives unique safe uids, one home page and Prismic-like ids", () => {
    const uids = docs.filter((d) => d.uid !== null).map((d) => `${d.type}/${d.uid}`);
    expect(new Set(uids).size).toBe(uids.length);
    expect(docs.filter((d) => d.uid === "home")).toHaveLength(1);
    expect(docs.find((d) => d.type === "page" && d.uid === "page-00001")).toBeDefined();
    expect(docs.find((d) => d.uid === "page-00299")).toBeDefined();
    for (const doc of docs) {
      if (doc.uid !== null) expect(uidProblem(doc.type, doc.uid)).toBeUndefined();
      expect(doc.id).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(doc.lang).toBe("en-us");
    }
    expect(new Set(docs.map((d) => d.id)).size).toBe(docs.length);
  });

  it("copies the demo settings and points their links at generated documents", () => {
    const demoSettings = loadDemoDocuments().find((d) => d.type === "settings");
    const settings = docs.find((d) => d.type === "settings");
    expect(settings?.data.brand_name).toBe(demoSettings?.data.brand_name);
    const ids = new Set(docs.map((d) => d.id));
    const linked = JSON.stringify(docs).match(/"link_type":"Document","id":"[^"]+"/g) ?? [];
    expect(linked.length).toBeGreaterThan(100);
    for (const link of linked) expect(ids.has(link.slice(-17, -1)), link).toBe(true);
  });

  it("links every price list table to a generated price list and uses local images only", () => {
    const lists = new Set(docs.filter((d) => d.type === "price_list").map((d) => d.id));
    const tables = docs
      .flatMap(
        (d) => (d.data.slices ?? []) as { slice_type: string; primary: { price_list: { id?: string } } }[],
      )
      .filter((s) => s.slice_type === "price_list_table");
    expect(tables.length).toBeGreaterThan(0);
    for (const table of tables) expect(lists.has(table.primary.price_list.id ?? "")).toBe(true);
    const imageUrls = JSON.stringify(docs).match(/"url":"[^"]*\.(?:jpg|png)"/g) ?? [];
    expect(imageUrls.length).toBeGreaterThan(300);
    for (const url of imageUrls) expect(url).toMatch(/^"url":"\{\{ASSET_BASE\}\}\/images\//);
  });

  it("is deterministic for a seed and different for another", () => {
    const again = generateRepository({ pages: 300, priceLists: 8, seed: 1, models });
    expect(hash(again)).toBe(hash(docs));
    const other = generateRepository({ pages: 300, priceLists: 8, seed: 2, models });
    expect(hash(other)).not.toBe(hash(docs));
  });

  it("gives page N the same fields and slices whatever the repository's size", () => {
    const larger = generateRepository({ pages: 1200, priceLists: 8, seed: 1, models });
    // What differs: where links and images point, and the slices' random ids.
    const content = (doc: { data: unknown } | undefined) =>
      JSON.stringify(doc?.data, (key, value) =>
        key === "id" || key === "url"
          ? undefined
          : value && typeof value === "object" && "link_type" in value
            ? value.link_type
            : value,
      );
    const byUid = new Map(larger.map((doc) => [doc.uid, doc]));
    for (const ordinal of [0, 1, 12, 299]) {
      const small = docs.find((d) => d.uid === generatedPageUid(ordinal, 300));
      const large = byUid.get(generatedPageUid(ordinal, 1200));
      expect(small, `page ${ordinal}`).toBeDefined();
      expect(content(large)).toBe(content(small));
    }
    // Not equal by accident: two pages of one repository differ.
    expect(content(byUid.get(generatedPageUid(13, 1200)))).not.toBe(
      content(byUid.get(generatedPageUid(12, 1200))),
    );
    expect(generatedPageUid(12, 100_000)).toBe("page-000012");
  });

  it("refuses sizes that cannot hold a home page", () => {
    expect(() => generateRepository({ pages: 0, priceLists: 1, seed: 1, models })).toThrow(/pages/);
  });
});
