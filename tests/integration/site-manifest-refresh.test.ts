/**
 * The site server reads the build manifest again every `manifestRefreshMs`, but a known page never
 * waits for that read (a large manifest takes tens of milliseconds to read and parse). Proven by order, not by time: the manifest's read is
 * held, and a known page is served while it is; a path the table does not know waits for it.
 */
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MANIFEST_KEY } from "#manifest/manifest.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { fixtureRoutes, putManifest } from "../support/manifest.ts";

const HTML = "text/html; charset=utf-8";
const memory = createSiteStore({ url: "memory:", s3Endpoint: undefined, s3Region: "us-east-1" });
let held: Promise<void> | undefined;
let reads = 0;
/** The memory store, with every manifest read waiting while `held` is pending. */
const store: SiteStore = {
  ...memory,
  async get(key) {
    if (key === MANIFEST_KEY) {
      reads++;
      await held;
    }
    return memory.get(key);
  },
};
const app = Fastify();

const put = (key: string, body: string, contentType = HTML) =>
  memory.put(key, body, { contentType, cacheControl: "no-store", contentHash: sha256(body) });
const manifest = (routes: Record<string, string>) =>
  putManifest(memory, {
    ref: "ref",
    builtAt: new Date().toISOString(),
    assets: {},
    routes: fixtureRoutes(routes),
  });

beforeAll(async () => {
  await put("about/index.html", "<h1>About</h1>");
  await put("new/index.html", "<h1>New</h1>");
  await manifest({ "/about": "about/index.html" });
  await app.register(siteApp, { store, manifestRefreshMs: 0 });
  expect((await app.inject({ url: "/about" })).statusCode).toBe(200); // the first read, awaited
});
afterAll(() => app.close());

describe("the site server's manifest", () => {
  it("serves a known page while the manifest is read behind it", async () => {
    await manifest({ "/about": "about/index.html", "/new": "new/index.html" });
    let release: () => void = () => {};
    held = new Promise((resolve) => {
      release = resolve;
    });
    const before = reads;
    try {
      const about = await Promise.race([
        app.inject({ url: "/about" }),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("the page waited for the manifest")), 5_000),
        ),
      ]);
      expect(about.statusCode).toBe(200);
      expect(about.body).toContain("About");
      expect(reads).toBe(before + 1); // the read was started, and is still held
    } finally {
      release();
      held = undefined;
    }
  });

  it("answers a path it does not know only from a manifest read after the request arrived", async () => {
    await manifest({ "/about": "about/index.html", "/newest": "new/index.html" });
    const answer = await app.inject({ url: "/newest" });
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toContain("New");
  });
});
