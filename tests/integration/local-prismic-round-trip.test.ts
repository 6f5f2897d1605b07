import { join } from "node:path";
import type { PrismicDocument } from "@prismicio/client";
import { afterEach, describe, expect, it } from "vitest";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

/**
 * The README's read-edit-write recipe, applied to everything: every document the API returns,
 * written back unchanged through `POST /admin/publish`, is accepted and reads back the same —
 * also after the documents it links to were unpublished (Prismic's broken-link shape).
 */

const services: LocalPrismic[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.stop();
});

async function api<T>(service: LocalPrismic, path: string): Promise<T> {
  const response = await fetch(`${service.url}${path}`);
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

/** Every document at the master ref, exactly as the API returns it (no client in between). */
async function readAll(service: LocalPrismic): Promise<PrismicDocument[]> {
  const { refs } = await api<{ refs: { ref: string; isMasterRef: boolean }[] }>(service, "/api/v2");
  const ref = refs.find((r) => r.isMasterRef)?.ref as string;
  const documents: PrismicDocument[] = [];
  for (let page = 1; page <= 1000; page++) {
    const answer = await api<{ results: PrismicDocument[]; total_pages: number }>(
      service,
      `/api/v2/documents/search?ref=${encodeURIComponent(ref)}&pageSize=100&page=${page}&orderings=${encodeURIComponent("[document.id]")}`,
    );
    documents.push(...answer.results);
    if (page >= answer.total_pages) break;
  }
  return documents;
}

async function publish(service: LocalPrismic, body: { upsert?: unknown[]; remove?: string[] }) {
  const response = await fetch(`${service.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Ids of documents some other document links to, most linked first. */
function linkTargets(documents: PrismicDocument[]): string[] {
  const counts = new Map<string, number>();
  const visit = (value: unknown, self: string) => {
    if (Array.isArray(value)) for (const item of value) visit(item, self);
    else if (value && typeof value === "object") {
      const link = value as { link_type?: unknown; id?: unknown };
      if (link.link_type === "Document" && typeof link.id === "string" && link.id !== self)
        counts.set(link.id, (counts.get(link.id) ?? 0) + 1);
      for (const item of Object.values(value)) visit(item, self);
    }
  };
  for (const doc of documents) visit(doc.data, doc.id);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

function brokenLinks(documents: PrismicDocument[]): number {
  return JSON.stringify(documents).split('"isBroken":true').length - 1;
}

/**
 * What a write-back must keep: the document's own content. Publication dates move with the publish,
 * also inside links (the API copies the target's dates into each link to it).
 */
const content = (doc: PrismicDocument) =>
  JSON.parse(
    JSON.stringify(
      { id: doc.id, uid: doc.uid, type: doc.type, tags: doc.tags, data: doc.data },
      (key, value) => (key === "last_publication_date" ? undefined : value),
    ),
  );

async function roundTrip(service: LocalPrismic) {
  const before = await readAll(service);
  expect(before.length).toBeGreaterThan(0);
  // Unpublish the most linked documents (never settings: every page reads it).
  const gone = linkTargets(before)
    .filter((id) => before.find((doc) => doc.id === id)?.type !== "settings")
    .slice(0, 3);
  expect(gone.length).toBeGreaterThan(0);
  expect((await publish(service, { remove: gone })).status).toBe(200);

  const read = await readAll(service);
  expect(brokenLinks(read), "documents linking to unpublished ones").toBeGreaterThan(0);
  for (let i = 0; i < read.length; i += 200) {
    const batch = read.slice(i, i + 200);
    const written = await publish(service, { upsert: batch });
    expect(written.status, JSON.stringify(written.body).slice(0, 500)).toBe(200);
  }
  const again = await readAll(service);
  expect(again.map(content)).toEqual(read.map(content));
}

describe("local content service: read → write back → read", () => {
  it("accepts every document of the demo as the API returned it, broken links included", async () => {
    const service = await startLocalPrismic();
    services.push(service);
    await roundTrip(service);
  });

  it("accepts every document of a generated repository as the API returned it, broken links included", async () => {
    const repo = join(process.env.TMPDIR ?? join(process.cwd(), ".tmp"), "round-trip-repo");
    ensureGeneratedRepository(repo, 60, 6);
    const service = await startLocalPrismic({ seedDir: repo });
    services.push(service);
    await roundTrip(service);
  }, 120_000);
});
