/**
 * Publish latency: on the generated repository (default 10,000 pages), the real processes — local
 * content service, webhook receiver, worker — each in its own process, writing into a folder.
 * 200 single-page edits, one at a time: from the publish request (the content service delivers the
 * webhook before it answers) to the page's object holding the new bytes. In the same run, the floor:
 * fetch + render + write of the same route directly, in one process. Then a settings change (every
 * route), timed until the index reaches the new master ref. Between the two, routes rendered per
 * content-only edit for three kinds of document: a page nothing links to, a page the
 * navigation links to (every route links to it), a price list embedded in several pages; each
 * edited twice, the first edit moving its sitemap lastmod day, the second within the same day.
 * Redis comes from REDIS_URL, like every process. Workers run with the NODE_OPTIONS docker-compose.yml
 * gives them, unless WORKER_NODE_OPTIONS sets others (processes.ts).
 *
 *   npm run bench:publish-latency        (PAGES=2000 EDITS=50 npm run bench:publish-latency for a quick run)
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { pino } from "pino";
import { generatedPageUid } from "#local-prismic/generate.ts";
import { createSiteStore, sha256 } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { renderRouteWithClient } from "#web/render.ts";
import { keyForRoute } from "#web/routes.ts";
import { localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { metadataFiles, metadataWritten } from "../support/metadata-writes.ts";
import { removeKeysOfEndedRuns, removeKeysUnder } from "../support/redis-keys.ts";
import { startPressroom, stopAll, workerNodeOptions } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const EDITS = Number(process.env.EDITS ?? 200);
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`);
const repo = join(work, "repo");
const siteDir = join(work, "publish-site");
const prefix = `bench-publish-${process.pid}`;
const secret = "bench-publish-latency-secret";
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

ensureGeneratedRepository(repo, PAGES, 20);
rmSync(join(work, "publish-content"), { recursive: true, force: true });
rmSync(siteDir, { recursive: true, force: true });
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
// What runs that failed or were killed before their cleanup left (redis-keys.ts).
await removeKeysOfEndedRuns(redis, prefix);

/** Starts a pressroom process; resolves with what its ready line captured (processes.ts). */
const start = async (args: string[], env: Record<string, string>, ready: RegExp) =>
  (await startPressroom(args, env, ready)).match;

const common = {
  QUEUE_PREFIX: prefix,
  WEBHOOK_SECRET: secret,
  REDIS_URL: redisUrl,
  STORAGE_URL: `file://${siteDir}`,
  SITE_URL: "https://www.example.com",
};
const webhookUrl = await start(
  ["serve", "webhook"],
  { ...common, PORT: "0" },
  /listening on (http:\/\/[\d.:]+)/,
);
const contentUrl = await start(
  ["content"],
  {
    ...common,
    PORT: "0",
    CONTENT_DATA_DIR: join(work, "publish-content"),
    CONTENT_SEED_DIR: repo,
    CONTENT_WEBHOOK_URL: `${webhookUrl}/webhooks/prismic`,
  },
  /local content service listening on (http:\/\/[\d.:]+)/,
);
const endpoint = `${contentUrl}/api/v2`;
const workers = Number(process.env.WORKERS ?? 1);
const { options: WORKER_NODE_OPTIONS, command: WORKER_NODE_OPTIONS_SET } = workerNodeOptions();
for (let i = 0; i < workers; i++)
  await start(
    ["serve", "worker"],
    { ...common, PRISMIC_ENDPOINT: endpoint, NODE_OPTIONS: WORKER_NODE_OPTIONS },
    /(worker started)/,
  );

const masterRef = async () =>
  ((await (await fetch(`${contentUrl}/admin/stats`)).json()) as { masterRef: string }).masterRef;
const stats = async () =>
  (
    (await (await fetch(`${contentUrl}/admin/stats`)).json()) as {
      requests: { repository: number; search: number };
    }
  ).requests;
async function untilIndexAt(ref: string, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await redis.hget(`${prefix}:index:meta`, "ref")) !== ref) {
    if (Date.now() > deadline) throw new Error(`index never reached ${ref}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
/** The last publish's summary once it describes `ref` (the worker writes it after committing). */
async function untilPublished(ref: string, timeoutMs = 600_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = JSON.parse((await redis.get(`${prefix}:last-publish`)) ?? "{}") as {
      ref?: string;
      rendered?: number;
      written?: number;
      listed?: number;
      mode?: string;
      startedAt?: number;
      timings?: Record<string, number>;
    };
    if (last.ref === ref) return last;
    if (Date.now() > deadline) throw new Error(`no publish reached ${ref}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
let t = performance.now();
await untilIndexAt(await masterRef());
console.log(`initial diff build by the worker: ${((performance.now() - t) / 1000).toFixed(1)} s`);

/** What the dependency index holds in Redis (MEMORY USAGE of every `<prefix>:index:*` key), for sizing. */
async function indexBytes(): Promise<{ bytes: number; keys: number; routes: number }> {
  let bytes = 0;
  let keys = 0;
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}:index:*`, "COUNT", 1000);
    cursor = next;
    for (const key of found) {
      bytes += Number((await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
      keys++;
    }
  } while (cursor !== "0");
  return { bytes, keys, routes: await redis.hlen(`${prefix}:index:routes`) };
}
const sized = await indexBytes();
const metadataBefore = metadataFiles(siteDir);
const manifestBytes = [...metadataBefore]
  .filter(([path]) => path === "manifest.json" || path.startsWith("manifest/"))
  .reduce((sum, [, file]) => sum + file.size, 0);
console.log(
  `dependency index in Redis: ${(sized.bytes / 1e6).toFixed(1)} MB in ${sized.keys} keys for ${sized.routes} routes, ${Math.round(sized.bytes / sized.routes)} bytes a route (MEMORY USAGE … SAMPLES 0); the manifest (root and route shards): ${(manifestBytes / 1e6).toFixed(2)} MB`,
);

const client = localContentClient(endpoint, { timeoutMs: 30_000, rateLimitRetries: 3 });
/**
 * Up to 100 generated pages from ordinal `from` on (fewer, from 1, on a site too small): a generated
 * page's content does not depend on the site's size (generate.ts), so runs at two sizes edit the same
 * pages.
 */
async function pagesFrom(from: number) {
  const first = from + 99 < PAGES ? from : 1;
  const uids = Array.from({ length: Math.min(100, PAGES - first) }, (_, i) =>
    generatedPageUid(first + i, PAGES),
  );
  return (await client.getByUIDs("page", uids, { ref: await client.fetchMasterRef(), pageSize: 100 }))
    .results;
}
// Pages 101–200: the settings' navigation links to the first pages, which the edits below by kind
// want at their first edit of the day (on a site of 300 pages or more).
const docs = await pagesFrom(101);
const targets = Array.from({ length: EDITS }, (_, i) => docs[(i * 7) % docs.length] as (typeof docs)[number]);

const latencies: number[] = [];
const accepted: number[] = [];
const rendered: number[] = [];
/** Stubs the sitemap's renders read from the index, per edit (the publish summary's `listed`). */
const listed: number[] = [];
const requests: number[] = [];
/** Bytes each edit's publish wrote under `.pressroom/` (manifest, its shards, redirect history). */
const metadataBytes: number[] = [];
// Where the time of each edit went (ms): before the worker (content service, webhook, queue), in the
// publish (the worker's own timings), after (until this process saw the new bytes).
const steps = new Map<string, number[]>(
  [
    "publish request → job added (content service, webhook, receiver)",
    "job added → taken by the worker (BullMQ)",
    "taken → publish starts (lock)",
    ...["take", "masterRef", "indexRead", "fetch", "plan", "ownRender", "ownWrite"].map(
      (n) => `publish: ${n}`,
    ),
    "publish: start → own page written",
    "page written → seen by the benchmark (polling)",
    "after the page: rest (linking pages, listings)",
    "after the page: commit (manifest, index)",
  ].map((name) => [name, []]),
);
/** Each edit's time window (epoch ms), to tell the edits that a periodic reconcile overlapped. */
const windows: [number, number][] = [];
const step = (name: string, ms: number | undefined) => {
  if (ms !== undefined && !Number.isNaN(ms)) steps.get(name)?.push(ms);
};
const queue = new Queue("pressroom", { connection: redis, prefix });
for (const [i, doc] of targets.entries()) {
  const marker = `Latency edit ${i} of ${doc.uid}`;
  const file = join(siteDir, keyForRoute(`/${doc.uid}`));
  const before = await stats();
  const metadata = metadataFiles(siteDir);
  const sentAt = Date.now();
  t = performance.now();
  const answer = await fetch(`${contentUrl}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert: [{ ...doc, data: { ...doc.data, meta_description: marker } }] }),
  });
  if (answer.status !== 200) throw new Error(await answer.text());
  while (!(existsSync(file) && readFileSync(file, "utf8").includes(marker)))
    await new Promise((resolve) => setTimeout(resolve, 2));
  const latency = performance.now() - t;
  latencies.push(latency);
  const ref = await masterRef();
  const published = await untilPublished(ref);
  const job = await queue.getJob(`publish-${ref}`);
  const seenAt = sentAt + latency;
  if (job?.timestamp && job.processedOn && published.startedAt && published.timings) {
    const timings = published.timings;
    const ownWrittenAt = published.startedAt + (timings.ownDone ?? 0);
    // "Webhook accepted": the receiver added the job (it answers 200 right after).
    accepted.push(seenAt - job.timestamp);
    step("publish request → job added (content service, webhook, receiver)", job.timestamp - sentAt);
    step("job added → taken by the worker (BullMQ)", job.processedOn - job.timestamp);
    step("taken → publish starts (lock)", published.startedAt - job.processedOn);
    for (const name of ["take", "masterRef", "indexRead", "fetch", "plan", "ownRender", "ownWrite"])
      step(`publish: ${name}`, timings[name]);
    step("publish: start → own page written", timings.ownDone);
    step("page written → seen by the benchmark (polling)", seenAt - ownWrittenAt);
    step("after the page: rest (linking pages, listings)", timings.rest);
    step("after the page: commit (manifest, index)", timings.commit);
  }
  const after = await stats();
  // The content service's own answer to /admin/publish is not an API request; the worker's are.
  requests.push(after.search + after.repository - before.search - before.repository);
  windows.push([sentAt, Date.now()]);
  rendered.push(published.rendered ?? 0);
  listed.push(published.listed ?? 0);
  metadataBytes.push(metadataWritten(metadata, metadataFiles(siteDir)));
}

// The floor: the same routes fetched, rendered and written directly, in this process.
const store = createSiteStore({
  url: `file://${join(work, "floor-site")}`,
  s3Endpoint: undefined,
  s3Region: "us-east-1",
});
const { assets } = await buildSiteAssets();
const floor: number[] = [];
const ref = await client.fetchMasterRef();
for (const doc of targets) {
  t = performance.now();
  const result = await renderRouteWithClient(`/${doc.uid}`, {
    client,
    ref,
    siteUrl: "https://www.example.com",
    assets,
    mode: "production",
    logger: pino({ level: "silent" }),
  });
  await store.put(keyForRoute(`/${doc.uid}`), result.html, {
    contentType: result.contentType,
    cacheControl: "no-cache",
    contentHash: sha256(result.html),
  });
  floor.push(performance.now() - t);
}

// Routes rendered per content-only edit, by what links to or shows the edited document.
const kinds = await edgeCases();
const perKind: {
  name: string;
  id: string;
  edits: { rendered: number; written: number; ms: number; own: number }[];
}[] = [];
for (const [name, id] of kinds) {
  const edits = [];
  for (const n of [1, 2]) {
    const current = await client.getByID(id, { ref: await client.fetchMasterRef() });
    const started = performance.now();
    const answer = await fetch(`${contentUrl}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [contentEdit(current, `Edit ${n} for routes rendered per edit`)] }),
    });
    if (answer.status !== 200) throw new Error(await answer.text());
    const published = await untilPublished(await masterRef());
    edits.push({
      rendered: published.rendered ?? 0,
      written: published.written ?? 0,
      ms: performance.now() - started,
      own: published.timings?.ownDone ?? Number.NaN,
    });
  }
  perKind.push({ name, id, edits });
}

// A settings change re-renders every route.
const settings = (await client.getSingle("settings", { ref: await client.fetchMasterRef() })) as unknown as {
  data: Record<string, unknown>;
};
t = performance.now();
await fetch(`${contentUrl}/admin/publish`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    upsert: [{ ...settings, data: { ...settings.data, copyright_holder: "Northwind Studio, benchmarked" } }],
  }),
});
const lastPublish = await untilPublished(await masterRef());
const settingsMs = performance.now() - t;

const pct = (list: number[], p: number) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] ?? 0;
const row = (name: string, list: number[]) =>
  `| ${name} | ${pct(list, 50).toFixed(1)} ms | ${pct(list, 95).toFixed(1)} ms | ${pct(list, 99).toFixed(1)} ms |`;
console.log(
  `\nPublish latency, ${PAGES} pages, ${targets.length} single-page edits, ${workers} worker process(es) with NODE_OPTIONS="${WORKER_NODE_OPTIONS}", Node ${process.version}`,
);
console.log("| measure | p50 | p95 | p99 |\n|---|---|---|---|");
console.log(row("publish request → page written (worker)", latencies));
console.log(row("webhook accepted (job added) → page written (worker)", accepted));
console.log(row("floor: fetch + render + write, one process", floor));
console.log(
  `\nworker p50 is ${(pct(latencies, 50) / pct(floor, 50)).toFixed(2)}x the floor's p50 (target ≤ 3x; p50 < 100 ms, p99 < 300 ms)`,
);
console.log(
  `webhook accepted → page written p50 is ${(pct(accepted, 50) / pct(floor, 50)).toFixed(2)}x the floor's p50`,
);
console.log("\nWhere an edit's time goes (p50 of each step, ms; steps overlap where noted):");
console.log("| step | p50 | p95 |\n|---|---|---|");
for (const [name, list] of steps)
  if (list.length > 0)
    console.log(
      `| ${name}${name.includes("indexRead") ? " (during masterRef)" : ""} | ${pct(list, 50).toFixed(1)} | ${pct(list, 95).toFixed(1)} |`,
    );
// The worker's periodic reconcile (every 5 minutes) may run a diff build during an edit: its
// requests are counted with that edit's. Such edits are named, and left out of the request count.
const rebuilds = (await queue.getJobs(["completed"], 0, 1000)).filter(
  (job) => job.name === "reconcile" && (job.returnvalue as { action?: string })?.action === "diff-build",
);
const overlapped = new Set(
  windows.flatMap(([from, to], i) =>
    rebuilds.some((job) => (job.processedOn ?? 0) <= to && (job.finishedOn ?? 0) >= from) ? [i] : [],
  ),
);
const counted = requests.filter((_, i) => !overlapped.has(i));
console.log(
  `\nroutes rendered per single-page edit: min ${Math.min(...rendered)}, max ${Math.max(...rendered)}; content API requests per edit: min ${Math.min(...counted)}, max ${Math.max(...counted)}` +
    (overlapped.size > 0
      ? ` (${overlapped.size} edit(s) left out: a reconcile diff build ran during them, ${[...overlapped].map((i) => requests[i]).join(", ")} requests with it)`
      : ""),
);
console.log(
  `documents' stubs the sitemap read from the index per single-page edit (each its page's first of the day): p50 ${pct(listed, 50)}, max ${Math.max(...listed)}`,
);
console.log(
  `bytes written under .pressroom/ per single-page edit: p50 ${pct(metadataBytes, 50)}, max ${Math.max(...metadataBytes)} (the manifest and its shards: ${manifestBytes} bytes in all)`,
);
console.log(
  "\nRoutes rendered per content-only edit (1st: the document's first publication of the day, its sitemap lastmod day moves; 2nd: same day):",
);
console.log(
  "| edited document | 1st: rendered / written | 2nd: rendered / written | publish start → own page written: 1st · 2nd | 2nd: request → index committed |",
);
console.log("|---|---|---|---|---|");
/** A fan-out's publish (child jobs) renders no page of its own first: it has no such time. */
const ownTime = (ms: number) => (Number.isNaN(ms) ? "— (fan-out)" : `${ms.toFixed(1)} ms`);
for (const { name, id, edits } of perKind) {
  const [first, second] = edits as [(typeof edits)[number], (typeof edits)[number]];
  console.log(
    `| ${name} (${id}) | ${first.rendered} / ${first.written} | ${second.rendered} / ${second.written} | ${ownTime(first.own)} · ${ownTime(second.own)} | ${second.ms.toFixed(0)} ms |`,
  );
}
console.log(
  `settings change (every route): ${(settingsMs / 1000).toFixed(1)} s, ${lastPublish.mode}, ${lastPublish.rendered} routes rendered, ${lastPublish.written} written`,
);
console.log(
  `command: ${PAGES === 10_000 ? "" : `PAGES=${PAGES} `}${EDITS === 200 ? "" : `EDITS=${EDITS} `}${WORKER_NODE_OPTIONS_SET}npm run bench:publish-latency`,
);

await queue.close();
await removeKeysUnder(redis, prefix);
await redis.quit();
await stopAll();

/**
 * The three kinds of edited document, found in the index the worker built: a page no route links
 * to or shows but its own; the first page the settings' header navigation links to; the price list
 * the most routes show (embedded in pages, besides its own route and the price-list index).
 */
async function edgeCases(): Promise<[string, string][]> {
  const key = (dep: string) => `${prefix}:index:dep:${dep}`;
  const ref = await client.fetchMasterRef();
  const settings = (await client.getSingle("settings", { ref })) as unknown as {
    data: { header_navigation: { link: { id?: string; type?: string } }[] };
  };
  const navigated = settings.data.header_navigation.find((item) => item.link.type === "page")?.link.id;
  let unlinked: string | undefined;
  // Among pages the latency edits did not touch: its first edit here is its first of the day.
  for (const doc of await pagesFrom(201)) {
    if (doc.uid === "home") continue;
    const [links, shows] = await Promise.all([
      redis.scard(key(`url:${doc.id}`)),
      redis.scard(key(`doc:${doc.id}`)),
    ]);
    if (links === 0 && shows <= 1) {
      unlinked = doc.id;
      break;
    }
  }
  const lists = (await client.get({ ref, pageSize: 100, filters: ['[at(document.type, "price_list")]'] }))
    .results;
  let embedded: [string, number] = ["", -1];
  for (const list of lists) {
    const shownBy = await redis.scard(key(`doc:${list.id}`));
    if (shownBy > embedded[1]) embedded = [list.id, shownBy];
  }
  if (!navigated || !unlinked || embedded[1] < 0)
    throw new Error(`edge cases not found: ${JSON.stringify({ navigated, unlinked, embedded })}`);
  return [
    ["a page nothing links to", unlinked],
    ["a page the navigation links to", navigated],
    [`a price list shown by ${embedded[1]} routes (embedded in pages, its own)`, embedded[0]],
  ];
}

/** A content-only edit: the meta description of a page, or a price list's description text. */
function contentEdit(doc: { type: string; data: Record<string, unknown> }, text: string) {
  if (doc.type === "price_list")
    return { ...doc, data: { ...doc.data, description: [{ type: "paragraph", text, spans: [] }] } };
  return { ...doc, data: { ...doc.data, meta_description: text } };
}
