/**
 * A build renders each page of a batch from its own document, parsed just before and dropped just
 * after (renderOwnRoutes), instead of from a memory source of the whole batch (renderBatch). What a
 * page reads must not change with it: every demo page renders to the same bytes, with the same
 * dependencies, both ways, and so do the cases where a page reads another document of its batch.
 */
import type { PrismicDocument } from "@prismicio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSiteAssets } from "#web/assets.ts";
import { routeForDocument } from "#web/routes.ts";
import { listDocuments } from "#worker/build/list-documents.ts";
import { renderBatch, renderOwnRoutes, type SharedContent } from "#worker/build/render-batch.ts";
import { batchOfAnswers, batchOfDocuments } from "#worker/build/search-answers.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

let service: LocalPrismic;
let shared: SharedContent;
let pages: PrismicDocument[];

beforeAll(async () => {
  service = await startLocalPrismic();
  const client = localContentClient(service.endpoint);
  const documents = await listDocuments(client, await client.fetchMasterRef(), []);
  const { assets } = await buildSiteAssets();
  shared = {
    siteUrl: "https://www.example.com",
    assets,
    documents: documents.filter((doc) => doc.type === "settings" || doc.type === "price_list"),
  };
  pages = documents.filter((doc) => doc.type === "page");
});
afterAll(async () => service.stop());

/** Each route as rendered: its bytes, hash, status and dependencies. */
const pagesOf = (rendered: Awaited<ReturnType<typeof renderBatch>>["rendered"]) =>
  rendered.map(({ route, body, hash, status, dependencies, documentId, islands }) => ({
    route,
    html: Buffer.from(body).toString("utf8"),
    hash,
    status,
    dependencies,
    documentId,
    islands,
  }));

/** What renderBatch, with the whole batch in its memory source, makes of the pages' routes. */
async function fromWholeBatch(docs: PrismicDocument[]) {
  const routes = docs.flatMap((doc) => routeForDocument(doc) ?? []);
  const { rendered, failed } = await renderBatch(shared, docs, routes);
  expect(failed).toEqual([]);
  return pagesOf(rendered);
}

async function oneByOne(docs: PrismicDocument[]) {
  const { rendered, failed, listed } = await renderOwnRoutes(shared, batchOfDocuments(docs));
  expect(failed).toEqual([]);
  expect(listed?.map((entry) => entry.stub.id)).toEqual(docs.map((doc) => doc.id));
  return pagesOf(rendered);
}

describe("renderOwnRoutes: each page from its own document", () => {
  it("renders every demo page as a memory source of the whole batch does: bytes, hashes, dependencies", async () => {
    expect(pages.length).toBeGreaterThan(3);
    const expected = await fromWholeBatch(pages);
    expect(await oneByOne(pages)).toEqual(expected);
    // The same from the API's bytes, each document parsed when its turn comes.
    const answer = new TextEncoder().encode(JSON.stringify({ page: 1, results: pages }));
    const { rendered } = await renderOwnRoutes(shared, batchOfAnswers([answer.buffer as ArrayBuffer]));
    expect(pagesOf(rendered)).toEqual(expected);
  });

  it("a uid two documents of the batch share renders the first one's page for both, as before", async () => {
    const [first, second] = pages as [PrismicDocument, PrismicDocument];
    const twin = { ...structuredClone(second), uid: first.uid };
    const batch = [first, twin];
    const both = await oneByOne(batch);
    expect(both.map((page) => page.route)).toEqual([routeForDocument(first), routeForDocument(first)]);
    expect(both[1]?.html).toBe(both[0]?.html);
    expect(both).toEqual(await fromWholeBatch(batch));
  });

  it("a price list slice pointing at another page of the batch reads it as the whole batch would", async () => {
    const [host, other] = pages as [PrismicDocument, PrismicDocument];
    const pointing = structuredClone(host);
    const slice = {
      slice_type: "price_list_table",
      slice_label: null,
      variation: "default",
      version: "initial",
      id: "price_list_table$pointing",
      primary: {
        price_list: { link_type: "Document", id: other.id, type: "page", uid: other.uid, isBroken: false },
      },
      items: [],
    };
    (pointing.data as { slices: unknown[] }).slices = [slice];
    const batch = [pointing, other];
    const rendered = await oneByOne(batch);
    // Not a price list: nothing shown, but the page depends on what it asked for, both ways.
    expect(rendered[0]?.dependencies).toContain(`doc:${other.id}`);
    expect(rendered).toEqual(await fromWholeBatch(batch));
  });
});
