/**
 * Two render threads' code against each other, batch by batch, in one process: what a change to
 * the render path (render-batch.ts, the site's components, React) costs per page, without the
 * drift between minutes that a comparison of whole builds suffers (docs/benchmarks.md, "Render
 * threads, A against B"). Each render thread is loaded from a bundle of its own
 * (render-thread-bundle.ts names each bundle by its content hash and keeps it in
 * node_modules/.cache/pressroom/, so a bundle made at one commit is still there at another):
 *
 *   npm run bench:render-ab -- bundle          prints this checkout's bundle (make one per commit)
 *   npm run bench:render-ab -- <A.mjs> <B.mjs> renders every page of the generated repository with
 *                                              each, alternately, ROUNDS times (default 2)
 *
 * Both threads get every search answer of 100 pages in turn (who goes first alternates), each while
 * the other is idle; a thread's figure is the time the main thread waited for its answer and the
 * CPU the process spent meanwhile (the thread itself, and V8's helper threads working for it). Then
 * the floor, bare renderToString of the same pages (`full-build-child.ts floor`), in its own process.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { filter } from "@prismicio/client";
import { pino } from "pino";
import { BUILD_HEAP_GROWING_PERCENT, limitHeapGrowth } from "#heap-growth";
import { buildSiteAssets } from "#web/assets.ts";
import { forEachPageAnswer, readSharedDocuments } from "#worker/build/list-documents.ts";
import type { SharedContent } from "#worker/build/render-batch.ts";
import { renderCode } from "#worker/build/render-code.ts";
import { type RenderPool, startRenderPool } from "#worker/build/render-pool.ts";
import { renderThreadBundle } from "#worker/build/render-thread-bundle.ts";
import { localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { BUILD_CHILD_NODE_ARGS, childResult, median, startPressroom, stopAll } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SITE_URL = "https://www.example.com";
const args = process.argv.slice(2);

if (args[0] === "bundle") {
  console.log((await renderThreadBundle()).pathname);
  process.exit(0);
}
const bundles = args.slice(0, 2);
if (bundles.length !== 2) throw new Error("usage: render-ab.ts bundle | render-ab.ts <A.mjs> <B.mjs>");

// As a build runs (bin/pressroom.js), so that both threads see the heaps a build's threads see.
limitHeapGrowth(BUILD_HEAP_GROWING_PERCENT);
const repo = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`, "repo");
ensureGeneratedRepository(repo, PAGES, 20);
const content = await startPressroom(
  ["content"],
  {
    PORT: "0",
    // Kept between runs (the seed is copied in once): deleting 10,000 files slows the next
    // minutes' file creation on ext4 without a journal (docs/storage.md, "The file driver").
    CONTENT_DATA_DIR: join(repo, "..", "render-ab-content"),
    CONTENT_SEED_DIR: repo,
  },
  /listening on (http:\/\/[\d.:]+)/,
);
try {
  const endpoint = `${content.match}/api/v2`;
  const logger = pino({ level: "warn" });
  const client = localContentClient(endpoint, { timeoutMs: 30_000, rateLimitRetries: 3 }, { logger });
  const ref = await client.fetchMasterRef();
  const [{ assets }, documents] = await Promise.all([buildSiteAssets(), readSharedDocuments(client, ref)]);
  const answers: ArrayBuffer[] = [];
  await forEachPageAnswer(client, ref, [filter.at("document.type", "page")], 2, async (answer) => {
    answers.push(answer);
  });

  const threads = await Promise.all(
    bundles.map(async (file, index) => {
      const url = pathToFileURL(file);
      const shared: SharedContent = {
        siteUrl: SITE_URL,
        assets,
        documents,
        inputs: { code: await renderCode({ bundle: url, assets, siteUrl: SITE_URL }) },
      };
      // One render thread each, with a build's heap, loaded from this bundle.
      const pool = await startRenderPool(logger, 1, undefined, async () => url).begin(shared);
      return { name: index === 0 ? "A" : "B", file, pool, rounds: [] as { wall: number; cpu: number }[] };
    }),
  );
  /** One answer rendered by one thread (a copy: a transferred buffer is gone), answering its pages. */
  const render = async (pool: RenderPool, answer: ArrayBuffer) =>
    (await pool.renderOwn([answer.slice(0)])).rendered.length;

  // Both threads load and compile their code before anything is measured.
  for (const thread of threads) for (const answer of answers.slice(0, 3)) await render(thread.pool, answer);
  let pages = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const totals = threads.map(() => ({ wall: 0, cpu: 0, pages: 0 }));
    for (const [index, answer] of answers.entries()) {
      const order = (index + round) % 2 === 0 ? [0, 1] : [1, 0];
      for (const which of order) {
        const thread = threads[which] as (typeof threads)[number];
        const total = totals[which] as (typeof totals)[number];
        const cpu = process.cpuUsage();
        const started = performance.now();
        total.pages += await render(thread.pool, answer);
        total.wall += performance.now() - started;
        const used = process.cpuUsage(cpu);
        total.cpu += (used.user + used.system) / 1000;
      }
    }
    pages = totals[0]?.pages ?? 0;
    // Both must render the same pages for their figures a page to compare (a route that fails in one
    // is answered as failed, not rendered).
    if (totals[1]?.pages !== pages)
      console.error(`note: A rendered ${pages} pages in round ${round + 1}, B ${totals[1]?.pages}`);
    for (const [which, thread] of threads.entries()) {
      const total = totals[which] as (typeof totals)[number];
      thread.rounds.push({ wall: (total.wall / total.pages) * 1000, cpu: (total.cpu / total.pages) * 1000 });
    }
  }
  await Promise.all(threads.map((thread) => thread.pool.close()));

  const floor = childResult<{ pages: number; ms: number; cpuSeconds: number }>(
    execFileSync(
      process.execPath,
      [...BUILD_CHILD_NODE_ARGS, join(ROOT, "tests/bench/full-build-child.ts"), "floor", endpoint],
      { encoding: "utf8", env: { ...process.env, LOG_LEVEL: "warn", NODE_ENV: "production" } },
    ),
  );
  const floorWall = (floor.ms / floor.pages) * 1000;
  const floorCpu = ((floor.cpuSeconds * 1000) / floor.pages) * 1000;
  const µs = (value: number) => `${Math.round(value)} µs`;
  console.log(`\nRender threads A and B, ${pages} pages a round, ${ROUNDS} rounds, Node ${process.version}`);
  console.log(
    "| thread | bundle | wall a page, each round | CPU a page, each round | wall median · × floor | CPU median · × floor |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const thread of threads) {
    const wall = median(thread.rounds.map((r) => r.wall));
    const cpu = median(thread.rounds.map((r) => r.cpu));
    console.log(
      `| ${thread.name} | ${thread.file.split("/").pop()} | ${thread.rounds.map((r) => µs(r.wall)).join(" / ")} | ${thread.rounds.map((r) => µs(r.cpu)).join(" / ")} | ${µs(wall)} · ${(wall / floorWall).toFixed(2)}× | ${µs(cpu)} · ${(cpu / floorCpu).toFixed(2)}× |`,
    );
  }
  console.log(
    `| floor | bare renderToString, one thread, its own process | | | ${µs(floorWall)} | ${µs(floorCpu)} |`,
  );
  const [a, b] = threads.map((thread) => ({
    wall: median(thread.rounds.map((r) => r.wall)),
    cpu: median(thread.rounds.map((r) => r.cpu)),
  }));
  if (a && b)
    console.log(`\nB against A: wall ${(b.wall / a.wall).toFixed(3)}×, CPU ${(b.cpu / a.cpu).toFixed(3)}×`);
  console.log("command: npm run bench:render-ab -- <A.mjs> <B.mjs>");
} finally {
  await stopAll();
}
