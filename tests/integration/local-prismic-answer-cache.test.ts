/**
 * The local content service keeps its search answers at refs whose content never changes, as
 * Prismic's CDN does (services/local-prismic/src/answer-cache.ts): a second read of the
 * same URL is the same bytes, counted as kept; a new master ref, a past ref and a preview ref each
 * answer their own content, a preview's never from kept bytes.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createAnswerCache } from "#local-prismic/answer-cache.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";

const ABOUT = "Z9nWuhEAACMAx1Cc";
const DEMO = new URL("../../services/local-prismic/demo/documents/", import.meta.url).pathname;
const about = () => JSON.parse(readFileSync(`${DEMO}${ABOUT}.json`, "utf8")) as Record<string, unknown>;
const retitled = (text: string) => ({
  ...about(),
  data: { ...(about().data as object), title: [{ type: "heading1", text, spans: [] }] },
});

let service: LocalPrismic | undefined;
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

const search = async (ref: string) => {
  const response = await fetch(
    `${service?.endpoint}/documents/search?ref=${encodeURIComponent(ref)}&q=${encodeURIComponent(`[[at(document.id,"${ABOUT}")]]`)}`,
  );
  return { cacheControl: response.headers.get("cache-control"), body: await response.text() };
};
const titleIn = (body: string) =>
  (JSON.parse(body) as { results: { data: { title: { text: string }[] } }[] }).results[0]?.data.title[0]
    ?.text;
const kept = async () =>
  ((await (await fetch(`${service?.url}/admin/stats`)).json()) as { keptAnswers: number }).keptAnswers;
const post = (path: string, body: unknown, method = "POST") =>
  fetch(`${service?.url}${path}`, {
    method,
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  }).then(async (response) => (await response.json()) as Record<string, string>);

describe("search answers kept at immutable refs", () => {
  it("answers a second read of the same URL with the same bytes, kept; a new master ref with the new content", async () => {
    service = await startLocalPrismic();
    const first = service.store.masterRef;
    const before = await search(first);
    expect(before.cacheControl).toBe("public, max-age=31536000, immutable");
    expect(await kept()).toBe(0);
    expect(await search(first)).toEqual(before);
    expect(await kept()).toBe(1);

    const published = await post("/admin/publish", { upsert: [retitled("A new title")] });
    expect(titleIn((await search(published.masterRef as string)).body)).toBe("A new title");
    // The old ref still answers what it held, from the bytes kept for it.
    expect((await search(first)).body).toBe(before.body);
    expect(await kept()).toBe(2);
  });

  it("never keeps a preview's answer: a draft changed under the same preview ref is read anew", async () => {
    service = await startLocalPrismic();
    const { token } = await post(`/admin/drafts/${ABOUT}`, retitled("Draft one"), "PUT");
    const first = await search(token as string);
    expect(first.cacheControl).toBe("no-store");
    expect(titleIn(first.body)).toBe("Draft one");
    await post(`/admin/drafts/${ABOUT}`, retitled("Draft two"), "PUT");
    expect(titleIn((await search(token as string)).body)).toBe("Draft two");
    expect(await kept()).toBe(0);
  });
});

describe("createAnswerCache", () => {
  const bytes = (n: number) => Buffer.alloc(n, 1);
  it("holds at most its bytes, dropping the least recently used first", () => {
    const cache = createAnswerCache(100);
    cache.set("a", bytes(40));
    cache.set("b", bytes(40));
    expect(cache.get("a")?.byteLength).toBe(40); // a is now the most recently used
    cache.set("c", bytes(40)); // 120 > 100: b goes
    expect(cache.get("b")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
    expect(cache.get("c")).toBeDefined();
    cache.set("d", bytes(101)); // larger than the whole cache: not kept, nothing dropped for it
    expect(cache.get("d")).toBeUndefined();
    expect(cache.get("a")).toBeDefined();
  });
});
