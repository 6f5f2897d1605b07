/**
 * `documentHash`: what reconcile compares with the dependency index to find publications no
 * webhook announced. It must change with a document's own publication, and only with it: a hash
 * that moved with the ref or with a linked document would make reconcile republish documents
 * nobody edited (the settings document links to most pages: that is every route).
 */
import { readdirSync, readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { describe, expect, it } from "vitest";
import { sha256 } from "#storage";
import { documentHash } from "#worker/build/document-hash.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO_DIR = `${ROOT}services/local-prismic/demo/documents/`;
// The demo's pricing page: its slices link to other pages (the FAQ among them).
const PRICING = JSON.parse(
  readFileSync(`${ROOT}services/local-prismic/demo/documents/Z9nWvxEAACUAx1Ee.json`, "utf8"),
) as PrismicDocument;

/** The document with every link to `targetId` rewritten by `change`, as the API would after the target's publication. */
function withLinksTo(
  doc: PrismicDocument,
  targetId: string,
  change: (link: Record<string, unknown>) => void,
): PrismicDocument {
  let found = 0;
  const copy = JSON.parse(JSON.stringify(doc), (_key, value) => {
    if (value && typeof value === "object" && value.link_type === "Document" && value.id === targetId) {
      change(value);
      found++;
    }
    return value;
  }) as PrismicDocument;
  expect(found, `links to ${targetId} in the fixture`).toBeGreaterThan(0);
  return copy;
}

describe("documentHash", () => {
  it("hashes what JSON.stringify with a link replacer gives (the index's hashes stay valid across the change)", () => {
    // The definition the dependency index's stored hashes were made with, before the faster walk.
    const reference = (doc: PrismicDocument) => {
      const { href: _href, alternate_languages: _alternates, ...own } = doc;
      const json = JSON.stringify(own, (_key, value) =>
        value && typeof value === "object" && value.link_type === "Document" && typeof value.id === "string"
          ? value.id
          : value,
      );
      return sha256(json).slice(0, 24);
    };
    const documents = readdirSync(DEMO_DIR).map(
      (file) => JSON.parse(readFileSync(`${DEMO_DIR}${file}`, "utf8")) as PrismicDocument,
    );
    // Links in arrays, nested groups and slices, at the top of data, and a link as the only value.
    documents.push({ ...PRICING, data: { only: { link_type: "Document", id: "X", uid: "x" } } });
    for (const doc of documents) expect(documentHash(doc), doc.id).toBe(reference(doc));
    expect(documents.length).toBeGreaterThan(10);
  });

  it("is the same for the same document, whatever ref the answer came at", () => {
    const href = (ref: string) =>
      `https://demo.cdn.prismic.io/api/v2/documents/search?ref=${ref}&q=%5B%5B%3Ad+%3D+at%28document.id%2C+%22${PRICING.id}%22%29+%5D%5D`;
    expect(documentHash({ ...PRICING, href: href("ZzAbCdEfGhIjKlMn") })).toBe(
      documentHash({ ...PRICING, href: href("YyXwVuTsRqPoNmLk") }),
    );
    expect(documentHash(structuredClone(PRICING))).toBe(documentHash(PRICING));
  });

  it("ignores what a linked document's publication copies into the links", () => {
    const faqPublished = withLinksTo(PRICING, "Z9nWwREAACMAx1Ff", (link) => {
      link.last_publication_date = "2026-11-21T20:29:18+0000";
      link.tags = ["new"];
      link.uid = "questions";
      link.slug = "questions";
    });
    expect(documentHash(faqPublished)).toBe(documentHash(PRICING));
  });

  it("changes with the document's own publication: data, uid, tags, dates, and where a link points", () => {
    const base = documentHash(PRICING);
    const edits: PrismicDocument[] = [
      { ...PRICING, data: { ...PRICING.data, meta_description: "Another description" } },
      { ...PRICING, uid: "prices" },
      { ...PRICING, tags: ["sale"] },
      { ...PRICING, last_publication_date: "2026-11-21T20:29:18+0000" },
      withLinksTo(PRICING, "Z9nWwREAACMAx1Ff", (link) => {
        link.id = "Z9nWuhEAACMAx1Cc";
      }),
    ];
    const hashes = edits.map((doc) => documentHash(doc));
    for (const hash of hashes) expect(hash).not.toBe(base);
    expect(new Set(hashes).size).toBe(edits.length);
  });
});
