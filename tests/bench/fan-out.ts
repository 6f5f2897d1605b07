/**
 * Fan-out against the full build, in one run (issue 12 §2): on the generated repository (default
 * 10,000 pages, 20 price lists), served by the local content service in its own process,
 *  1. the full build (its own process, `cores − 1` render threads) into an empty folder, then again
 *     over its own output (nothing to write): the figures a fan-out is held to;
 *  2. a settings change (the footer's copyright holder: every route's bytes change) published
 *     through the real webhook receiver and worker process(es) writing into a folder, timed from the
 *     publish request until the index commits the new ref; once with 1 worker process, once with 2;
 *  3. each worker's peak RSS during its fan-out (VmHWM, reset before the change where the kernel lets
 *     us: /proc/<pid>/clear_refs), beside the build's.
 * Redis comes from REDIS_URL, like every process; the queue prefix is this run's own.
 *
 *   npm run bench:fan-out              (PAGES=2000 npm run bench:fan-out for a quick run)
 *
 * WORKER_NODE_OPTIONS is given to the worker processes as their NODE_OPTIONS (e.g. V8's heap flags,
 * to compare their peak RSS with the same run's defaults).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";
import { type StartedProcess, startPressroom, stopAll, stopProcess } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`);
const repo = join(work, "repo");
const siteDir = join(work, "fan-out-site");
const buildDir = join(work, "fan-out-build");
const prefix = `bench-fan-out-${process.pid}`;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const WORKER_NODE_OPTIONS = process.env.WORKER_NODE_OPTIONS ?? "";
const COMMAND = `${PAGES === 10_000 ? "" : `PAGES=${PAGES} `}${WORKER_NODE_OPTIONS ? `WORKER_NODE_OPTIONS='${WORKER_NODE_OPTIONS}' ` : ""}npm run bench:fan-out`;

ensureGeneratedRepository(repo, PAGES, 20);
for (const dir of [join(work, "fan-out-content"), siteDir, buildDir])
  rmSync(dir, { recursive: true, force: true });

const common = {
  QUEUE_PREFIX: prefix,
  WEBHOOK_SECRET: "bench-fan-out-secret",
  REDIS_URL: redisUrl,
  STORAGE_URL: `file://${siteDir}`,
  SITE_URL: "https://www.example.com",
};
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
try {
  const webhook = await startPressroom(
    ["serve", "webhook"],
    { ...common, PORT: "0" },
    /listening on (http:\/\/[\d.:]+)/,
  );
  const content = await startPressroom(
    ["content"],
    {
      ...common,
      PORT: "0",
      CONTENT_DATA_DIR: join(work, "fan-out-content"),
      CONTENT_SEED_DIR: repo,
      CONTENT_WEBHOOK_URL: `${webhook.match}/webhooks/prismic`,
    },
    /local content service listening on (http:\/\/[\d.:]+)/,
  );
  const endpoint = `${content.match}/api/v2`;
  const client = localContentClient(endpoint, { timeoutMs: 30_000, rateLimitRetries: 3 });
  const masterRef = async () =>
    ((await (await fetch(`${content.match}/admin/stats`)).json()) as { masterRef: string }).masterRef;
  /** Waits for the index to reach `ref`; fails at once if a worker process exits meanwhile. */
  const untilIndexAt = async (ref: string, watched: readonly StartedProcess[]) => {
    const deadline = Date.now() + 600_000;
    while ((await redis.hget(`${prefix}:index:meta`, "ref")) !== ref) {
      const dead = watched.find(({ child }) => child.exitCode !== null || child.signalCode !== null);
      if (dead)
        throw new Error(
          `worker ${dead.pid} exited (${dead.child.exitCode ?? dead.child.signalCode}) before the index reached ${ref}`,
        );
      if (Date.now() > deadline) throw new Error(`index never reached ${ref}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  // 1. The full build, twice, in its own process (its peak RSS is its own).
  const build = () => {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", join(ROOT, "tests/bench/full-build-child.ts"), "build", endpoint, buildDir],
      { encoding: "utf8", env: { ...process.env, LOG_LEVEL: "warn", NODE_ENV: "production" } },
    );
    return JSON.parse(out.trim().split("\n").pop() ?? "{}") as {
      summary: { durationMs: number; rendered: number; written: number; pagesPerSecond: number };
      maxRssMB: number;
    };
  };
  const fullBuild = build();
  const rebuild = build();

  // 2. Worker processes: the first one builds the site and its index at start (a diff build: a full
  // build inside the worker). It is then replaced by a fresh process, so that the peak RSS of the
  // fan-out is the fan-out's own, not what V8 kept of the diff build's heap.
  const workerEnv = {
    ...common,
    PRISMIC_ENDPOINT: endpoint,
    ...(WORKER_NODE_OPTIONS ? { NODE_OPTIONS: WORKER_NODE_OPTIONS } : {}),
  };
  const startWorker = () => startPressroom(["serve", "worker"], workerEnv, /(worker started)/);
  const first = await startWorker();
  const diffBuildStarted = performance.now();
  await untilIndexAt(await masterRef(), [first]);
  const diffBuild = { ms: performance.now() - diffBuildStarted, peakRssMB: peakRssMB(first.pid) };
  await stopProcess(first.child);
  const workers = [await startWorker()];

  const settingsChange = async (label: string) => {
    const peakReset = workers.every((worker) => resetPeakRss(worker.pid));
    const settings = (await client.getSingle("settings", {
      ref: await client.fetchMasterRef(),
    })) as unknown as {
      data: Record<string, unknown>;
    };
    const started = performance.now();
    const published = await fetch(`${content.match}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: `Northwind Studio, ${label}` } }],
      }),
    });
    if (!published.ok) throw new Error(`publish answered ${published.status}: ${await published.text()}`);
    const ref = await masterRef();
    await untilIndexAt(ref, workers);
    const ms = performance.now() - started;
    // The publish's summary follows its commit by a round trip.
    let last: {
      ref?: string;
      rendered?: number;
      written?: number;
      batches?: number;
      timings?: Record<string, number>;
    } = {};
    while (last.ref !== ref) {
      last = JSON.parse((await redis.get(`${prefix}:last-publish`)) ?? "{}");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { ms, ...last, peakRssMB: workers.map((worker) => peakRssMB(worker.pid)), peakReset };
  };
  const one = await settingsChange("one worker");
  workers.push(await startWorker());
  const two = await settingsChange("two workers");

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const vsBuild = (ms: number) => `${(ms / fullBuild.summary.durationMs).toFixed(2)}×`;
  console.log(
    `\nFan-out against the full build, ${PAGES} pages, ${availableParallelism()} cores, Node ${process.version}`,
  );
  console.log("| run | routes rendered / written | time | vs full build | peak RSS |");
  console.log("|---|---|---|---|---|");
  console.log(
    `| full build (empty folder) | ${fullBuild.summary.rendered} / ${fullBuild.summary.written} | ${s(fullBuild.summary.durationMs)} · ${fullBuild.summary.pagesPerSecond} pages/s | 1.00× | ${fullBuild.maxRssMB} MB |`,
  );
  console.log(
    `| rebuild (nothing changed) | ${rebuild.summary.rendered} / ${rebuild.summary.written} | ${s(rebuild.summary.durationMs)} · ${rebuild.summary.pagesPerSecond} pages/s | ${vsBuild(rebuild.summary.durationMs)} | ${rebuild.maxRssMB} MB |`,
  );
  console.log(
    `| the worker's diff build at start (a full build in the worker, into an empty folder; from its ready line) | ${PAGES} pages | ${s(diffBuild.ms)} | ${vsBuild(diffBuild.ms)} | ${diffBuild.peakRssMB ?? "?"} MB |`,
  );
  for (const [name, run] of [
    ["settings change, 1 worker", one],
    ["settings change, 2 workers", two],
  ] as const) {
    console.log(
      `| ${name} (${run.batches ?? 0} child jobs) | ${run.rendered} / ${run.written} | ${s(run.ms)} · ${Math.round(((run.rendered ?? 0) / run.ms) * 1000)} routes/s | ${vsBuild(run.ms)} | ${run.peakRssMB.map((mb) => `${mb ?? "?"} MB`).join(", ")}${run.peakReset ? "" : " (since start: the peak could not be reset)"} |`,
    );
  }
  for (const [name, run] of [
    ["1 worker", one],
    ["2 workers", two],
  ] as const)
    console.log(
      `where the settings change's time went, ${name} (ms): ${Object.entries(run.timings ?? {})
        .map(([step, ms]) => `${step} ${Math.round(ms)}`)
        .join(", ")}`,
    );
  console.log(`command: ${COMMAND}`);
} finally {
  await stopAll();
  await removeKeysUnder(redis, prefix).catch(() => undefined);
  await redis.quit();
}

/** Resets the kernel's peak RSS of `pid` (Linux: `5` to clear_refs); false where not allowed. */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}

/** The peak RSS (VmHWM) of `pid` in MB, read from /proc. */
function peakRssMB(pid: number): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Math.round(Number(match[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}
