import { mkdir, rm, symlink } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { Writable } from "node:stream";
import { S3Client } from "@aws-sdk/client-s3";
import Fastify from "fastify";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ERROR_PAGE_FAILED, ERROR_PAGE_FAILED_AS_WELL, RETRY_AFTER_SECONDS } from "#http/error-pages.ts";
import { createLogger } from "#logger";
import { CACHE_CONTROL, type ManifestRoute } from "#manifest/manifest.ts";
import { siteApp } from "#site/app.ts";
import type { ContactQueue } from "#site/contact-queue.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { putManifest } from "../support/manifest.ts";
import { tempDir } from "../support/temp-dir.ts";

const HTML = "text/html; charset=utf-8";
const SLOT = '<p class="error-page__reference" data-request-id="" hidden=""></p>';
const stored = (status: number) =>
  `<!doctype html><html><body><h1>Stored ${status} page</h1>${SLOT}<a href="/">Go to the home page</a></body></html>`;

/** Never in a body a visitor gets: where storage lives, what failed inside, a stack. */
function expectNoInternals(body: string, ...secrets: string[]) {
  for (const secret of [...secrets, "StorageError", "ECONNREFUSED", "ELOOP", "    at ", "s3://", "file://"])
    expect(body).not.toContain(secret);
}

interface Started {
  app: { close(): Promise<unknown> };
  base: string;
  lines: string[];
}

const running: Started[] = [];
async function start(store: SiteStore, contact?: ContactQueue): Promise<Started> {
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _enc, done) => done(void lines.push(String(chunk))) });
  const logger = createLogger({ name: "site", level: "info", destination, pretty: false });
  const app = Fastify({ loggerInstance: logger });
  await app.register(siteApp, { store, manifestRefreshMs: 0, ...(contact ? { contact } : {}) });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  const started = { app, base, lines };
  running.push(started);
  return started;
}
afterEach(async () => {
  for (const { app } of running.splice(0)) await app.close();
});

async function putPage(store: SiteStore, key: string, body: string) {
  await store.put(key, body, {
    contentType: HTML,
    cacheControl: CACHE_CONTROL.html,
    contentHash: sha256(body),
  });
}

const route = (key: string, status = 200) => ({ key, hash: "x", status });
const DEMO_ROUTES = {
  "/": route("index.html"),
  "/about": route("about/index.html"),
  "404": route("404.html", 404),
};

async function seed(store: SiteStore, pages: Record<string, string>, routes: object = DEMO_ROUTES) {
  for (const [key, body] of Object.entries(pages)) await putPage(store, key, body);
  await putManifest(store, {
    ref: "REF",
    builtAt: new Date().toISOString(),
    routes: routes as Record<string, ManifestRoute>,
    assets: {},
  });
}

/** The log line that names this request id and the error (the id the visitor quotes finds it). */
function logLineFor(lines: string[], requestId: string) {
  return lines.map((line) => JSON.parse(line)).find((entry) => entry.requestId === requestId && entry.err);
}

function shownRequestId(body: string): string {
  const id = /Reference: <code>([^<]+)<\/code>/.exec(body)?.[1];
  expect(id, body).toBeTruthy();
  return id as string;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("site server error pages", () => {
  const folders: { remove: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const folder of folders) await folder.remove();
  });

  it("answers 503 with Retry-After and the built-in page when the S3 endpoint is unreachable", async () => {
    const port = await closedPort();
    const endpoint = `http://127.0.0.1:${port}`;
    const s3Client = new S3Client({
      endpoint,
      forcePathStyle: true,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
    });
    const store = createSiteStore(
      { url: "s3://private-bucket/site", s3Endpoint: endpoint, s3Region: "us-east-1" },
      { s3Client },
    );
    const { base, lines } = await start(store);
    for (const path of ["/", "/about", "/assets/site.css", "/nope"]) {
      const response = await fetch(`${base}${path}`, { headers: { accept: "text/html" } });
      expect(response.status, path).toBe(503);
      expect(response.headers.get("retry-after")).toBe(String(RETRY_AFTER_SECONDS));
      expect(response.headers.get("content-type")).toBe(HTML);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'self'");
      const body = await response.text();
      // The request failed, and so did reading 503.html: the spec's second-failure words.
      expect(body).toContain(ERROR_PAGE_FAILED_AS_WELL);
      expect(body).toContain('<a class="fallback__home" href="/">Go back to home</a>');
      expectNoInternals(body, "private-bucket", String(port));
      const id = shownRequestId(body);
      expect(response.headers.get("x-request-id")).toBe(id);
      const line = logLineFor(lines, id);
      expect(line?.err?.message).toContain("private-bucket");
    }
    // The fallback's stylesheet comes from memory, so it is styled with storage down.
    const css = await fetch(`${base}/_pressroom/error-page.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    s3Client.destroy();
  });

  it("gives JSON clients a JSON error with the same status and no internals", async () => {
    const port = await closedPort();
    const endpoint = `http://127.0.0.1:${port}`;
    const s3Client = new S3Client({
      endpoint,
      forcePathStyle: true,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
    });
    const store = createSiteStore(
      { url: "s3://private-bucket/site", s3Endpoint: endpoint, s3Region: "us-east-1" },
      { s3Client },
    );
    const { base } = await start(store);
    const response = await fetch(`${base}/about`, { headers: { accept: "application/json" } });
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("retry-after")).toBe(String(RETRY_AFTER_SECONDS));
    const text = await response.text();
    expectNoInternals(text, "private-bucket", String(port));
    expect(JSON.parse(text)).toEqual({
      statusCode: 503,
      error: "This site is briefly unavailable",
      requestId: response.headers.get("x-request-id"),
    });
    s3Client.destroy();
  });

  it("serves the stored 500.html, with the request id filled in, when a folder cannot be read", async () => {
    const folder = await tempDir("site-unreadable");
    folders.push(folder);
    const store = createSiteStore({
      url: `file://${folder.path}`,
      s3Endpoint: undefined,
      s3Region: "us-east-1",
    });
    await seed(store, {
      "index.html": "<h1>Home</h1>",
      "404.html": stored(404),
      "500.html": stored(500),
      "503.html": stored(503),
    });
    // A file the server cannot read (a symlink loop: ELOOP, which no retry cures).
    await mkdir(join(folder.path, "about"), { recursive: true });
    await rm(join(folder.path, "about", "index.html"), { force: true });
    await symlink(join(folder.path, "about", "index.html"), join(folder.path, "about", "index.html"));
    const { base, lines } = await start(store);
    const response = await fetch(`${base}/about`);
    expect(response.status).toBe(500);
    expect(response.headers.get("retry-after")).toBeNull();
    const body = await response.text();
    expect(body).toContain("Stored 500 page");
    expectNoInternals(body, folder.path);
    const id = shownRequestId(body);
    expect(body).toContain(`data-request-id="${id}"`);
    expect(logLineFor(lines, id)?.err?.message).toContain("ELOOP");
    // The rest of the site is unaffected.
    expect((await fetch(`${base}/`)).status).toBe(200);
  });

  it("shows the built-in page with the spec's words when 404.html is missing", async () => {
    const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    await seed(store, { "index.html": "<h1>Home</h1>" });
    const { base } = await start(store);
    const response = await fetch(`${base}/nowhere`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe(HTML);
    const body = await response.text();
    expect(body).toContain("This page could not be found");
    expect(body).toContain(ERROR_PAGE_FAILED);
    expect(body).not.toContain(ERROR_PAGE_FAILED_AS_WELL);
    expect(body).toContain("Go back to home");
    shownRequestId(body);
  });

  it("finds a website's error pages where its build stored them (the manifest's route of each status)", async () => {
    const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    await seed(
      store,
      { "index.html": "<h1>Home</h1>", "errors/missing.html": stored(404), "404.html": "not this one" },
      { "/": route("index.html"), "not-found": route("errors/missing.html", 404) },
    );
    const { base } = await start(store);
    const response = await fetch(`${base}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe(stored(404));
    // Not a page read: the same page through the error answer, its request id filled in.
    const other = await fetch(`${base}/nowhere`, { method: "DELETE" });
    expect(other.status).toBe(404);
    expect(await other.text()).toContain("Stored 404 page");
  });

  it("shows the second-failure words when a page fails and its stored error page is missing too", async () => {
    const folder = await tempDir("site-no-500");
    folders.push(folder);
    const store = createSiteStore({
      url: `file://${folder.path}`,
      s3Endpoint: undefined,
      s3Region: "us-east-1",
    });
    await seed(store, { "index.html": "<h1>Home</h1>", "404.html": stored(404) });
    await mkdir(join(folder.path, "about"), { recursive: true });
    await rm(join(folder.path, "about", "index.html"), { force: true });
    await symlink(join(folder.path, "about", "index.html"), join(folder.path, "about", "index.html"));
    const { base } = await start(store);
    const response = await fetch(`${base}/about`);
    expect(response.status).toBe(500);
    const body = await response.text();
    expect(body).toContain(ERROR_PAGE_FAILED_AS_WELL);
    expect(body).toContain("Go back to home");
    expectNoInternals(body, folder.path);
  });

  it("answers other methods and Fastify's own refusals with an error page, not Fastify's JSON", async () => {
    const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    await seed(store, { "index.html": "<h1>Home</h1>", "404.html": stored(404) });
    const { base } = await start(store);
    const post = await fetch(`${base}/about`, { method: "POST", body: "x" });
    expect(post.status).toBe(404);
    const body = await post.text();
    expect(body).toContain("Stored 404 page");
    expect(body).not.toContain("Route POST");
  });

  it("answers a failing contact post with the error page (form) or JSON (island), never the cause", async () => {
    const store = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
    await seed(store, { "index.html": "<h1>Home</h1>", "500.html": stored(500) });
    const broken: ContactQueue = {
      hit: async () => {
        throw new Error("redis://secret-host:6379 exploded");
      },
      enqueue: async () => ({ id: "never" }),
      close: async () => {},
    } as unknown as ContactQueue;
    const { base } = await start(store, broken);
    const fields = {
      name: "Ada",
      email: "ada@example.com",
      message: "Hello there, a message.",
      consent: "on",
    };
    const form = await fetch(`${base}/api/contact`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html" },
      body: new URLSearchParams(fields).toString(),
    });
    expect(form.status).toBe(500);
    const page = await form.text();
    expect(page).toContain("Stored 500 page");
    expectNoInternals(page, "secret-host");
    const json = await fetch(`${base}/api/contact`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(fields),
    });
    expect(json.status).toBe(500);
    const text = await json.text();
    expectNoInternals(text, "secret-host");
    expect(JSON.parse(text)).toMatchObject({ statusCode: 500 });
  });
});
