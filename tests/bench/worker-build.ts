/**
 * The worker's own builds against `pressroom build`, in one run: on the generated repository
 * (default 10,000 pages, 20 price lists), served by the local content service in its own process,
 *  1. floor: the full build as `pressroom build` runs it (full-build-child.ts, its own process) into
 *     an empty folder: what a build of this site costs without an index to feed;
 *  2. the worker's diff build at start: a worker process on an empty queue prefix and an empty
 *     folder (no index), until the index holds the master ref;
 *  3. a deploy that changes every page: a fresh worker process with another SITE_URL (the site's
 *     version differs, every page renders again and is written), over the index and folder step 2
 *     left, until the index records the new version;
 *  4. an index marked as `pressroom build` leaves it (its site's version removed): a fresh worker
 *     process finds the code unchanged, keeps every page as stored and takes each page's
 *     dependencies from the index it replaces, until the index records the version again.
 * For each: wall time, CPU seconds (every thread of the process) and peak RSS (VmHWM of a process
 * that did nothing else). The target: no worker build peaks above 300 MB at 100,000 pages.
 * Workers and builds run with MALLOC_ARENA_MAX=2, as infra/Dockerfile sets it, and workers with the
 * NODE_OPTIONS docker-compose.yml gives them (their young generation), unless WORKER_NODE_OPTIONS
 * sets them (processes.ts). Redis comes from REDIS_URL; the queue prefix is this run's own.
 *
 *   npm run bench:worker-build            (PAGES=100000 npm run bench:worker-build: ~12 minutes)
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { removeKeysOfEndedRuns, removeKeysUnder } from "../support/redis-keys.ts";
import {
  BUILD_CHILD_NODE_ARGS,
  type BuildResult,
  childResult,
  cpuSeconds,
  peakRssMB,
  startPressroom,
  stopAll,
  stopProcess,
  workerNodeOptions,
} from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`);
const repo = join(work, "repo");
const contentDir = join(work, "worker-build-content");
const siteDir = join(work, "worker-build-site");
const floorDir = join(work, "worker-build-floor");
const prefix = `bench-worker-build-${process.pid}`;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MALLOC = { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2" };
const { options: WORKER_NODE_OPTIONS, command: WORKER_NODE_OPTIONS_SET } = workerNodeOptions();
const COMMAND = `${PAGES === 10_000 ? "" : `PAGES=${PAGES} `}${process.env.MALLOC_ARENA_MAX === undefined ? "" : `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX} `}${WORKER_NODE_OPTIONS_SET}npm run bench:worker-build`;
const SITE_URL = "https://www.example.com";

ensureGeneratedRepository(repo, PAGES, 20);
for (const dir of [contentDir, siteDir, floorDir]) rmSync(dir, { recursive: true, force: true });

interface Row {
  label: string;
  wallS: number;
  cpuS: number;
  peakRssMB: number;
  detail: string;
}

const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
// What runs that failed or were killed before their cleanup left (redis-keys.ts).
await removeKeysOfEndedRuns(redis, prefix);
const rows: Row[] = [];
try {
  const content = await startPressroom(
    ["content"],
    { PORT: "0", CONTENT_DATA_DIR: contentDir, CONTENT_SEED_DIR: repo },
    /local content service listening on (http:\/\/[\d.:]+)/,
  );
  const endpoint = `${content.match}/api/v2`;
  const masterRef = ((await (await fetch(`${content.match}/admin/stats`)).json()) as { masterRef: string })
    .masterRef;

  // 1. The floor: `pressroom build` of the same site, in its own process.
  const started = performance.now();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...BUILD_CHILD_NODE_ARGS, join(ROOT, "tests/bench/full-build-child.ts"), "build", endpoint, floorDir],
    {
      encoding: "utf8",
      maxBuffer: 64 << 20,
      env: { ...process.env, ...MALLOC, LOG_LEVEL: "warn", NODE_ENV: "production" },
    },
  );
  const floor = childResult<BuildResult>(stdout);
  console.log(`floor: ${floor.summary.rendered} rendered, peak RSS ${floor.maxRssMB} MB`);
  rows.push({
    label: "floor: pressroom build, empty folder",
    wallS: (performance.now() - started) / 1000,
    cpuS: floor.cpuSeconds,
    peakRssMB: floor.maxRssMB,
    detail: `${floor.summary.rendered} rendered, ${floor.summary.written} written`,
  });
  rmSync(floorDir, { recursive: true, force: true });

  const meta = `${prefix}:index:meta`;
  /** A fresh worker process until `done` holds of the index; its wall, CPU and peak RSS. */
  const workerBuild = async (label: string, env: Record<string, string>, done: () => Promise<boolean>) => {
    const worker = await startPressroom(
      ["serve", "worker"],
      {
        ...MALLOC,
        NODE_OPTIONS: WORKER_NODE_OPTIONS,
        QUEUE_PREFIX: prefix,
        REDIS_URL: redisUrl,
        STORAGE_URL: `file://${siteDir}`,
        SITE_URL,
        PRISMIC_ENDPOINT: endpoint,
        OPS_PORT: "off",
        ...env,
      },
      /(worker started)/,
    );
    const begun = performance.now();
    // What the build did, from the log line of its summary.
    let detail = "";
    let partial = "";
    worker.child.stdout?.on("data", (chunk: Buffer) => {
      const lines = (partial + String(chunk)).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const counts = /"rendered":(\d+),"reused":(\d+),"written":(\d+)/.exec(line);
        if (counts) detail = `${counts[1]} rendered, ${counts[2]} kept, ${counts[3]} written`;
      }
    });
    const deadline = Date.now() + Math.max(600_000, PAGES * 30);
    while (!(await done())) {
      if (worker.child.exitCode !== null || worker.child.signalCode !== null)
        throw new Error(`worker ${worker.pid} exited before ${label} ended`);
      if (Date.now() > deadline) throw new Error(`${label}: the index never got there`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const wallS = (performance.now() - begun) / 1000;
    const row = {
      label,
      wallS,
      cpuS: cpuSeconds(worker.pid) ?? Number.NaN,
      peakRssMB: peakRssMB(worker.pid) ?? Number.NaN,
      detail,
    };
    rows.push(row);
    console.log(`${label}: ${wallS.toFixed(1)} s, peak RSS ${row.peakRssMB} MB (${detail})`);
    await stopProcess(worker.child);
  };

  // 2. At start: no index, an empty folder.
  await workerBuild("the worker's diff build at start, empty folder", {}, async () => {
    return (await redis.hget(meta, "ref")) === masterRef;
  });
  // 3. A deploy that changes every page (another site URL: another site version).
  const version = await redis.hget(meta, "site");
  await workerBuild(
    "a deploy changing every page (index known)",
    { SITE_URL: `${SITE_URL}/v2` },
    async () => {
      const now = await redis.hget(meta, "site");
      return now !== null && now !== version;
    },
  );
  // 4. The index marked as `pressroom build` marks it: the same code, every page kept.
  await redis.hdel(meta, "site");
  await workerBuild(
    "index marked by pressroom build (every page kept)",
    { SITE_URL: `${SITE_URL}/v2` },
    async () => {
      return (await redis.hget(meta, "site")) !== null;
    },
  );

  const floorRss = rows[0]?.peakRssMB ?? Number.NaN;
  console.log(
    `\n${COMMAND}: ${PAGES} pages, Node ${process.version}, workers with NODE_OPTIONS="${WORKER_NODE_OPTIONS}", ${new Date().toISOString()}`,
  );
  console.log("| build | wall s | CPU s | peak RSS MB | peak RSS / floor's |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const row of rows)
    console.log(
      `| ${row.label}${row.detail ? ` (${row.detail})` : ""} | ${row.wallS.toFixed(1)} | ${row.cpuS.toFixed(1)} | ${row.peakRssMB} | ${(row.peakRssMB / floorRss).toFixed(2)}× |`,
    );
} finally {
  await stopAll();
  await removeKeysUnder(redis, prefix);
  redis.disconnect();
  for (const dir of [contentDir, siteDir, floorDir]) rmSync(dir, { recursive: true, force: true });
}
