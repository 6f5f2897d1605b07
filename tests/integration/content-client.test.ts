import { Writable } from "node:stream";
import * as prismic from "@prismicio/client";
import { afterEach, describe, expect, it } from "vitest";
import type { PrismicConfig } from "#config";
import { createContentClient, loadContentSchema, type RateLimitWait } from "#content";
import { ContentApiError, ContentQueryError, ContentTimeoutError, RateLimitedError } from "#errors";
import { createLogger } from "#logger";
import { contentApiWait } from "#metrics/metrics.ts";
import { website } from "#website";
import { contentConfig } from "../support/content-client.ts";
import { type HttpFixture, type RecordedRequest, startHttpFixture } from "../support/http-fixture.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const schema = loadContentSchema(ROOT);

const repository = (ref = "MASTERREF0000001") => ({
  refs: [{ id: "master", ref, label: "Master", isMasterRef: true }],
  integrationFieldsRef: null,
  types: {},
  languages: [],
  forms: {},
});
const searchAnswer = {
  page: 1,
  results_per_page: 20,
  results_size: 0,
  total_results_size: 0,
  total_pages: 0,
  next_page: null,
  prev_page: null,
  results: [],
};

const fixtures: HttpFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((f) => f.close()));
});

/** A content API whose search answers are scripted per call; /api/v2 always answers. */
async function api(
  search: (
    request: RecordedRequest,
    n: number,
  ) => { status: number; headers?: Record<string, string>; body?: unknown } | "hang",
) {
  let n = 0;
  const fixture = await startHttpFixture((request, response) => {
    if (request.url.startsWith("/api/v2/documents/search")) {
      const answer = search(request, ++n);
      if (answer === "hang") return; // never answers
      response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      response.end(JSON.stringify(answer.body ?? searchAnswer));
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(repository()));
  });
  fixtures.push(fixture);
  return fixture;
}

function config(endpoint: string, overrides: Partial<PrismicConfig> = {}): PrismicConfig {
  return contentConfig(`${endpoint}/api/v2`, { timeoutMs: 2_000, ...overrides });
}

const searches = (fixture: HttpFixture) =>
  fixture.requests.filter((r) => r.url.startsWith("/api/v2/documents/search"));

describe("content client: response cache", () => {
  it("answers a repeated query from the cache while it is fresh, and asks again once it expired", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url, { cacheTtlMs: 300 }), { routes: [], schema });
    await client.get({ ref: "MASTERREF0000001", filters: [prismic.filter.at("document.type", "page")] });
    await client.get({ ref: "MASTERREF0000001", filters: [prismic.filter.at("document.type", "page")] });
    expect(searches(fixture)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 350)); // past the 300 ms lifetime on purpose
    await client.get({ ref: "MASTERREF0000001", filters: [prismic.filter.at("document.type", "page")] });
    expect(searches(fixture)).toHaveLength(2);
  });

  it("derives the expiry from max-age when the answer gives one", async () => {
    const fixture = await api(() => ({ status: 200, headers: { "cache-control": "public, max-age=0" } }));
    const client = createContentClient(config(fixture.url, { cacheTtlMs: 60_000 }), { routes: [], schema });
    await client.get({ ref: "MASTERREF0000001" });
    await client.get({ ref: "MASTERREF0000001" });
    // max-age=0 overrides the 60 s default: nothing may be reused.
    expect(searches(fixture)).toHaveLength(2);
  });

  it("keeps at most the configured number of entries, evicting the least recently used", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url, { cacheMaxEntries: 2 }), { routes: [], schema });
    for (const page of [1, 2, 3]) await client.get({ ref: "MASTERREF0000001", page });
    expect(client.contentFetch.cache.size).toBe(2);
    await client.get({ ref: "MASTERREF0000001", page: 3 }); // still cached
    await client.get({ ref: "MASTERREF0000001", page: 1 }); // evicted: asked again
    expect(searches(fixture).map((r) => new URL(r.url, "http://x").searchParams.get("page"))).toEqual([
      "1",
      "2",
      "3",
      "1",
    ]);
  });

  it("does not store an answer asked for with cache: no-store (a publish's batch reads)", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    const query = { ref: "MASTERREF0000001", filters: [prismic.filter.at("document.type", "page")] };
    await client.get({ ...query, fetchOptions: { cache: "no-store" } });
    expect(client.contentFetch.cache.size).toBe(0);
    await client.get(query);
    expect(searches(fixture)).toHaveLength(2);
  });

  it("drops expired answers when a new one is stored, not only when the same query comes back", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url, { cacheTtlMs: 100 }), { routes: [], schema });
    for (const page of [1, 2]) await client.get({ ref: "MASTERREF0000001", page });
    expect(client.contentFetch.cache.size).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // past the TTL and the once-a-second sweep
    await client.get({ ref: "MASTERREF0000001", page: 3 });
    expect(client.contentFetch.cache.size).toBe(1);
  });

  it("never caches an error answer", async () => {
    const fixture = await api((_r, n) =>
      n === 1 ? { status: 500, body: { message: "boom" } } : { status: 200 },
    );
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    await expect(client.get({ ref: "MASTERREF0000001" })).rejects.toThrow(ContentApiError);
    await expect(client.get({ ref: "MASTERREF0000001" })).resolves.toMatchObject({ results: [] });
  });
});

describe("content client: rate limits (429)", () => {
  it("waits for retry-after seconds, then succeeds", async () => {
    const fixture = await api((_r, n) =>
      n === 1 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 },
    );
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    await client.get({ ref: "MASTERREF0000001" });
    const [first, second] = searches(fixture);
    expect(second).toBeDefined();
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("waits 1000 ms when the 429 has no retry-after", async () => {
    const fixture = await api((_r, n) => (n === 1 ? { status: 429 } : { status: 200 }));
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    await client.get({ ref: "MASTERREF0000001" });
    const [first, second] = searches(fixture);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("gives up after the configured number of retries with an error carrying 429", async () => {
    const fixture = await api(() => ({ status: 429, headers: { "retry-after": "0" } }));
    const client = createContentClient(config(fixture.url, { rateLimitRetries: 2 }), { routes: [], schema });
    const error = await client.get({ ref: "MASTERREF0000001" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentApiError);
    expect((error as ContentApiError).status).toBe(429);
    expect(searches(fixture)).toHaveLength(3);
  });
});

describe("content client: waits with a bound", () => {
  it("never sleeps on a retry-after longer than the bound: fails at once, saying until when", async () => {
    const fixture = await api(() => ({ status: 429, headers: { "retry-after": "3600" } }));
    const waits: RateLimitWait[] = [];
    const client = createContentClient(config(fixture.url, { rateLimitMaxWaitMs: 10_000 }), {
      routes: [],
      schema,
      onRateLimited: (wait) => waits.push(wait),
    });
    const asked = Date.now();
    const error = await client.get({ ref: "MASTERREF0000001" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).status).toBe(429);
    // One request, no retry: an hour's wait is the job's to take, after releasing its lock.
    expect(searches(fixture)).toHaveLength(1);
    const { retryAt } = error as RateLimitedError;
    expect(retryAt).toBeGreaterThanOrEqual(asked + 3_600_000);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect((error as Error).message).toContain(`wait until ${new Date(retryAt).toISOString().slice(11, 19)}`);
    expect(waits).toEqual([expect.objectContaining({ until: retryAt, retrying: false })]);
    // The gauge counts down to it (about an hour left).
    const gauge = (await contentApiWait.get()).values[0]?.value ?? 0;
    expect(gauge).toBeGreaterThan(3_500);
    expect(gauge).toBeLessThanOrEqual(3_600);
  });

  it("waits in place for a retry-after within the bound, telling whoever listens", async () => {
    const fixture = await api((_r, n) =>
      n === 1 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 },
    );
    const waits: RateLimitWait[] = [];
    const client = createContentClient(config(fixture.url, { rateLimitMaxWaitMs: 1_000 }), {
      routes: [],
      schema,
      onRateLimited: (wait) => waits.push(wait),
    });
    await client.get({ ref: "MASTERREF0000001" });
    expect(searches(fixture)).toHaveLength(2);
    expect(waits).toEqual([expect.objectContaining({ retrying: true })]);
    // Answered again: no wait left.
    expect((await contentApiWait.get()).values[0]?.value).toBe(0);
  });

  it("ends a wait at once when the process shuts down (its signal aborts)", async () => {
    const fixture = await api(() => ({ status: 429, headers: { "retry-after": "8" } }));
    const shutdown = new AbortController();
    const client = createContentClient(config(fixture.url), { routes: [], schema, signal: shutdown.signal });
    const waiting = client.get({ ref: "MASTERREF0000001" }).catch((e: unknown) => e);
    await expect.poll(() => searches(fixture).length).toBe(1);
    const reason = new Error("shutting down");
    shutdown.abort(reason);
    const error = (await waiting) as Error;
    // The abort's reason, and no second request: the 8 s wait did not run out.
    expect(error === reason || error.cause === reason).toBe(true);
    expect(searches(fixture)).toHaveLength(1);
  });
});

describe("content client: errors", () => {
  it("raises 'Unexpected status code [status]' with the URL and the status for any other non-2xx", async () => {
    const fixture = await api(() => ({ status: 503, body: { message: "maintenance" } }));
    const client = createContentClient(config(fixture.url, { accessToken: "secret-token-123" }), {
      routes: [],
      schema,
    });
    const error = (await client.get({ ref: "MASTERREF0000001" }).catch((e: unknown) => e)) as ContentApiError;
    expect(error).toBeInstanceOf(ContentApiError);
    expect(error.status).toBe(503);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(
      /^Unexpected status code \[503\] on http:\/\/127\.0\.0\.1:\d+\/api\/v2\/documents\/search\?/,
    );
    expect(error.message).toContain("maintenance");
    // The access token travels to the API but never into the error message.
    expect(searches(fixture)[0]?.url).toContain("access_token=secret-token-123");
    expect(error.message).not.toContain("secret-token-123");
  });

  it("raises 'Response timeout for <url>' when the API does not answer in time", async () => {
    const fixture = await api(() => "hang");
    const client = createContentClient(config(fixture.url, { timeoutMs: 200 }), { routes: [], schema });
    const started = Date.now();
    const error = await client.get({ ref: "MASTERREF0000001" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentTimeoutError);
    expect((error as Error).message).toMatch(
      /^Response timeout for http:\/\/127\.0\.0\.1:\d+\/api\/v2\/documents\/search/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("content client: queries refused before any request", () => {
  it("refuses a lookup by uid with lang '*'", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    await expect(client.getByUID("page", "home", { lang: "*" })).rejects.toThrow(ContentQueryError);
    await expect(client.getByUID("page", "home", { lang: "*" })).rejects.toThrow(
      /uid with lang "\*" is refused/,
    );
    expect(searches(fixture)).toHaveLength(0);
  });

  it("refuses a filter on a field no model has ('Unknown field')", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    await expect(client.get({ filters: [prismic.filter.at("my.page.colour", "red")] })).rejects.toThrow(
      /Unknown field my\.page\.colour/,
    );
    await expect(client.get({ filters: [prismic.filter.at("my.nothing.title", "x")] })).rejects.toThrow(
      /no custom type "nothing"/,
    );
    expect(searches(fixture)).toHaveLength(0);
  });

  it("refuses a query for a type that does not exist and an unknown filter ('Invalid query')", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    await expect(client.getAllByType("blog_post" as "page")).rejects.toThrow(
      /Invalid query: unknown document type "blog_post"/,
    );
    await expect(client.get({ filters: ['[guess(document.type, "page")]'] })).rejects.toThrow(
      /Invalid query: unknown filter "guess"/,
    );
    expect(searches(fixture)).toHaveLength(0);
  });

  it("lets valid queries through, with the route resolver attached", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const client = createContentClient(config(fixture.url), { routes: website.routes.resolver, schema });
    await client.getAllByType("price_list", { filters: [prismic.filter.has("my.price_list.currency")] });
    const sent = new URL(searches(fixture)[0]?.url ?? "", fixture.url);
    expect(sent.searchParams.getAll("q")).toEqual([
      "[[has(my.price_list.currency)]]",
      '[[at(document.type, "price_list")]]',
    ]);
    expect(JSON.parse(sent.searchParams.get("routes") ?? "[]")).toContainEqual({
      type: "page",
      uid: "home",
      path: "/",
    });
  });
});

describe("content client: start-up", () => {
  it("logs and goes on when the API cannot be reached", async () => {
    const fixture = await api(() => ({ status: 200 }));
    const deadUrl = fixture.url;
    await fixture.close();
    fixtures.length = 0;
    const lines: string[] = [];
    const logger = createLogger({
      name: "test",
      level: "info",
      destination: new Writable({ write: (chunk, _enc, done) => done(void lines.push(String(chunk))) }),
    });
    const client = createContentClient(config(deadUrl, { timeoutMs: 500 }), { routes: [], schema, logger });
    await expect(client.probe()).resolves.toBe(false);
    expect(lines.join("")).toContain("content API unreachable at start");
  });

  it("reads the master ref uncached, every time", async () => {
    let ref = "FIRSTREF00000001";
    const fixture = await startHttpFixture((_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=600" });
      response.end(JSON.stringify(repository(ref)));
    });
    fixtures.push(fixture);
    const client = createContentClient(config(fixture.url), { routes: [], schema });
    expect(await client.fetchMasterRef()).toBe("FIRSTREF00000001");
    ref = "SECONDREF0000002";
    expect(await client.fetchMasterRef()).toBe("SECONDREF0000002");
  });
});
