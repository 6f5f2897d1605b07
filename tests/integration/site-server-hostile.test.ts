import { PassThrough } from "node:stream";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "#logger";
import { CACHE_CONTROL, MANIFEST_KEY } from "#manifest/manifest.ts";
import { siteApp } from "#site/app.ts";
import { createSiteStore, type SiteStore, sha256 } from "#storage";
import { type S3Server, startS3rver } from "../support/s3rver.ts";
import { tempDir } from "../support/temp-dir.ts";

const NOT_FOUND_PAGE = "<h1>This page could not be found</h1>";

/** Paths whose key no store can hold, or that a folder cannot name: each must be a plain 404. */
const HOSTILE_PATHS = [
  `/${"a".repeat(256)}.css`,
  `/${"a".repeat(300)}`,
  `/assets/${"b".repeat(255)}x.js`,
  `/${"c".repeat(200)}/${"d".repeat(300)}.html`,
  `/${"%C3%A9".repeat(130)}.css`, // 130 × 2 bytes: over 255 bytes, under 1,024
  "/index.html/x.css", // a file used as a folder (ENOTDIR)
  `/${"e/".repeat(400)}f.css`, // a deep path under the key limit
];

async function serve(store: SiteStore) {
  const html = "text/html; charset=utf-8";
  await store.put("index.html", "<h1>Home</h1>", {
    contentType: html,
    cacheControl: CACHE_CONTROL.html,
    contentHash: sha256("<h1>Home</h1>"),
  });
  await store.put("404.html", NOT_FOUND_PAGE, {
    contentType: html,
    cacheControl: CACHE_CONTROL.html,
    contentHash: sha256(NOT_FOUND_PAGE),
  });
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on("data", (chunk: Buffer) => lines.push(...chunk.toString("utf8").split("\n").filter(Boolean)));
  const app = Fastify({
    loggerInstance: createLogger({ name: "site", level: "info", destination: stream, pretty: false }),
  });
  await app.register(siteApp, { store, manifestRefreshMs: 0 });
  await app.ready();
  return { app, lines };
}

function expectPlain404(response: { statusCode: number; body: string }, root: string) {
  expect(response.statusCode).toBe(404);
  expect(response.body).toBe(NOT_FOUND_PAGE);
  expect(response.body).not.toContain(root);
  expect(response.body).not.toMatch(/ENAMETOOLONG|ENOTDIR|stack|at .*\.ts:\d+/);
}

describe("site server: keys the store cannot hold are 404s, never a 500 with a path", () => {
  describe("folder driver", () => {
    let site: Awaited<ReturnType<typeof serve>>;
    let root: string;
    let dir: Awaited<ReturnType<typeof tempDir>>;
    beforeAll(async () => {
      dir = await tempDir("site-hostile");
      root = dir.path;
      site = await serve(
        createSiteStore({ url: `file://${root}`, s3Endpoint: undefined, s3Region: "us-east-1" }),
      );
    });
    afterAll(async () => {
      await site.app.close();
      await dir.remove();
    });

    it.each(HOSTILE_PATHS.map((path) => [path.slice(0, 60), path]))("%s… → 404", async (_shown, path) => {
      const response = await site.app.inject({ method: "GET", url: path });
      expectPlain404(response, root);
    });

    it("writes no error or stack to the log for them", async () => {
      for (const path of HOSTILE_PATHS) await site.app.inject({ method: "GET", url: path });
      const bad = site.lines.filter((line) => /"level":50|ENAMETOOLONG|"stack"/.test(line));
      expect(bad).toEqual([]);
    });
  });

  describe("S3 driver (s3rver)", () => {
    let server: S3Server;
    let site: Awaited<ReturnType<typeof serve>>;
    let dir: Awaited<ReturnType<typeof tempDir>>;
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    beforeAll(async () => {
      dir = await tempDir("s3rver-hostile");
      server = await startS3rver(dir.path);
      process.env.AWS_ACCESS_KEY_ID = server.credentials.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = server.credentials.secretAccessKey;
      const raw = new S3Client({
        region: "us-east-1",
        endpoint: server.endpoint,
        forcePathStyle: true,
        credentials: server.credentials,
      });
      await raw.send(new CreateBucketCommand({ Bucket: "hostile" }));
      raw.destroy();
      site = await serve(
        createSiteStore({ url: "s3://hostile/www", s3Endpoint: server.endpoint, s3Region: "us-east-1" }),
      );
    });
    afterAll(async () => {
      await site?.app.close();
      await server?.stop();
      await dir?.remove();
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
      if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
    });

    it.each(HOSTILE_PATHS.map((path) => [path.slice(0, 60), path]))("%s… → 404", async (_shown, path) => {
      const response = await site.app.inject({ method: "GET", url: path });
      expectPlain404(response, server.endpoint);
      expect(response.body).not.toContain("hostile/www");
    });
  });
});

describe("site server: a uid beyond ASCII", () => {
  it("serves the page of a percent-encoded route from its decoded key", async () => {
    const dir = await tempDir("site-unicode");
    const store = createSiteStore({
      url: `file://${dir.path}`,
      s3Endpoint: undefined,
      s3Region: "us-east-1",
    });
    const body = "<h1>Über uns</h1>";
    const html = "text/html; charset=utf-8";
    await store.put("über-uns/index.html", body, {
      contentType: html,
      cacheControl: CACHE_CONTROL.html,
      contentHash: sha256(body),
    });
    const route = (key: string) => ({ key, hash: "x", status: 200, dependencies: [] });
    // A manifest of version 1 (every route in one file), as stored before route shards: still read.
    const manifest = JSON.stringify({
      version: 1,
      ref: "REF",
      builtAt: new Date().toISOString(),
      routes: {
        "/%C3%BCber-uns": route("über-uns/index.html"),
        "404": { ...route("404.html"), status: 404 },
      },
      assets: {},
    });
    await store.put(MANIFEST_KEY, manifest, {
      contentType: "application/json",
      cacheControl: "no-store",
      contentHash: sha256(manifest),
    });
    const { app } = await serve(store);
    try {
      const response = await app.inject({ method: "GET", url: "/%C3%BCber-uns" });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(body);
    } finally {
      await app.close();
      await dir.remove();
    }
  });
});
