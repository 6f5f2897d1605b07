import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { GenericContainer, getContainerRuntimeClient, Wait } from "testcontainers";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { StorageConfig } from "#config";
import { CACHE_CONTROL, defaultCacheControl } from "#manifest/manifest.ts";
import {
  compareKeys,
  contentTypeFor,
  createSiteStore,
  type SiteStore,
  type SiteStoreOptions,
  StorageError,
  StorageKeyError,
  sha256,
} from "#storage";
import { startHttpFixture } from "../support/http-fixture.ts";
import { type S3Server, startS3rver } from "../support/s3rver.ts";
import { tempDir } from "../support/temp-dir.ts";

const _ROOT = new URL("../../", import.meta.url).pathname;
const REGION = "us-east-1";
const HTML = "text/html; charset=utf-8";
// A page's own policy: what the folder driver infers from the key, so it stores no metadata file.
const CACHE = CACHE_CONTROL.html;

/** One store under test plus views of its backend that go around the driver. */
interface Opened {
  store: SiteStore;
  /** Everything the backend holds, inside the store's prefix or not (files, or object keys). */
  everything(): Promise<string[]>;
  /** The stored bytes, read without the driver; undefined for memory (nothing to go around). */
  raw?: (key: string) => Promise<Buffer>;
  /** S3 only: the object's `x-amz-website-redirect-location`, read without the driver. */
  rawRedirect?: (key: string) => Promise<string | undefined>;
  reopen(options: SiteStoreOptions): SiteStore;
  dispose?(): void;
}

interface Backend {
  name: string;
  skip?: string;
  /** S3 listings cannot return the stored hash. */
  listsHashes: boolean;
  /**
   * Whether head and list know an object's hash without reading it (the tests put every object as
   * a page: HTML with a page's cache policy). The folder driver keeps a hash only in a metadata
   * file, written only for an object whose metadata its key does not imply. Default: always.
   */
  keepsHashOf?(key: string): boolean;
  /**
   * Lists in UTF-8 byte order. s3rver does not: it walks its folders, so `about/index.html`
   * comes before `about.html` (AWS S3 and MinIO sort properly; the S3 driver relies on them).
   */
  ordered: boolean;
  start?(): Promise<void>;
  stop?(): Promise<void>;
  open(): Promise<Opened>;
}

const storage = (url: string, s3Endpoint?: string): StorageConfig => ({ url, s3Endpoint, s3Region: REGION });
const put = (
  store: SiteStore,
  key: string,
  body: Buffer | string,
  contentType: string = HTML,
  cacheControl: string = CACHE,
) => store.put(key, body, { contentType, cacheControl, contentHash: sha256(body) });
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
const keysOf = async (store: SiteStore, prefix?: string) =>
  (await collect(store.list(prefix))).map((o) => o.key);

async function filesUnder(folder: string, base = folder): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? filesUnder(join(folder, e.name), base) : [relative(base, join(folder, e.name))],
    ),
  );
  return nested.flat().sort();
}

async function startMinio(): Promise<S3Server> {
  const credentials = { accessKeyId: "pressroom", secretAccessKey: "pressroom-secret" };
  const container = await new GenericContainer("minio/minio:latest")
    .withCommand(["server", "/data"])
    .withEnvironment({
      MINIO_ROOT_USER: credentials.accessKeyId,
      MINIO_ROOT_PASSWORD: credentials.secretAccessKey,
    })
    .withExposedPorts(9000)
    .withWaitStrategy(Wait.forHttp("/minio/health/ready", 9000))
    .start();
  const endpoint = `http://${container.getHost()}:${container.getMappedPort(9000)}`;
  return { endpoint, credentials, stop: async () => void (await container.stop()) };
}

/** Fast, never hanging: testcontainers rejects at once without an engine; the race covers odd DOCKER_HOSTs. */
async function dockerProblem(): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), 2_500);
  });
  try {
    await Promise.race([getContainerRuntimeClient(), timeout]);
    return undefined;
  } catch {
    return "no Docker engine";
  } finally {
    clearTimeout(timer);
  }
}

const savedCredentials = () => ({
  id: process.env.AWS_ACCESS_KEY_ID,
  secret: process.env.AWS_SECRET_ACCESS_KEY,
});
function restoreCredentials(saved: ReturnType<typeof savedCredentials>) {
  // Assigning undefined to process.env would store the string "undefined".
  for (const [name, value] of [
    ["AWS_ACCESS_KEY_ID", saved.id],
    ["AWS_SECRET_ACCESS_KEY", saved.secret],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

let bucketCount = 0;
function s3Backend(
  name: string,
  prefix: string,
  start: () => Promise<S3Server>,
  options: { ordered: boolean; skip?: string | undefined },
): Backend {
  let server: S3Server | undefined;
  const saved = savedCredentials();
  return {
    name,
    ...options,
    listsHashes: false,
    async start() {
      server = await start();
    },
    async stop() {
      await server?.stop();
      restoreCredentials(saved);
    },
    async open() {
      if (!server) throw new Error("server not started");
      const { endpoint, credentials } = server;
      // The store builds its own client from the default credential chain, as in production.
      process.env.AWS_ACCESS_KEY_ID = credentials.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = credentials.secretAccessKey;
      const raw = new S3Client({ region: REGION, endpoint, forcePathStyle: true, credentials });
      const Bucket = `case-${++bucketCount}-${process.pid}`;
      await raw.send(new CreateBucketCommand({ Bucket }));
      // Decoys outside the prefix: never listed, never touched.
      const decoys = prefix ? ["outside.html", `${prefix}x.html`, `${prefix}-other/index.html`] : [];
      for (const Key of decoys) await raw.send(new PutObjectCommand({ Bucket, Key, Body: "decoy" }));
      const config = storage(`s3://${Bucket}${prefix ? `/${prefix}` : ""}`, endpoint);
      return {
        store: createSiteStore(config),
        reopen: (options) => createSiteStore(config, options),
        dispose: () => raw.destroy(),
        async everything() {
          const page = await raw.send(new ListObjectsV2Command({ Bucket }));
          return (page.Contents ?? []).map((o) => o.Key ?? "");
        },
        async raw(key) {
          const object = await raw.send(
            new GetObjectCommand({ Bucket, Key: prefix ? `${prefix}/${key}` : key }),
          );
          return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
        },
        async rawRedirect(key) {
          const head = await raw.send(
            new HeadObjectCommand({ Bucket, Key: prefix ? `${prefix}/${key}` : key }),
          );
          return head.WebsiteRedirectLocation;
        },
      };
    },
  };
}

let folders: Awaited<ReturnType<typeof tempDir>> | undefined;
let caseCount = 0;
const fileBackend: Backend = {
  name: "file",
  listsHashes: true,
  keepsHashOf: (key) => contentTypeFor(key) !== HTML || defaultCacheControl(key) !== CACHE,
  ordered: true,
  async start() {
    folders = await tempDir("site-store");
  },
  stop: async () => folders?.remove(),
  async open() {
    // The store's folder sits inside a case folder, so a write that escaped it would be seen.
    const caseFolder = join(folders?.path ?? "", `case-${++caseCount}`);
    const root = join(caseFolder, "site");
    const config = storage(pathToFileURL(root).href);
    return {
      store: createSiteStore(config),
      reopen: (options) => createSiteStore(config, options),
      everything: () => filesUnder(caseFolder).catch(() => []),
      raw: (key) => readFile(join(root, key)),
    };
  },
};

const memoryBackend: Backend = {
  name: "memory",
  listsHashes: true,
  ordered: true,
  async open() {
    const store = createSiteStore(storage("memory:"));
    return { store, reopen: () => store, everything: () => keysOf(store) };
  },
};

let s3rverFolder: Awaited<ReturnType<typeof tempDir>> | undefined;
const s3rver = async () => {
  s3rverFolder ??= await tempDir("s3rver");
  return startS3rver(s3rverFolder.path);
};
const docker = await dockerProblem();
const backends: Backend[] = [
  memoryBackend,
  fileBackend,
  s3Backend("S3 on s3rver, prefix www", "www", s3rver, { ordered: false }),
  s3Backend("S3 on s3rver, empty prefix", "", s3rver, { ordered: false }),
  s3Backend("S3 on MinIO, prefix www", "www", startMinio, { ordered: true, skip: docker }),
];
afterAll(() => s3rverFolder?.remove());

const SITE = [
  "index.html",
  "about/index.html",
  "about.html", // sorts before about/… ("." < "/"): a folder-first walk would get this wrong
  "price-list/index.html",
  "price-list/basic/index.html",
  "price-list/premium/index.html",
  "assets/site.3f2a1b9c.css",
  "sitemap.xml",
  "404.html",
  ".pressroom/manifest.json",
  "blog/café/index.html",
];

const UNSAFE = [
  "",
  "/etc/passwd",
  "../escape.html",
  "a/../../escape.html",
  "./index.html",
  "a/./b.html",
  "a\\b.html",
  "..\\escape.html",
  "a//b.html",
  "about/",
  "a\u0000b",
  "a\nb",
  "x".repeat(1025),
  ".pressroom-meta/index.html",
];

for (const backend of backends) {
  const title = `SiteStore contract: ${backend.name}${backend.skip ? ` (skipped: ${backend.skip})` : ""}`;
  (backend.skip ? describe.skip : describe)(title, () => {
    let t: Opened;
    beforeAll(() => backend.start?.(), 180_000);
    afterAll(() => backend.stop?.());
    beforeEach(async () => {
      t = await backend.open();
    });
    afterEach(async () => {
      await t.store.close();
      t.dispose?.();
    });

    it("round-trips text with its content type, cache control and hash", async () => {
      const html = "<!doctype html><title>Home</title><h1>Welcome</h1>";
      await put(t.store, "index.html", html);
      const got = await t.store.get("index.html");
      expect(Buffer.isBuffer(got?.body)).toBe(true);
      expect(got?.body.toString("utf8")).toBe(html);
      expect(got).toMatchObject({
        key: "index.html",
        size: html.length,
        contentType: HTML,
        cacheControl: CACHE,
      });
      expect(got?.contentHash).toBe(sha256(html));
      expect(got?.etag).toMatch(/^(W\/)?".+"$/);
      expect(Math.abs((got?.lastModified.getTime() ?? 0) - Date.now())).toBeLessThan(60_000);
    });

    it("round-trips binary bytes, a 5 MB body and multibyte UTF-8", async () => {
      const bodies: [string, Buffer | string, string][] = [
        [
          "assets/all-bytes.bin",
          Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
          "application/octet-stream",
        ],
        ["assets/big.bin", randomBytes(5 * 1024 * 1024), "application/octet-stream"],
        ["price-list/index.html", "Prix : 12 € — ½ — 日本語 — 🚀 — \u00a0", HTML],
      ];
      for (const [key, body, type] of bodies) await put(t.store, key, body, type, "no-cache");
      for (const [key, body, type] of bodies) {
        const got = await t.store.get(key);
        expect(got?.body.equals(Buffer.from(body))).toBe(true);
        expect(got).toMatchObject({
          size: Buffer.byteLength(body),
          contentType: type,
          cacheControl: "no-cache",
        });
        expect(got?.contentHash).toBe(sha256(body));
      }
    });

    it("head describes an object like get, without the body", async () => {
      await put(t.store, "about/index.html", "<h1>About</h1>");
      const stored = await t.store.get("about/index.html");
      if (!stored) throw new Error("about/index.html was not stored");
      const { body, ...got } = stored;
      const head = await t.store.head("about/index.html");
      expect(body).toBeDefined();
      expect(head).not.toHaveProperty("body");
      // get hashes the bytes it read; head knows the hash only where the store keeps it.
      const kept = backend.keepsHashOf?.("about/index.html") ?? true;
      expect(head).toEqual({ ...got, contentHash: kept ? got.contentHash : undefined });
    });

    it("overwrites body and metadata", async () => {
      await put(t.store, "about/index.html", "v1", "text/plain", "no-cache");
      await put(t.store, "about/index.html", "<p>version 2</p>", HTML, "max-age=60");
      const got = await t.store.get("about/index.html");
      expect(got?.body.toString()).toBe("<p>version 2</p>");
      expect(got).toMatchObject({
        contentType: HTML,
        cacheControl: "max-age=60",
        contentHash: sha256("<p>version 2</p>"),
      });
      expect(await keysOf(t.store)).toEqual(["about/index.html"]);
    });

    it("keeps a redirect location on put, head and get; a put without one clears it", async () => {
      const body = '<!doctype html><meta http-equiv="refresh" content="0; url=/new">';
      const options = { contentType: HTML, cacheControl: CACHE, contentHash: sha256(body) };
      await t.store.put("old/index.html", body, { ...options, redirectLocation: "/new" });
      expect((await t.store.head("old/index.html"))?.redirectLocation).toBe("/new");
      const got = await t.store.get("old/index.html");
      expect(got?.redirectLocation).toBe("/new");
      expect(got?.body.toString()).toBe(body);
      // On S3 it is the header a bucket served as a website answers 301 with.
      if (t.rawRedirect) expect(await t.rawRedirect("old/index.html")).toBe("/new");
      await t.store.put("old/index.html", "<h1>A page again</h1>", {
        ...options,
        contentHash: sha256("<h1>A page again</h1>"),
      });
      expect((await t.store.head("old/index.html"))?.redirectLocation).toBeUndefined();
      expect((await t.store.get("old/index.html"))?.redirectLocation).toBeUndefined();
      if (t.rawRedirect) expect(await t.rawRedirect("old/index.html")).toBeUndefined();
    });

    it("refuses a redirect location S3 would refuse, writing nothing", async () => {
      for (const location of ["new", "//evil.example/x", "javascript:alert(1)", "/a\nb", "/a b"]) {
        await expect(
          t.store.put("old/index.html", "x", {
            contentType: HTML,
            cacheControl: CACHE,
            contentHash: sha256("x"),
            redirectLocation: location,
          }),
        ).rejects.toThrow(/redirectLocation/);
      }
      expect(await keysOf(t.store)).toEqual([]);
    });

    it("answers undefined for a missing key, and for a folder", async () => {
      await put(t.store, "about/index.html", "x");
      for (const key of ["missing.html", "missing/index.html", "about", "about/index.html/x"]) {
        expect(await t.store.get(key)).toBeUndefined();
        expect(await t.store.head(key)).toBeUndefined();
      }
    });

    it("deletes idempotently", async () => {
      await put(t.store, "about/index.html", "x");
      await t.store.delete("about/index.html");
      expect(await t.store.get("about/index.html")).toBeUndefined();
      await t.store.delete("about/index.html");
      await t.store.delete("never/was.html");
      expect(await keysOf(t.store)).toEqual([]);
    });

    it("lists every object with keys relative to the prefix, in UTF-8 byte order, also by sub-prefix", async () => {
      for (const key of [...SITE].reverse()) await put(t.store, key, `<p>${key}</p>`);
      const listed = await collect(t.store.list());
      const keys = listed.map((o) => o.key);
      expect(backend.ordered ? keys : keys.sort(compareKeys)).toEqual([...SITE].sort(compareKeys));
      for (const object of listed) {
        expect(object.size).toBe(Buffer.byteLength(`<p>${object.key}</p>`));
        const kept = backend.listsHashes && (backend.keepsHashOf?.(object.key) ?? true);
        expect(object.contentHash).toBe(kept ? sha256(`<p>${object.key}</p>`) : undefined);
        expect(object.etag).not.toBe("");
      }
      const priceLists = [
        "price-list/basic/index.html",
        "price-list/index.html",
        "price-list/premium/index.html",
      ];
      expect(await keysOf(t.store, "price-list/")).toEqual(priceLists);
      expect(await keysOf(t.store, "price")).toEqual(priceLists);
      expect(await keysOf(t.store, "price-list/p")).toEqual(["price-list/premium/index.html"]);
      expect(await keysOf(t.store, ".pressroom/")).toEqual([".pressroom/manifest.json"]);
      expect(await keysOf(t.store, "nothing/")).toEqual([]);
      // keys() is list() without the metadata: the same keys, in the same order, by prefix too.
      const sorted = (list: string[]) => (backend.ordered ? list : [...list].sort(compareKeys));
      expect(sorted(await collect(t.store.keys()))).toEqual(sorted(listed.map((o) => o.key)));
      expect(await collect(t.store.keys("price-list/"))).toEqual(await keysOf(t.store, "price-list/"));
    });

    it("lists what is left after deletes", async () => {
      for (const key of SITE) await put(t.store, key, key);
      await t.store.delete("price-list/basic/index.html");
      await t.store.delete("about/index.html");
      const left = SITE.filter((k) => k !== "price-list/basic/index.html" && k !== "about/index.html");
      expect(await keysOf(t.store)).toEqual(left.sort(compareKeys));
    });

    it("keeps keys in nested folders", async () => {
      await put(t.store, "a/b/c/d/e/index.html", "deep");
      expect((await t.store.get("a/b/c/d/e/index.html"))?.body.toString()).toBe("deep");
      expect(await keysOf(t.store, "a/b/")).toEqual(["a/b/c/d/e/index.html"]);
      await t.store.delete("a/b/c/d/e/index.html");
      expect(await keysOf(t.store)).toEqual([]);
    });

    it.each(UNSAFE)("refuses the unsafe key %j on every operation and writes nothing", async (key) => {
      const before = await t.everything();
      const operations = [
        () => put(t.store, key, "evil"),
        () => t.store.get(key),
        () => t.store.head(key),
        () => t.store.delete(key),
      ];
      for (const operation of operations) {
        const error = await operation().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(StorageKeyError);
        expect((error as StorageKeyError).key).toBe(key);
      }
      if (key !== "") await expect(collect(t.store.list(`${key}/`))).rejects.toBeInstanceOf(StorageKeyError);
      expect(await t.everything()).toEqual(before);
    });

    it("refuses a content hash that is not the body's, writing nothing", async () => {
      const before = await t.everything();
      const options = { contentType: HTML, cacheControl: CACHE, contentHash: sha256("other") };
      await expect(t.store.put("index.html", "body", options)).rejects.toThrow(/not the sha256 of the body/);
      expect(await t.store.get("index.html")).toBeUndefined();
      expect(await t.everything()).toEqual(before);
    });

    it.skipIf(backend.name === "memory")(
      "stores the bytes exactly as given (no aws-chunked framing)",
      async () => {
        const binary = randomBytes(64 * 1024);
        await put(t.store, "assets/blob.bin", binary, "application/octet-stream");
        await put(t.store, "index.html", "Grüße 🚀");
        expect((await t.raw?.("assets/blob.bin"))?.equals(binary)).toBe(true);
        expect((await t.raw?.("index.html"))?.toString("utf8")).toBe("Grüße 🚀");
      },
    );

    it("takes 200 concurrent puts, then lists them all, also across small pages", async () => {
      const keys = Array.from(
        { length: 200 },
        (_, i) => `bulk/page-${String(i).padStart(3, "0")}/index.html`,
      );
      await Promise.all(keys.map((key) => put(t.store, key, `<p>${key}</p>`)));
      expect(await keysOf(t.store)).toEqual(keys);
      const paged = t.reopen({ listPageSize: 7 });
      expect(await keysOf(paged, "bulk/")).toEqual(keys);
      await paged.close();
    });
  });
}

describe("file driver", () => {
  let root: string;
  let store: SiteStore;
  beforeAll(() => fileBackend.start?.());
  afterAll(() => fileBackend.stop?.());
  beforeEach(async () => {
    root = join(folders?.path ?? "", `file-${++caseCount}`);
    store = createSiteStore(storage(`file://${relative(process.cwd(), root)}`));
  });

  it("resolves a relative folder against the working directory, and the folder is the site", async () => {
    expect(store.description).toBe(pathToFileURL(root).href);
    await put(store, "about/index.html", "<h1>About</h1>");
    await put(store, ".pressroom/manifest.json", "{}", "application/json", CACHE_CONTROL.metadata);
    expect(await readFile(join(root, "about/index.html"), "utf8")).toBe("<h1>About</h1>");
    expect(await keysOf(store)).toEqual([".pressroom/manifest.json", "about/index.html"]);
    expect((await filesUnder(root)).filter((f) => f.includes(".pressroom-tmp-"))).toEqual([]);
  });

  it("stores one file per object whose metadata its key implies, and a metadata file beside any other", async () => {
    // A page, an asset and the manifest, each with its place's policy and its extension's type.
    await put(store, "about/index.html", "<h1>About</h1>");
    await put(store, "assets/site.0123abcd.css", "p{}", "text/css; charset=utf-8", CACHE_CONTROL.immutable);
    await put(store, ".pressroom/manifest.json", "{}", "application/json", CACHE_CONTROL.metadata);
    expect(await filesUnder(root)).toEqual([
      ".pressroom/manifest.json",
      "about/index.html",
      "assets/site.0123abcd.css",
    ]);
    expect(await store.head("about/index.html")).toMatchObject({ contentType: HTML, cacheControl: CACHE });
    expect((await store.head("assets/site.0123abcd.css"))?.cacheControl).toBe(CACHE_CONTROL.immutable);
    // A redirect, another policy or another type: written beside the body, with its hash.
    await store.put("faq/index.html", "moved", {
      contentType: HTML,
      cacheControl: CACHE,
      contentHash: sha256("moved"),
      redirectLocation: "/faq-v2",
    });
    await put(store, "custom/index.html", "x", HTML, "max-age=60");
    const meta = JSON.parse(await readFile(join(root, ".pressroom-meta/faq/index.html"), "utf8"));
    expect(meta).toMatchObject({ redirectLocation: "/faq-v2", contentHash: sha256("moved") });
    expect(await store.head("custom/index.html")).toMatchObject({
      cacheControl: "max-age=60",
      contentHash: sha256("x"),
    });
    // The redirect's route becomes a page again: its metadata file goes with the redirect.
    await put(store, "faq/index.html", "back");
    expect(await store.head("faq/index.html")).not.toHaveProperty("redirectLocation");
    expect((await filesUnder(root)).filter((f) => f.startsWith(".pressroom-meta/"))).toEqual([
      ".pressroom-meta/custom/index.html",
    ]);
  });

  it("prunes folders left empty by a delete, in both trees", async () => {
    await put(store, "a/b/c/index.html", "x");
    await put(store, "a/keep.html", "x");
    await store.delete("a/b/c/index.html");
    await store.put("a/b/c/moved.html", "x", {
      contentType: HTML,
      cacheControl: CACHE,
      contentHash: sha256("x"),
      redirectLocation: "/elsewhere",
    });
    await store.delete("a/b/c/moved.html");
    expect(await filesUnder(root)).toEqual(["a/keep.html"]);
    await expect(readdir(join(root, "a/b"))).rejects.toThrow(/ENOENT/);
    await expect(readdir(join(root, ".pressroom-meta/a"))).rejects.toThrow(/ENOENT/);
  });

  it("serves files put there by hand, with the type from the extension", async () => {
    await put(store, "index.html", "x");
    await writeFile(join(root, "robots.txt"), "User-agent: *\n");
    const got = await store.get("robots.txt");
    expect(got).toMatchObject({ contentType: "text/plain; charset=utf-8", cacheControl: CACHE, size: 14 });
    expect(got?.contentHash).toBe(sha256("User-agent: *\n"));
    expect((await store.head("robots.txt"))?.contentHash).toBeUndefined();
    expect(await keysOf(store)).toEqual(["index.html", "robots.txt"]);
  });

  it("forgets the stored hash of a body changed behind its back", async () => {
    await put(store, "index.html", "published", HTML, "max-age=60"); // a metadata file, with the hash
    await writeFile(join(root, "index.html"), "edited by hand");
    expect((await store.head("index.html"))?.contentHash).toBeUndefined();
    expect((await store.get("index.html"))?.contentHash).toBe(sha256("edited by hand"));
    expect((await collect(store.list()))[0]?.contentHash).toBeUndefined();
  });

  it("ends consistent after concurrent puts of one key", async () => {
    const bodies = Array.from({ length: 20 }, (_, i) => `<p>version ${i}</p>`.repeat(i + 1));
    await Promise.all(bodies.map((body) => put(store, "index.html", body)));
    const got = await store.get("index.html");
    expect(got?.contentHash).toBe(sha256(got?.body ?? ""));
    expect((await store.head("index.html"))?.etag).toBe(got?.etag);
  });

  it("names the key when a key collides with a folder", async () => {
    await put(store, "about/index.html", "x");
    const error = await put(store, "about", "x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).message).toMatch(/^Storage put of "about" in file:\/\/.* failed: /);
  });
});

describe("S3 driver failures", () => {
  let server: S3Server;
  const saved = savedCredentials();
  beforeAll(async () => {
    s3rverFolder ??= await tempDir("s3rver");
    server = await startS3rver(s3rverFolder.path);
    process.env.AWS_ACCESS_KEY_ID = "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
  });
  afterAll(async () => {
    await server.stop();
    restoreCredentials(saved);
  });

  it("surfaces a 5xx, after the SDK's retries, as a retryable error naming the key", async () => {
    const fixture = await startHttpFixture((_request, response) => {
      response.writeHead(500, { "content-type": "application/xml" });
      response.end(
        "<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>",
      );
    });
    const store = createSiteStore(storage("s3://site/www", fixture.url));
    const error = await put(store, "about/index.html", "x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ operation: "put", key: "about/index.html", retryable: true });
    expect((error as Error).message).toMatch(
      /^Storage put of "about\/index.html" in s3:\/\/site\/www failed: .*500/,
    );
    expect(fixture.requests.length).toBeGreaterThan(1);
    await expect(store.get("about/index.html")).rejects.toThrow(/about\/index.html/);
    await store.close();
    await fixture.close();
  });

  it("uploads plain bytes with Content-MD5 and without the SDK's checksum headers", async () => {
    const fixture = await startHttpFixture((_request, response) => {
      response.writeHead(200, { etag: '"x"' });
      response.end();
    });
    const store = createSiteStore(storage("s3://site/www", fixture.url));
    const body = randomBytes(1000);
    await put(store, "assets/blob.bin", body, "application/octet-stream");
    const [request] = fixture.requests;
    expect(request).toMatchObject({
      method: "PUT",
      url: expect.stringMatching(/^\/site\/www\/assets\/blob\.bin(\?|$)/),
    });
    expect(
      Object.keys(request?.headers ?? {}).filter((h) => /checksum|x-amz-decoded|trailer/.test(h)),
    ).toEqual([]);
    expect(request?.headers["content-encoding"]).toBeUndefined();
    expect(request?.headers["content-md5"]).toBe(createHash("md5").update(body).digest("base64"));
    expect(request?.headers["content-length"]).toBe("1000");
    await store.close();
    await fixture.close();
  });

  it("surfaces a hung server as a retryable timeout naming the key", async () => {
    const fixture = await startHttpFixture(() => undefined);
    const store = createSiteStore(storage("s3://site", fixture.url), { s3TimeoutMs: 200 });
    const error = await store.get("index.html").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "StorageError", key: "index.html", retryable: true });
    expect((error as Error).message).toMatch(/"index.html".*TimeoutError/);
    await store.close();
    await fixture.close();
  });

  it("treats a missing bucket as an error, never as an empty site", async () => {
    const store = createSiteStore(storage("s3://no-such-bucket/www", server.endpoint));
    await expect(store.get("index.html")).rejects.toThrow(/NoSuchBucket/);
    await expect(collect(store.list())).rejects.toThrow(/NoSuchBucket/);
    await store.close();
  });

  it("stores metadata on the object, pages listings, refuses keys too long with the prefix", async () => {
    const client = new S3Client({
      region: REGION,
      endpoint: server.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
    await client.send(new CreateBucketCommand({ Bucket: "metadata" }));
    const store = createSiteStore(storage("s3://metadata/www", server.endpoint), { s3Client: client });
    await put(store, "index.html", "<h1>Home</h1>");
    const head = await client.send(new HeadObjectCommand({ Bucket: "metadata", Key: "www/index.html" }));
    expect(head).toMatchObject({
      ContentType: HTML,
      CacheControl: CACHE,
      Metadata: { "content-hash": sha256("<h1>Home</h1>") },
    });
    // 1,023 bytes in four segments of 255 (the per-segment limit): fine alone, too long with "www/".
    await expect(store.head(Array(4).fill("x".repeat(255)).join("/"))).rejects.toThrow(
      /with the prefix "www\/", longer than 1024 bytes/,
    );
    let pages = 0;
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === "ListObjectsV2Command") pages++;
        return next(args);
      },
      { step: "initialize" },
    );
    const keys = Array.from({ length: 9 }, (_, i) => `p/${i}.html`);
    await Promise.all(keys.map((key) => put(store, key, key)));
    const paged = createSiteStore(storage("s3://metadata/www", server.endpoint), {
      s3Client: client,
      listPageSize: 4,
    });
    expect(await keysOf(paged, "p/")).toEqual(keys);
    expect(pages).toBe(3);
    await paged.close();
    await store.close(); // a client passed in stays the caller's
    expect(
      (await client.send(new HeadObjectCommand({ Bucket: "metadata", Key: "www/index.html" }))).ContentLength,
    ).toBe(13);
    client.destroy();
  });
});
