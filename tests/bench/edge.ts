/**
 * The edge, measured: the real processes (local content service, webhook receiver,
 * worker, site server, each its own OS process) on a generated repository (default 1,000 pages),
 * a real varnishd running infra/varnish/default.vcl in front of the site server, the worker purging
 * it (CDN_PURGE_URL). Loopback only, every run bounded.
 *
 * 1. Read load, the same generator (wrk: 2 threads, 32 connections, 10 s, every page in turn,
 *    Accept-Encoding gzip, br) against the site server alone, then through the edge (cold: each
 *    page's first read is a miss): requests/s, p50/p99, and the requests the site server saw (its
 *    own storage reads, from its metrics; Varnish's backend requests besides). Floor: the same
 *    generator against the edge on one cached page (what this machine can do at all).
 * 2. Webhook → fresh page, EDITS single-page edits one at a time: from the publish request to the
 *    first answer with the new title at the origin, and through the edge, polled side by side.
 *    Floor: one purge round trip (PURGE of an unused key), and the worker's own purge time.
 * 3. Meanwhile a checker polls every edited page and a sample of unaffected pages through the
 *    edge: after a publish's purges are acknowledged (its `settledAt`; the edited page from its
 *    `liveAt`) every answer must be the stored page (stale answers: must be 0), and the unaffected
 *    pages must stay hits with a growing Age.
 *
 *   npm run bench:edge                 (PAGES=300 EDITS=40 DURATION=5 npm run bench:edge for a quick run)
 *
 * Needs varnishd with varnish-modules and wrk (apt-get install varnish varnish-modules wrk).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Redis } from "ioredis";
import { createSiteStore, sha256 } from "#storage";
import { freePort } from "../support/free-port.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { storedManifest } from "../support/manifest.ts";
import { removeKeysOfEndedRuns, removeKeysUnder } from "../support/redis-keys.ts";
import { hasVarnish, startVarnish, type Varnish } from "../support/varnish.ts";
import { startPressroom, stopAll } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 1_000);
const EDITS = Number(process.env.EDITS ?? 40);
const DURATION = Number(process.env.DURATION ?? 10);
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-edge-${PAGES}`);
const repo = join(work, "repo");
const siteDir = join(work, "site");
const prefix = `bench-edge-${process.pid}`;
const secret = "bench-edge-webhook-secret";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (!hasVarnish || !existsSync("/usr/bin/wrk")) {
  console.error(
    "bench:edge needs varnishd with the xkey vmod and wrk: apt-get install varnish varnish-modules wrk",
  );
  process.exit(1);
}

ensureGeneratedRepository(repo, PAGES, 20);
rmSync(join(work, "content"), { recursive: true, force: true });
rmSync(siteDir, { recursive: true, force: true });
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
// What runs that failed or were killed before their cleanup left (redis-keys.ts).
await removeKeysOfEndedRuns(redis, prefix);
let varnish: Varnish | undefined;

try {
  const common = {
    QUEUE_PREFIX: prefix,
    REDIS_URL: redisUrl,
    STORAGE_URL: `file://${siteDir}`,
    SITE_URL: "https://www.example.com",
  };
  const listening = /listening on (http:\/\/[\d.:]+)/;
  const webhookUrl = (
    await startPressroom(
      ["serve", "webhook"],
      { ...common, WEBHOOK_SECRET: secret, PORT: "0", OPS_PORT: "off" },
      listening,
    )
  ).match;
  const contentUrl = (
    await startPressroom(
      ["content"],
      {
        PORT: "0",
        CONTENT_DATA_DIR: join(work, "content"),
        CONTENT_SEED_DIR: repo,
        CONTENT_WEBHOOK_URL: `${webhookUrl}/webhooks/prismic`,
        WEBHOOK_SECRET: secret,
      },
      listening,
    )
  ).match;
  const siteOps = await freePort();
  const siteUrl = (
    await startPressroom(["serve", "site"], { ...common, PORT: "0", OPS_PORT: String(siteOps) }, listening)
  ).match;
  varnish = await startVarnish({
    backend: { host: "127.0.0.1", port: Number(new URL(siteUrl).port) },
    purgers: ["127.0.0.1"],
  });
  await startPressroom(
    ["serve", "worker"],
    {
      ...common,
      PRISMIC_ENDPOINT: `${contentUrl}/api/v2`,
      CDN_PURGE_URL: `varnish://127.0.0.1:${varnish.port}`,
      OPS_PORT: "off",
      RENDER_THREADS: "1",
    },
    /(worker started)/,
  );
  const masterRef = async () =>
    ((await (await fetch(`${contentUrl}/api/v2`)).json()) as { refs: { ref: string }[] }).refs[0]?.ref;
  const ref = await masterRef();
  const buildStarted = performance.now();
  while ((await redis.hget(`${prefix}:index:meta`, "ref")) !== ref) await sleep(200);
  console.log(`first build of ${PAGES} pages: ${((performance.now() - buildStarted) / 1000).toFixed(1)} s`);

  const built = createSiteStore({ url: `file://${siteDir}`, s3Endpoint: undefined, s3Region: "us-east-1" });
  const manifest = await storedManifest(built);
  await built.close();
  if (!manifest) throw new Error("the first build left no manifest");
  const pages = Object.keys(manifest.routes).filter(
    (route) => route.startsWith("/") && !route.endsWith(".xml") && !route.endsWith(".txt"),
  );
  const edge = varnish;

  // ---- 1. Read load -------------------------------------------------------------------------------
  const script = join(work, "paths.lua");
  writeFileSync(
    script,
    `local paths = {${pages.map((p) => JSON.stringify(p)).join(",")}}
local i = 0
wrk.headers["Accept-Encoding"] = "gzip, br"
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end
`,
  );
  const siteGets = async () => {
    const text = await (await fetch(`http://127.0.0.1:${siteOps}/_pressroom/metrics`)).text();
    return Number(/pressroom_storage_operations_total\{operation="get"\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  const load = async (url: string, withScript: boolean) => {
    const gets = await siteGets();
    const backend = edge.counters().backend_req ?? 0;
    const args = ["-t2", "-c32", `-d${DURATION}s`, "--latency", ...(withScript ? ["-s", script] : []), url];
    const out = execFileSync("wrk", args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
    const ms = (label: string) => {
      const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
      if (!m) return Number.NaN;
      const v = Number(m[1]);
      return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
    };
    const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
    const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? "0";
    return {
      command: `wrk ${args.join(" ")}`,
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
      p50: ms("50%"),
      p99: ms("99%"),
      requests,
      errors: Number(errors),
      originRequests: (await siteGets()) - gets,
      varnishBackend: (edge.counters().backend_req ?? 0) - backend,
    };
  };
  // Both start warm: the site server compresses each page once (brotli, then kept), which would
  // otherwise make its first seconds, not its steady state, the figure.
  for (const path of pages) await fetch(`${siteUrl}${path}`, { headers: { "accept-encoding": "gzip, br" } });
  const origin = await load(siteUrl, true);
  const hitsBefore = edge.counters();
  const through = await load(edge.url, true);
  const hitsAfter = edge.counters();
  const hits = (hitsAfter.cache_hit ?? 0) - (hitsBefore.cache_hit ?? 0);
  const misses = (hitsAfter.cache_miss ?? 0) - (hitsBefore.cache_miss ?? 0);
  const floor = await load(`${edge.url}${pages[0]}`, false);
  const row = (name: string, r: typeof origin) =>
    `| ${name} | ${Math.round(r.rps)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.requests} | ${r.originRequests} | ${r.errors} |`;
  console.log(`\nRead load, ${pages.length} pages in turn (${origin.command.replace(siteUrl, "<site>")}):`);
  console.log("| target | req/s | p50 ms | p99 ms | requests | seen by the site server | non-2xx/3xx |");
  console.log("|---|---|---|---|---|---|---|");
  console.log(row("site server alone", origin));
  console.log(row("through the edge (cold)", through));
  console.log(row("floor: edge, one cached page", floor));
  console.log(
    `edge: ${((100 * hits) / Math.max(1, hits + misses)).toFixed(2)} % answered from cache (${hits} hits, ${misses} misses, ${through.varnishBackend} backend requests); ` +
      `${(100 * (1 - through.originRequests / Math.max(1, through.requests))).toFixed(2)} % never reached the site server; ` +
      `throughput ${(through.rps / origin.rps).toFixed(1)}× the site server's (goals: ≥ 99 %, ≥ 5×)`,
  );

  // ---- 2 and 3. Webhook → fresh, and the stale checker -----------------------------------------
  const docs = new Map<string, Record<string, unknown>>();
  for (const file of execFileSync("ls", [join(repo, "documents")], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)) {
    const doc = JSON.parse(readFileSync(join(repo, "documents", file), "utf8")) as {
      type: string;
      uid: string;
    };
    if (doc.type === "page") docs.set(`/${doc.uid}`, doc);
  }
  const edited = pages.filter((p) => docs.has(p)).slice(0, EDITS);
  const unaffected = pages.filter((p) => docs.has(p) && !edited.includes(p)).slice(0, 5);
  type Seen = { path: string; started: number; hash: string; cache: string | null; age: number };
  const seen: Seen[] = [];
  let checking = true;
  let failedReads = 0;
  const checked = [...unaffected, "/sitemap.xml"];
  let current: string | undefined;
  const checker = (async () => {
    while (checking) {
      const paths = current ? [current, ...checked] : checked;
      await Promise.all(
        paths.map(async (path) => {
          const started = Date.now();
          try {
            const answer = await fetch(`${edge.url}${path}`, { headers: { "accept-encoding": "gzip" } });
            const hash = sha256(await answer.text());
            seen.push({
              path,
              started,
              hash,
              cache: answer.headers.get("x-cache"),
              age: Number(answer.headers.get("age")),
            });
          } catch {
            failedReads++; // a keep-alive connection closed under the client: no answer to judge
          }
        }),
      );
      await sleep(5);
    }
  })();
  const latencies = { origin: [] as number[], edge: [] as number[], worker: [] as number[] };
  const windows: {
    path: string;
    liveAt: number;
    settledAt: number;
    until: number;
    expected: Map<string, string>;
  }[] = [];
  for (const [i, path] of edited.entries()) {
    const doc = docs.get(path) as { data: Record<string, unknown> };
    const title = `Edge bench edit ${i} ${Date.now()}`;
    current = path;
    const poll = async (base: string) => {
      for (;;) {
        const body = await fetch(`${base}${path}`)
          .then((answer) => answer.text())
          .catch(() => "");
        if (body.includes(title)) return performance.now();
      }
    };
    const t0 = performance.now();
    const posted = fetch(`${contentUrl}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [{ ...doc, data: { ...doc.data, meta_title: title } }] }),
    });
    const [atOrigin, atEdge] = await Promise.all([poll(siteUrl), poll(edge.url), posted]);
    latencies.origin.push(atOrigin - t0);
    latencies.edge.push(atEdge - t0);
    const target = await masterRef();
    let summary: {
      ref?: string;
      edge?: { liveAt?: number; settledAt?: number };
      timings?: Record<string, number>;
    } = {};
    let settledAt: number | undefined;
    while (summary.ref !== target || settledAt === undefined) {
      summary = JSON.parse((await redis.get(`${prefix}:last-publish`)) ?? "{}");
      settledAt = summary.edge?.settledAt;
      await sleep(10);
    }
    if (summary.timings?.purgeOwn !== undefined) latencies.worker.push(summary.timings.purgeOwn);
    const expected = new Map(
      [path, ...checked].map((p) => [
        p,
        sha256(readFileSync(join(siteDir, manifest.routes[p]?.key ?? `${p.slice(1)}/index.html`))),
      ]),
    );
    windows.push({ path, liveAt: summary.edge?.liveAt ?? settledAt, settledAt, until: Date.now(), expected });
    await sleep(50);
  }
  checking = false;
  await checker;

  // A stale answer: asked after its route's purge was acknowledged (and before the next edit), not the stored page.
  let stale = 0;
  let judged = 0;
  for (const w of windows) {
    for (const answer of seen) {
      const from = answer.path === w.path ? w.liveAt : w.settledAt;
      if (answer.started <= from || answer.started > w.until || !w.expected.has(answer.path)) continue;
      judged++;
      if (answer.hash !== w.expected.get(answer.path)) stale++;
    }
  }
  const unaffectedSeen = seen.filter((answer) => unaffected.includes(answer.path));
  // Every page was cached by the read load: an unaffected page is a hit all along.
  const unaffectedMisses = unaffectedSeen.filter((answer) => answer.cache !== "hit").length;
  const purgeRtt: number[] = [];
  for (let i = 0; i < 40; i++) {
    const started = performance.now();
    await fetch(edge.url, { method: "PURGE", headers: { "xkey-purge": `/unused-${i}` } });
    purgeRtt.push(performance.now() - started);
  }
  const pct = (values: number[], p: number) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  };
  const line = (name: string, values: number[]) =>
    `| ${name} | ${values.length} | ${pct(values, 50).toFixed(1)} | ${pct(values, 95).toFixed(1)} |`;
  const diffs = latencies.edge.map((e, i) => e - (latencies.origin[i] as number));
  console.log(`\nWebhook → fresh page, ${edited.length} single-page edits (ms from the publish request):`);
  console.log("| measure | n | p50 | p95 |");
  console.log("|---|---|---|---|");
  console.log(line("fresh at the origin (site server)", latencies.origin));
  console.log(line("fresh through the edge", latencies.edge));
  console.log(line("edge − origin, per edit", diffs));
  console.log(line("floor: one purge round trip (PURGE)", purgeRtt));
  console.log(line("the worker's purge of the page (purgeOwn)", latencies.worker));
  console.log(
    `\nChecker: ${seen.length} answers through the edge (${failedReads} reads failed without an answer); ${judged} asked after their route's purge was acknowledged, ${stale} stale (goal: 0); ` +
      `${unaffectedSeen.length} answers of ${unaffected.length} unaffected pages, ${unaffectedMisses} not hits (goal: 0); ` +
      `their Age ${Math.min(...unaffectedSeen.slice(0, unaffected.length).map((a) => a.age))} s → ${Math.min(...unaffectedSeen.slice(-unaffected.length).map((a) => a.age))} s`,
  );
  console.log(
    "\nMeasured while other work ran on this machine (2 cores shared): ratios within one run are what these figures say; re-measure absolute values on a quiet machine.",
  );
} finally {
  await stopAll();
  await varnish?.stop();
  await removeKeysUnder(redis, prefix);
  await redis.quit();
}
