/**
 * The worker, the site server and a real varnishd running the shipped VCL
 * (infra/varnish/default.vcl, backend and ACL rewritten for the test) in front of it. A page is a
 * cache hit; a publish makes exactly the pages whose stored bytes changed fresh at the edge while
 * the others stay hits (their Age grows); every Accept-Encoding shares one copy; the contact API and
 * `/_pressroom` are never kept; twenty visitors asking at once for a purged page cost the site server
 * one fetch; a rename answers 301 at the old URL through the edge; an unpublished page answers 404;
 * an editor's redirect is fresh at the edge when it is added, changed and removed; a PURGE from an
 * address outside the ACL is refused; with the site server down, or answering 5xx, the edge serves
 * the last page; a purge that fails (Varnish frozen, then killed) is retried until every affected
 * page is fresh, without holding the publish. A path in another case, or a page's stored key
 * (`/jobs/index.html`), answers 301 and is kept and purged with its route; If-Modified-Since is
 * answered 304 from the copy, which stays the page; an invalid Host is a 400, never kept. Real
 * Redis, the local content service calling the real webhook receiver, the worker's own jobs.
 * Skipped, with a note, where varnishd is missing.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, request } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBuild } from "#bin/run-build.ts";
import type { PublisherConfig, SiteConfig } from "#config";
import { redisKeys } from "#jobs/catalog.ts";
import { registry } from "#metrics/registry.ts";
import { type RunningSite, startSite } from "#site/server.ts";
import { createSiteStore, type SiteStore } from "#storage";
import { startWebhook } from "#webhook/server.ts";
import { statusCommand } from "#worker/inspect.ts";
import { addPendingPurges } from "#worker/publish/pending-purges.ts";
import { type RunningWorker, startWorker } from "#worker/worker.ts";
import { contentConfig } from "../support/content-client.ts";
import { type LocalPrismic, startLocalPrismic } from "../support/local-prismic.ts";
import { storedManifest } from "../support/manifest.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { tempDir } from "../support/temp-dir.ts";
import { until } from "../support/until.ts";
import { hasVarnish, startVarnish, type Varnish } from "../support/varnish.ts";
import { webhookOptions } from "../support/webhook-options.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const DEMO = `${ROOT}services/local-prismic/demo/documents/`;
const PREFIX = `test-edge-${process.pid}-${Date.now()}`;
const SECRET = "edge-varnish-secret";
const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
const ID = {
  about: "Z9nWuhEAACMAx1Cc",
  services: "Z9nWvBEAACQAx1Dd",
  pricing: "Z9nWvxEAACUAx1Ee",
  faq: "Z9nWwREAACMAx1Ff",
  privacy: "Z9nWxxEAACUAx1Hh",
};
/** The demo's `/team` redirect document: a template for new ones. */
const TEAM_REDIRECT = "Z9nX0REAACMAx1Ll";
/** Every route the tests read through the edge first (the demo's pages, listings and files). */
const PRIMED = [
  "/",
  "/about",
  "/services",
  "/pricing",
  "/faq",
  "/contact",
  "/privacy",
  "/price-list/",
  "/price-list/websites",
  "/sitemap.xml",
  "/robots.txt",
];
type Doc = { id: string; uid: string; data: Record<string, unknown> };
const demo = (id: string) => JSON.parse(readFileSync(`${DEMO}${id}.json`, "utf8")) as Doc;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const execFileAsync = promisify(execFile);

let content: LocalPrismic;
let webhook: Awaited<ReturnType<typeof startWebhook>>;
let worker: RunningWorker;
let site: RunningSite;
let siteConfig: SiteConfig;
let varnish: Varnish;
let folder: { path: string; remove: () => Promise<void> };
let redis: Redis;
let store: SiteStore;
let config: PublisherConfig;

/** Publishes in the content service (which calls the webhook) and waits for the publish to end. */
async function published(upsert: Doc[], remove: string[] = []) {
  const answer = await fetch(`${content.url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert, remove }),
  });
  expect(answer.status).toBe(200);
  let summary: { ref?: string; edge?: { liveAt?: number; deferred: boolean }; startedAt?: number } = {};
  await until(
    "the publish to end",
    async () => {
      summary = JSON.parse((await redis.get(redisKeys(PREFIX).lastPublish)) ?? "{}");
      return summary.ref === content.store.masterRef;
    },
    { timeoutMs: 60_000 },
  );
  return summary as Required<typeof summary> & { timings: Record<string, number> };
}

const titled = (id: string, title: string): Doc => {
  const doc = demo(id);
  return { ...doc, data: { ...doc.data, meta_title: title } };
};
const edge = (path: string) => fetch(`${varnish.url}${path}`, { redirect: "manual" });
const owed = () => redis.hlen(redisKeys(PREFIX).edgePending);
/** Each stored object's hash, from its bytes (a folder keeps no hash beside a page: docs/storage.md). */
async function storedHashes(): Promise<Map<string, string | undefined>> {
  const hashes = new Map<string, string | undefined>();
  for await (const key of store.keys()) hashes.set(key, (await store.get(key))?.contentHash);
  return hashes;
}
async function routeKeys(): Promise<Record<string, { key: string }>> {
  return (await storedManifest(store))?.routes ?? {};
}
/** The primed routes whose stored object differs from `before` (storedHashes): what a publish changed. */
async function changedSince(before: Map<string, string | undefined>): Promise<string[]> {
  const after = await storedHashes();
  const keys = await routeKeys();
  return PRIMED.filter((path) => before.get(keys[path]?.key ?? "") !== after.get(keys[path]?.key ?? ""));
}

/** A read whose bytes stay as they came (fetch would decode them), sending only `headers`. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const read = request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    read.on("error", reject);
    read.end();
  });
}

/** A soft purge of one route's key, sent from inside the ACL as the worker sends it. */
async function purgeRoute(at: Varnish, route: string) {
  const answer = await fetch(`${at.url}/`, { method: "PURGE", headers: { "xkey-purge": route } });
  expect(answer.status, await answer.text()).toBe(200);
}

/**
 * A site server that takes its time, on cue: a proxy in front of the real one that records every
 * request reaching it and, while held, keeps them until released (a slow storage read, say), so
 * that concurrent visitors are sure to meet at the edge while a fetch is in flight.
 */
async function startSlowOrigin(target: () => string) {
  const seen: string[] = [];
  let held: Promise<void> | undefined;
  let release = () => {};
  const server = createServer(async (incoming, outgoing) => {
    seen.push(incoming.url ?? "/");
    await held;
    const upstream = request(
      `${target()}${incoming.url}`,
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    hold() {
      held = new Promise((resolve) => {
        release = resolve;
      });
    },
    release() {
      release();
      held = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!hasVarnish)(
  "the edge: a real varnishd with the shipped VCL in front of the site server",
  () => {
    beforeAll(async () => {
      folder = await tempDir("edge-site");
      redis = new Redis({ maxRetriesPerRequest: null });
      webhook = await startWebhook(webhookOptions(PREFIX, SECRET), logger);
      content = await startLocalPrismic({
        webhookUrl: `${webhook.url}/webhooks/prismic`,
        webhookSecret: SECRET,
      });
      const storage = { url: `file://${folder.path}`, s3Endpoint: undefined, s3Region: "us-east-1" };
      siteConfig = {
        host: "127.0.0.1",
        port: 0,
        logLevel: "silent",
        storage,
        siteUrl: "https://www.example.com",
        redisUrl: "redis://127.0.0.1:6379",
        queuePrefix: PREFIX,
        contactRateLimit: 5,
        trustProxy: ["loopback"],
      };
      site = await startSite(siteConfig, logger);
      siteConfig.port = Number(new URL(site.url).port);
      // The ACL lists this machine's 127.0.0.1 only: the worker purges from it, the outsider below
      // speaks from 127.0.0.2.
      varnish = await startVarnish({
        backend: { host: "127.0.0.1", port: siteConfig.port },
        purgers: ["127.0.0.1"],
      });
      config = {
        logLevel: "silent",
        prismic: contentConfig(content.endpoint, { cacheTtlMs: 0 }),
        redisUrl: "redis://127.0.0.1:6379",
        queuePrefix: PREFIX,
        storage,
        siteUrl: "https://www.example.com",
        edge: { purgeUrl: `varnish://127.0.0.1:${varnish.port}` },
      };
      worker = await startWorker(config, logger, { rootDir: ROOT, reconcileEveryMs: 3_600_000 });
      store = createSiteStore(storage);
      await untilWorkerSettled(redis, PREFIX, content.store.masterRef);
    }, 120_000);

    afterAll(async () => {
      await worker?.close();
      await webhook?.close();
      await site?.close();
      await varnish?.stop();
      await content?.stop();
      await store?.close();
      await removeKeysUnder(redis, PREFIX);
      await redis?.quit();
      await folder?.remove();
    });

    it("keeps every page: the second read is a hit, visitors are told to revalidate", async () => {
      for (const path of PRIMED) {
        const first = await edge(path);
        expect(first.status, path).toBe(200);
        const again = await edge(path);
        expect(again.headers.get("x-cache"), path).toBe("hit");
        expect(await again.text(), path).toBe(await first.text());
        // s-maxage and stale-if-error are the edge's; nothing behind it keeps the page.
        expect(again.headers.get("cache-control"), path).toBe("public, max-age=0, must-revalidate");
        expect(again.headers.get("surrogate-key") ?? again.headers.get("xkey"), path).toBeNull();
      }
      // Every Accept-Encoding is one object: a gzip reader and a plain one share the copy.
      const gzip = await fetch(`${varnish.url}/about`, { headers: { "accept-encoding": "gzip, br" } });
      expect(gzip.headers.get("x-cache")).toBe("hit");
      const page = await gzip.text();
      // Gzip readers alone cannot show it (Varnish makes every one of them ask for plain `gzip`).
      // Readers that take no gzip meet the same copy too, unzipped: Varnish keeps the gzip answer and
      // never varies on Accept-Encoding while http_gzip_support is on (its default; cache_vary.c).
      for (const encoding of ["identity", "br"]) {
        const plain = await rawGet(`${varnish.url}/about`, { "accept-encoding": encoding });
        expect(plain.status, encoding).toBe(200);
        expect(plain.headers["x-cache"], encoding).toBe("hit");
        expect(plain.headers["content-encoding"], encoding).toBeUndefined();
        expect(plain.body.toString("utf8"), encoding).toBe(page);
      }
    });

    it("never keeps the contact API or the operational endpoints: every request reaches the site server", async () => {
      const backendRequests = () => varnish.counters().backend_req ?? 0;
      const before = backendRequests();
      for (let i = 0; i < 3; i++) {
        // A form the site server refuses (nothing queued, no rate limit spent): its answer is its own.
        const contact = await fetch(`${varnish.url}/api/contact`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "", email: "not an address", message: "" }),
        });
        expect(contact.status).toBe(400);
        expect(contact.headers.get("x-cache")).toBe("miss");
        for (const path of ["/_pressroom/healthz", "/_pressroom/readyz"]) {
          const ops = await edge(path);
          expect(ops.status, path).toBe(200);
          expect(ops.headers.get("x-cache"), path).toBe("miss");
          expect(ops.headers.get("cache-control"), path).toBe("no-store");
        }
      }
      // varnishd adds up its threads' counters now and then, not at once.
      await until("varnishstat to count 9 fetches", async () => backendRequests() >= before + 9, {
        timeoutMs: 5_000,
      });
      expect(backendRequests()).toBe(before + 9);
    });

    it("coalesces: twenty visitors asking at once for a page it lacks or that was purged cost one fetch", async () => {
      const path = "/price-list/websites";
      const origin = await startSlowOrigin(() => site.url);
      const front = await startVarnish({
        backend: { host: "127.0.0.1", port: origin.port },
        purgers: ["127.0.0.1"],
      });
      try {
        const expected = await (await fetch(`${site.url}${path}`)).text();
        for (const when of ["never fetched", "just purged"]) {
          if (when === "just purged") await purgeRoute(front, path);
          const seen = origin.seen.length;
          const counted = front.counters();
          origin.hold();
          const reads = Array.from({ length: 20 }, () => fetch(`${front.url}${path}`));
          // The origin answers once the other 19 wait on the fetch in flight (busy_sleep); without
          // coalescing they never do, and 2 s is ample for them all to reach the site server.
          const waiting = () => (front.counters().busy_sleep ?? 0) - (counted.busy_sleep ?? 0);
          await until("19 visitors waiting", async () => waiting() >= 19, { timeoutMs: 2_000 }).catch(
            () => undefined,
          );
          origin.release();
          const answers = await Promise.all(reads);
          const count = (state: string) => answers.filter((a) => a.headers.get("x-cache") === state).length;
          expect([count("miss"), count("hit")], when).toEqual([1, 19]);
          for (const answer of answers) expect(await answer.text(), when).toBe(expected);
          expect(origin.seen.slice(seen), when).toEqual([path]);
          await until(
            "varnishstat to count the fetch",
            async () => (front.counters().backend_req ?? 0) > (counted.backend_req ?? 0),
            { timeoutMs: 5_000 },
          );
          expect((front.counters().backend_req ?? 0) - (counted.backend_req ?? 0), when).toBe(1);
        }
      } finally {
        origin.release();
        await front.stop();
        await origin.close();
      }
    }, 60_000);

    it("a publish makes exactly the pages it changed fresh; the others stay hits and age", async () => {
      const before = await storedHashes();
      const ages = new Map<string, number>();
      for (const path of PRIMED) ages.set(path, Number((await edge(path)).headers.get("age")));
      await sleep(1_100); // Age counts whole seconds
      const metricBefore = await liveCount();
      const summary = await published([titled(ID.about, "About Northwind, edited at the edge")]);
      const changed = await changedSince(before);
      expect(changed).toContain("/about");

      const misses: string[] = [];
      for (const path of PRIMED) {
        const answer = await edge(path);
        const body = await answer.text();
        if (answer.headers.get("x-cache") === "miss") misses.push(path);
        else expect(Number(answer.headers.get("age")), path).toBeGreaterThan(ages.get(path) as number);
        if (path === "/about") expect(body).toContain("<title>About Northwind, edited at the edge");
      }
      expect(misses).toEqual(changed);
      // Live when the purge was acknowledged: after the page was written, and measured.
      expect(summary.edge.deferred).toBe(false);
      expect(summary.timings.ownDone).toBeGreaterThan(0);
      expect(summary.edge.liveAt).toBeGreaterThanOrEqual(summary.startedAt + (summary.timings.ownDone ?? 0));
      expect(summary.timings.purgeOwn).toBeGreaterThan(0);
      expect(await liveCount()).toBe(metricBefore + 1);
    });

    it("a rename answers 301 at the old URL through the edge, its query kept", async () => {
      for (const path of ["/faq", "/faq?utm_source=newsletter", "/faq-v2"]) {
        await edge(path);
        expect((await edge(path)).headers.get("x-cache"), path).toBe("hit");
      }
      expect((await edge("/faq-v2")).status).toBe(404);
      await published([{ ...demo(ID.faq), uid: "faq-v2" }]);

      const old = await edge("/faq");
      expect(old.status).toBe(301);
      expect(old.headers.get("location")).toBe("/faq-v2");
      const tagged = await edge("/faq?utm_source=newsletter");
      expect(tagged.status).toBe(301);
      expect(tagged.headers.get("location")).toBe("/faq-v2?utm_source=newsletter");
      const page = await edge("/faq-v2");
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("faq");
      expect((await edge("/faq")).headers.get("x-cache")).toBe("hit");
    });

    it("an editor's redirect: the edge forgets its path when it is added, changed and removed", async () => {
      // A path the edge holds as the page not found (and the demo's redirect it holds as a 301).
      expect((await edge("/winter-sale")).status).toBe(404);
      expect((await edge("/winter-sale")).headers.get("x-cache")).toBe("hit");
      expect((await edge("/team")).status).toBe(301);
      const pricing = demo(ID.pricing);
      const redirect: Doc = {
        ...demo(TEAM_REDIRECT),
        id: "EdgeRedirect000001",
        data: {
          from_path: "/winter-sale",
          to: { link_type: "Document", id: pricing.id, type: "page", uid: pricing.uid, lang: "en-us" },
          permanent: true,
        },
      };
      await published([redirect]);
      const added = await edge("/winter-sale");
      expect(added.status).toBe(301);
      expect(added.headers.get("location")).toBe("/pricing");
      expect((await edge("/winter-sale")).headers.get("x-cache")).toBe("hit");
      await published([{ ...redirect, data: { ...redirect.data, permanent: false } }]);
      expect((await edge("/winter-sale")).status).toBe(302);
      await published([], [redirect.id]);
      expect((await edge("/winter-sale")).status).toBe(404);
      // The demo's redirect, untouched by these publishes, is still the edge's copy.
      expect((await edge("/team")).headers.get("x-cache")).toBe("hit");
    });

    it("another case and a page's stored key answer 301 through the edge, kept and forgotten with their route", async () => {
      // Before the route exists the edge keeps the 404 of its other spellings…
      for (const path of ["/JOBS", "/jobs/index.html"]) {
        expect((await edge(path)).status, path).toBe(404);
        expect((await edge(path)).headers.get("x-cache"), path).toBe("hit");
      }
      const jobs: Doc = { ...demo(ID.privacy), id: "EdgePage0000000002", uid: "jobs" };
      await published([jobs]);
      // …which the publish of the route purges (one key for every spelling): 301 to it, kept in turn.
      for (const [path, location] of [
        ["/JOBS", "/jobs"],
        ["/Jobs?utm_source=x", "/jobs?utm_source=x"],
        ["/jobs/index.html", "/jobs"],
      ] as const) {
        const moved = await edge(path);
        expect(moved.status, path).toBe(301);
        expect(moved.headers.get("location"), path).toBe(location);
        const again = await edge(path);
        expect([again.status, again.headers.get("x-cache")], path).toEqual([301, "hit"]);
        expect(again.headers.get("location"), path).toBe(location);
      }
      expect((await edge("/jobs")).status).toBe(200);
      // Unpublished: the 301s go with the route, the page not found answers.
      await published([], [jobs.id]);
      for (const path of ["/JOBS", "/jobs/index.html", "/jobs"])
        expect((await edge(path)).status, path).toBe(404);
    });

    it("answers If-Modified-Since from its copy: 304 when not newer, and the 304 never replaces the page", async () => {
      const page = await edge("/services");
      const body = await page.text();
      const lastModified = page.headers.get("last-modified") as string;
      expect(lastModified).toBeTruthy();
      const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
      for (let i = 0; i < 2; i++) {
        const notModified = await fetch(`${varnish.url}/services`, {
          headers: { "if-modified-since": lastModified },
        });
        expect(notModified.status).toBe(304);
        expect(await notModified.text()).toBe("");
        const full = await edge("/services");
        expect([full.status, full.headers.get("x-cache")]).toEqual([200, "hit"]);
        expect(await full.text()).toBe(body);
        const changed = await fetch(`${varnish.url}/services`, { headers: { "if-modified-since": earlier } });
        expect(changed.status).toBe(200);
        expect(await changed.text()).toBe(body);
        // Again after a purge: the conditional request is then the miss that fetches the whole page.
        await purgeRoute(varnish, "/services");
      }
      // The site server answers the same where no edge stands in front of it.
      const origin = await fetch(`${site.url}/services`, { headers: { "if-modified-since": lastModified } });
      expect(origin.status).toBe(304);
    });

    it("a request with two Host lines or an invalid Host is a 400 through the edge, never a page", async () => {
      const ask = (hostLines: string[]) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(varnish.port, "127.0.0.1");
          let raw = "";
          socket.setTimeout(5_000, () => socket.destroy(new Error("no answer")));
          socket.on("connect", () =>
            socket.write(
              `GET /about HTTP/1.1\r\n${hostLines.map((l) => `${l}\r\n`).join("")}Connection: close\r\n\r\n`,
            ),
          );
          socket.on("data", (chunk: Buffer) => {
            raw += chunk.toString("latin1");
          });
          socket.on("error", reject);
          socket.on("close", () => resolve(raw));
        });
      // Varnish refuses two Host lines itself; an invalid one it passes on, and relays the site
      // server's 400 without keeping it (asked twice: never a hit).
      for (const hostLines of [
        ["Host: www.example.com", "Host: evil.example"],
        ["Host: a b"],
        ["Host: a b"],
      ]) {
        const raw = await ask(hostLines);
        expect(raw.split("\r\n")[0], `${hostLines.join(" | ")}\n${raw}`).toBe("HTTP/1.1 400 Bad Request");
        expect(raw.toLowerCase()).not.toContain("x-cache: hit");
      }
      expect((await ask(["Host: www.example.com"])).split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    });

    it("an unpublished page: the edge's copy goes with it, the page not found answers", async () => {
      const careers: Doc = { ...demo(ID.privacy), id: "EdgePage0000000001", uid: "careers" };
      await published([careers]);
      expect((await edge("/careers")).status).toBe(200);
      const kept = await edge("/careers");
      expect(kept.status).toBe(200);
      expect(kept.headers.get("x-cache")).toBe("hit");

      await published([], [careers.id]);
      const gone = await edge("/careers");
      expect(gone.status).toBe(404);
      expect(gone.headers.get("x-cache")).toBe("miss");
      expect(await gone.text()).toContain("This page could not be found");
      // The not-found answer is kept in turn, until a publish creates the route again.
      expect((await edge("/careers")).headers.get("x-cache")).toBe("hit");
    });

    it("refuses a PURGE from an address outside the ACL, and keeps the pages", async () => {
      await edge("/services"); // the rename rewrote every page (their navigation links to the FAQ)
      expect((await edge("/services")).headers.get("x-cache")).toBe("hit");
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const purge = request(
          `${varnish.url}/`,
          { method: "PURGE", localAddress: "127.0.0.2", headers: { "xkey-purge": "all" } },
          (response) => {
            let body = "";
            response.on("data", (chunk: Buffer) => {
              body += chunk.toString();
            });
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        purge.on("error", reject);
        purge.end();
      });
      expect(answer.status).toBe(403);
      expect((await edge("/services")).headers.get("x-cache")).toBe("hit");
    });

    it("with the site server down, serves the last page of a route a publish purged", async () => {
      const last = await (await edge("/services")).text();
      await site.close();
      await published([titled(ID.services, "Services, published while the site server is down")]);

      const stale = await edge("/services");
      expect(stale.status).toBe(200);
      expect(stale.headers.get("x-cache")).toBe("stale");
      expect(await stale.text()).toBe(last);
      // A page the edge never held: the edge's own page, not a hang or a Varnish error page.
      const never = await edge("/price-list/care-plans");
      expect(never.status).toBe(503);
      expect(never.headers.get("retry-after")).toBe("30");
      expect(await never.text()).toContain("This site is briefly unavailable");

      site = await startSite(siteConfig, logger);
      // Varnish holds a refused backend off for a quarter of a second (backend_remote_error_holddown).
      await until(
        "the edge to fetch the new page once the site server is back",
        async () =>
          (await (await edge("/services")).text()).includes(
            "<title>Services, published while the site server is down",
          ),
        { timeoutMs: 5_000 },
      );
    });

    it("with the site server answering 5xx (storage failing), serves the last page of a purged route", async () => {
      const path = "/price-list/websites";
      const file = join(folder.path, "price-list", "websites", "index.html");
      await edge(path);
      const held = await edge(path);
      expect(held.headers.get("x-cache")).toBe("hit");
      const last = await held.text();
      const bytes = await readFile(file);
      // A file the site server cannot read (a symlink loop: ELOOP), as site-error-pages.test.ts does.
      await rm(file);
      await symlink(file, file);
      try {
        expect((await fetch(`${site.url}${path}`)).status).toBe(500);
        await purgeRoute(varnish, path);
        const stale = await edge(path);
        expect(stale.status).toBe(200);
        expect(stale.headers.get("x-cache")).toBe("stale");
        expect(await stale.text()).toBe(last);
      } finally {
        // Back in one step (a rename over the symlink): serving the stale page started a background
        // fetch, which may reach the site server at any moment, and a missing file there is a 404
        // the edge would keep as the route's page.
        await writeFile(`${file}.back`, bytes);
        await rename(`${file}.back`, file);
      }
      // Storage back: the page is fetched again, not served stale any longer: by this request (a
      // miss), or already by the background fetch the stale answer started (a hit), whichever
      // reached the site server after the file was back.
      const fresh = await edge(path);
      expect(fresh.status).toBe(200);
      expect(["miss", "hit"]).toContain(fresh.headers.get("x-cache"));
      expect(await fresh.text()).toBe(last);
    });

    it("a purge that fails (Varnish frozen) is owed, then retried until every page it changed is fresh; the publish goes on", async () => {
      for (const path of PRIMED) await edge(path);
      const before = await storedHashes();
      varnish.pause();
      let summary: Awaited<ReturnType<typeof published>>;
      try {
        summary = await published([titled(ID.pricing, "Pricing, published while the edge was frozen")]);
        // Committed and finished without the edge: the index has the new ref, the purge is owed.
        expect(summary.edge.deferred).toBe(true);
        expect(await owed()).toBeGreaterThan(0);
        expect(await statusCommand(config)).toMatch(/edge: +\d+ routes? awaiting purge since \d{4}-/);
      } finally {
        varnish.resume();
      }
      await until("the owed purge to be acknowledged", async () => (await owed()) === 0, {
        timeoutMs: 60_000,
      });
      // The frozen edge kept every copy: exactly the pages the publish changed are fetched again.
      const changed = await changedSince(before);
      expect(changed).toContain("/pricing");
      const misses: string[] = [];
      for (const path of PRIMED) {
        const answer = await edge(path);
        const body = await answer.text();
        if (answer.headers.get("x-cache") === "miss") misses.push(path);
        if (path === "/pricing")
          expect(body).toContain("<title>Pricing, published while the edge was frozen");
      }
      expect(misses).toEqual(changed);
      expect(await statusCommand(config)).toMatch(/edge: +varnish:\/\/127\.0\.0\.1:\d+, no purge waiting/);
      expect(
        await metricValue('pressroom_edge_purges_total{outcome="failed",scope="routes"}'),
      ).toBeGreaterThan(0);
    }, 90_000);

    it("a purge owed while Varnish is stopped is sent once it runs again", async () => {
      // A restarted varnishd starts with an empty cache (malloc storage): every page it serves is
      // fetched anew, purge or not, so here only the owed count says the purge went out; the frozen
      // case above is the one that shows which copies it reached.
      const port = varnish.port;
      await varnish.stop();
      await published([titled(ID.privacy, "Privacy, published while the edge was stopped")]);
      expect(await owed()).toBeGreaterThan(0);
      varnish = await startVarnish({
        backend: { host: "127.0.0.1", port: siteConfig.port },
        purgers: ["127.0.0.1"],
        port,
      });
      await until("the owed purge to be acknowledged", async () => (await owed()) === 0, {
        timeoutMs: 90_000,
      });
      expect(await (await edge("/privacy")).text()).toContain(
        "<title>Privacy, published while the edge was stopped",
      );
    }, 120_000);

    it("reconcile sends the purges still owed (the purge job gone: given up, or lost with Redis)", async () => {
      await edge("/contact");
      expect((await edge("/contact")).headers.get("x-cache")).toBe("hit");
      await addPendingPurges(redis, PREFIX, ["/contact"], { at: Date.now(), edge: "test", error: "owed" });
      await worker.reconcileNow();
      expect(await owed()).toBe(0);
      expect((await edge("/contact")).headers.get("x-cache")).toBe("miss");
    });

    it("pressroom build purges what it rewrote; pressroom purge purges routes and everything", async () => {
      await edge("/privacy");
      expect((await edge("/privacy")).headers.get("x-cache")).toBe("hit");
      await rm(join(folder.path, "privacy", "index.html")); // storage lost it: the build writes it again
      const built = await runBuild({ ...config, rootDir: ROOT, logger });
      expect(built.edge).toMatch(/^Edge varnish:\/\/127\.0\.0\.1:\d+: purged 1 route \(/);
      expect((await edge("/privacy")).headers.get("x-cache")).toBe("miss");

      const env = {
        ...process.env,
        LOG_LEVEL: "silent",
        CDN_PURGE_URL: config.edge?.purgeUrl,
        QUEUE_PREFIX: PREFIX,
      };
      await edge("/about");
      const one = await execFileAsync(process.execPath, [`${ROOT}bin/pressroom.js`, "purge", "/about/"], {
        env,
      });
      expect(one.stdout).toMatch(/^Purged 1 route at varnish:\/\/127\.0\.0\.1:\d+: 1 objects \(1 request\)/);
      expect((await edge("/about")).headers.get("x-cache")).toBe("miss");
      // The built-in /home → / redirect is kept like any answer, so the site-wide purge must reach it.
      await edge("/home");
      const home = await edge("/home");
      expect(home.status).toBe(301);
      expect(home.headers.get("x-cache")).toBe("hit");
      expect(home.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
      // It goes where `/` goes (a redirect once the home page's uid is renamed): purging `/` reaches it.
      await execFileAsync(process.execPath, [`${ROOT}bin/pressroom.js`, "purge", "/"], { env });
      expect((await edge("/home")).headers.get("x-cache")).toBe("miss");
      expect((await edge("/home")).headers.get("x-cache")).toBe("hit");
      await addPendingPurges(redis, PREFIX, ["/faq-v2"], { at: Date.now(), edge: "test", error: "owed" });
      const all = await execFileAsync(process.execPath, [`${ROOT}bin/pressroom.js`, "purge", "--all"], {
        env,
      });
      expect(all.stdout).toMatch(/^Purged everything at varnish:.*\n {2}1 owed purge no longer waiting/);
      expect(await owed()).toBe(0);
      expect((await edge("/services")).headers.get("x-cache")).toBe("miss");
      expect((await edge("/home")).headers.get("x-cache")).toBe("miss");
    }, 60_000);
  },
);

async function metricValue(series: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.split(" ")[1]) : 0;
}

const liveCount = () => metricValue("pressroom_publish_to_live_seconds_count");

if (!hasVarnish)
  describe("the edge: a real varnishd (skipped: /usr/sbin/varnishd or the xkey vmod is missing; apt-get install varnish varnish-modules)", () => {
    it.skip("needs varnishd", () => {});
  });
