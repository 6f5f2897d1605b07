/**
 * A page's inputs (worker/src/build/render-inputs.ts) decide whether a build may keep its stored
 * bytes instead of rendering it. They must change with anything the page can show, and may leave
 * out only what no template renders: each exclusion is proven here by rendering every demo route
 * with it changed and finding the bytes identical.
 */
import type { PrismicDocument } from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSiteAssets } from "#web/assets.ts";
import { routeForDocument } from "#web/routes.ts";
import { listDocuments } from "#worker/build/list-documents.ts";
import { renderBatch, type SharedContent } from "#worker/build/render-batch.ts";
import { routeInputs, sharedInputs } from "#worker/build/render-inputs.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

const ABOUT = "Z9nWuhEAACMAx1Cc";
let service: LocalPrismic;
let documents: PrismicDocument[];

beforeAll(async () => {
  service = await startLocalPrismic();
  const client = localContentClient(service.endpoint);
  documents = await listDocuments(client, await client.fetchMasterRef(), []);
});
afterAll(async () => service.stop());

/** Every document link in `value` (fields, rich-text spans, slices, groups), rewritten in place. */
function eachDocumentLink(value: unknown, change: (link: Record<string, unknown>) => void): void {
  if (Array.isArray(value)) for (const item of value) eachDocumentLink(item, change);
  else if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    if (record.link_type === "Document" && typeof record.id === "string") change(record);
    for (const child of Object.values(record)) eachDocumentLink(child, change);
  }
}

async function renderAll(docs: PrismicDocument[]): Promise<Map<string, string>> {
  const { assets } = await buildSiteAssets();
  const shared: SharedContent = { siteUrl: "https://www.example.com", assets, documents: [] };
  const routes = [
    ...docs.flatMap((doc) => routeForDocument(doc) ?? []),
    "/price-list/",
    "/sitemap.xml",
    "/robots.txt",
    "404",
  ];
  const { rendered, failed } = await renderBatch(shared, docs, routes);
  expect(failed).toEqual([]);
  return new Map(rendered.map((page) => [page.route, Buffer.from(page.body).toString("utf8")]));
}

const inputsOf = (doc: PrismicDocument, code = "code", shared = "shared") =>
  routeInputs(code, shared, doc).inputs;
const copy = <T>(value: T): T => structuredClone(value);

describe("a page's inputs", () => {
  it("leave out a link's slug and publication dates, which no template renders (every demo route, bytes identical)", async () => {
    let links = 0;
    const changed = copy(documents);
    for (const doc of changed)
      eachDocumentLink(doc.data, (link) => {
        links++;
        link.slug = "a-slug-no-page-shows";
        link.first_publication_date = "2001-01-01T00:00:00+0000";
        link.last_publication_date = "2002-02-02T00:00:00+0000";
      });
    expect(links).toBeGreaterThan(10); // the demo links its pages from settings, slices and rich text
    const before = await renderAll(documents);
    const after = await renderAll(changed);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [route, html] of before) expect(after.get(route), route).toBe(html);
    // …and the inputs agree.
    for (const [i, doc] of documents.entries())
      expect(inputsOf(changed[i] as PrismicDocument), doc.id).toBe(inputsOf(doc));
  });

  it("change with the page's content, a link's target url, uid or breakage, the shared documents and the code", () => {
    const about = documents.find((doc) => doc.id === ABOUT) as PrismicDocument;
    const base = inputsOf(about);
    // The ref-naming href is left out: it changes with every publication of anything.
    expect(inputsOf({ ...copy(about), href: "https://elsewhere/?ref=other" })).toBe(base);

    const edited = copy(about);
    edited.data.meta_title = "Something else";
    expect(inputsOf(edited)).not.toBe(base);

    const settings = copy(documents.find((doc) => doc.type === "settings") as PrismicDocument);
    let navigation = 0;
    for (const change of [
      (link: Record<string, unknown>) => {
        link.url = "/moved";
      },
      (link: Record<string, unknown>) => {
        link.uid = "moved";
      },
      (link: Record<string, unknown>) => {
        link.isBroken = true;
      },
    ]) {
      const moved = copy(settings);
      let first = true;
      eachDocumentLink(moved.data, (link) => {
        if (first) change(link);
        first = false;
        navigation++;
      });
      expect(sharedInputs([moved])).not.toBe(sharedInputs([settings]));
    }
    expect(navigation).toBeGreaterThan(0);
    expect(inputsOf(about, "code", sharedInputs([settings]))).not.toBe(
      inputsOf(about, "code", sharedInputs([copy(settings), copy(about)])),
    );
    expect(inputsOf(about, "other code")).not.toBe(base);
  });
});
