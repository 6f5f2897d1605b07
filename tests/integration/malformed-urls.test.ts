import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { type RunningPreview, startPreview } from "#preview/server.ts";
import { SECURITY_HEADERS } from "#site/app.ts";
import { type RunningSite, startSite } from "#site/server.ts";
import { createSiteStore } from "#storage";
import { fullBuild } from "#worker/build/full-build.ts";
import { localContentClient } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { prismicConfig, SITE_URL } from "../support/preview-fixture.ts";

/**
 * A path that cannot be percent-decoded. The site spec: "A route that fails
 * validation shows the same 404". Both servers that show pages answer it as any path that names no
 * page: the site's own 404 page with status 404 for a browser (the same bytes), JSON for a JSON
 * client; the log keeps the path as asked. The real servers (startSite, startPreview), over the
 * demo site built into storage and the local content service.
 */
const MALFORMED = ["/%E0%A4%A", "/price-list/%ZZ", "/%", "/about%zz?utm=1", "/%C0%AF"];

let content: LocalPrismic;
let site: RunningSite;
let preview: RunningPreview;
const siteLog: { msg: string; path?: string; statusCode?: number }[] = [];
const sink = (into: { msg: string }[]) =>
  new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) into.push(JSON.parse(line));
      done();
    },
  });

beforeAll(async () => {
  content = await startLocalPrismic();
  const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
  const client = localContentClient(content.endpoint);
  await fullBuild({ client, store, siteUrl: SITE_URL, logger: pino({ level: "silent" }), renderThreads: 0 });
  const config = loadConfig("site", {
    PORT: "0",
    HOST: "127.0.0.1",
    OPS_PORT: "off",
    STORAGE_URL: "memory:",
    REDIS_URL: "redis://127.0.0.1:6379",
    QUEUE_PREFIX: `malformed-urls-${process.pid}-${Date.now()}`,
  });
  site = await startSite(config, pino({ level: "info" }, sink(siteLog)), store);
  preview = await startPreview(
    {
      host: "127.0.0.1",
      port: 0,
      logLevel: "silent",
      prismic: prismicConfig(content.endpoint),
      siteUrl: SITE_URL,
      repository: "demo",
    },
    pino({ level: "silent" }),
  );
}, 60_000);
afterAll(async () => {
  await preview?.close();
  await site?.close();
  await content?.stop();
});

const get = (base: string, path: string, accept = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8") =>
  fetch(`${base}${path}`, { headers: { accept }, redirect: "manual" });

describe("site server: a malformed URL is a page that does not exist", () => {
  it.each(MALFORMED)("%s: the site's 404 page, status 404, to a browser", async (path) => {
    const notFound = await (await get(site.url, "/no-such-page")).text();
    expect(notFound).toContain('<h1 class="page-header__title">This page could not be found</h1>');
    const response = await get(site.url, path);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      expect(response.headers.get(name)).toBe(value);
    expect(await response.text()).toBe(notFound);
  });

  it("a JSON client gets 404 as JSON; the log keeps the path as asked", async () => {
    const response = await get(site.url, "/price-list/%ZZ", "application/json");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ statusCode: 404, error: "This page could not be found" });
    await new Promise((resolve) => setImmediate(resolve));
    const answered = siteLog.filter((line) => line.msg === "request answered");
    expect(answered.map((line) => line.path)).toContain("/price-list/%ZZ");
    expect(answered.map((line) => line.path)).not.toContain("/_pressroom/malformed-url");
  });
});

describe("preview server: the same", () => {
  it.each(MALFORMED)("%s: the site's 404 page, rendered live, status 404", async (path) => {
    const response = await get(preview.url, path);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await response.text();
    expect(page).toContain('<h1 class="page-header__title">This page could not be found</h1>');
    expect(page).toContain('<header class="site-header">');
  });

  it("answers a JSON client as it answers any unmatched path", async () => {
    const malformed = await get(preview.url, "/%E0%A4%A", "application/json");
    const unmatched = await get(preview.url, "/no-such-page", "application/json");
    expect(malformed.status).toBe(404);
    expect(malformed.headers.get("content-type")).toBe(unmatched.headers.get("content-type"));
  });
});
