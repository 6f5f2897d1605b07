/**
 * Fan-out against the full build, in one run: on the generated repository (default
 * 10,000 pages, 20 price lists), served by the local content service in its own process,
 *  1. the full build (its own process, `cores − 1` render threads) into an empty folder, then again
 *     over its own output (nothing to write);
 *  2. the worker's diff build at start (a full build inside a worker process), in a process then
 *     replaced by a fresh one;
 *  3. ROUNDS rounds (default 3) with 1 worker process, then as many with 2: a settings change (the
 *     footer's copyright holder: every route's bytes change) published through the real webhook
 *     receiver and worker(s) writing into a folder, timed from the publish request until the index
 *     commits the new ref; then the full build at that ref over its own folder (every page written
 *     again, as the fan-out writes every page). Each change is compared with its round's build: the
 *     machine's speed drifts between minutes, and the median of the rounds' ratios is the figure;
 *  4. peak RSS: each worker's during each fan-out (VmHWM, reset before the change where the kernel
 *     lets us: /proc/<pid>/clear_refs), the publishing worker's first (the last publish's `by`);
 *     each build's own;
 *  5. CPU seconds of every process involved (/proc), against what the cores could give meanwhile;
 *  6. what visitors and the edge see during each settings change: READERS (default 4) loops of GETs
 *     of random routes at a site server over the workers' folder, READ_RATE (default 100) a second
 *     together, each page whole and showing the old copyright holder or the new one, never a mix, a
 *     cut page or an error; and the purges the workers send to a stand-in for Varnish
 *     (CDN_PURGE_URL): one, of the site-wide key. The same read load runs during each round's full
 *     build: it costs the same cores the same CPU (the readers and the site server are counted), so
 *     the build stays the change's floor. READ_RATE=0 reads as fast as the loops can, which takes
 *     whatever share of the cores the scheduler gives them: a stress, not a floor.
 * Redis comes from REDIS_URL, like every process; the queue prefix is this run's own. Workers and
 * builds run with MALLOC_ARENA_MAX=2, as infra/Dockerfile sets it, unless the environment sets it.
 *
 *   npm run bench:fan-out              (PAGES=2000 ROUNDS=1 npm run bench:fan-out for a quick run)
 *
 * Workers run with the NODE_OPTIONS docker-compose.yml gives them (their young generation), unless
 * WORKER_NODE_OPTIONS sets others (e.g. V8's heap flags, to compare peak RSS; empty: V8's
 * defaults). BUILDS=0 runs no full build: the changes alone, for a worker's memory (no ratio).
 */
import { execFile } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { SITE_WIDE_KEY } from "#edge/surrogate-keys.ts";
import { localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { removeKeysOfEndedRuns, removeKeysUnder } from "../support/redis-keys.ts";
import { untilWorkerSettled } from "../support/worker-settled.ts";
import {
  BUILD_CHILD_NODE_ARGS,
  type BuildResult,
  childResult,
  cpuSeconds,
  median,
  peakRssMB,
  type StartedProcess,
  startPressroom,
  stopAll,
  stopProcess,
  workerNodeOptions,
} from "./processes.ts";
import { type ReadLoadResult, siteRoutes, startPurgeSink, startReadLoad } from "./settings-change-checks.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`);
const repo = join(work, "repo");
const siteDir = join(work, "fan-out-site");
const buildDir = join(work, "fan-out-build");
const prefix = `bench-fan-out-${process.pid}`;
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const { options: WORKER_NODE_OPTIONS, command: WORKER_NODE_OPTIONS_SET } = workerNodeOptions();
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const READERS = Number(process.env.READERS ?? 4);
const READ_RATE = Number(process.env.READ_RATE ?? 100);
/** BUILDS=0: no full build (the changes alone, for profiling a worker; no ratio). */
const BUILDS = process.env.BUILDS !== "0";
/** As infra/Dockerfile sets it for every process (docs/operations.md); the environment's value wins. */
const MALLOC = { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2" };
const COMMAND = `${PAGES === 10_000 ? "" : `PAGES=${PAGES} `}${ROUNDS === 3 ? "" : `ROUNDS=${ROUNDS} `}${READERS === 4 ? "" : `READERS=${READERS} `}${READ_RATE === 100 ? "" : `READ_RATE=${READ_RATE} `}${BUILDS ? "" : "BUILDS=0 "}${process.env.MALLOC_ARENA_MAX === undefined ? "" : `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX} `}${WORKER_NODE_OPTIONS_SET}npm run bench:fan-out`;

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
// What runs that failed or were killed before their cleanup left (redis-keys.ts).
await removeKeysOfEndedRuns(redis, prefix);
const purges = await startPurgeSink();
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
  const site = await startPressroom(
    ["serve", "site"],
    { ...common, PORT: "0" },
    /site listening on (http:\/\/[\d.:]+)/,
  );
  const client = localContentClient(endpoint, { timeoutMs: 30_000, rateLimitRetries: 3 });
  const masterRef = async () =>
    ((await (await fetch(`${content.match}/admin/stats`)).json()) as { masterRef: string }).masterRef;
  /** Waits for the index to reach `ref`; fails at once if a worker process exits meanwhile. */
  const untilIndexAt = async (ref: string, watched: readonly StartedProcess[]) => {
    // 10 minutes, or 30 ms a page: a 100,000-page diff build on a loaded 2-core machine takes longer.
    const deadline = Date.now() + Math.max(600_000, PAGES * 30);
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

  const redisPid = await localRedisPid(redis);
  // The read load's processes too: the site server answers the readers, which run in this process
  // (its CPU is theirs, and this benchmark's polling of Redis).
  const services = {
    "content service": content.pid,
    webhook: webhook.pid,
    Redis: redisPid,
    "site server": site.pid,
    readers: process.pid,
  };
  const rows: Run[] = [];

  // 1. The full build in its own process (its peak RSS is its own), into its own folder; with
  // `reading`, under the read load a settings change meets (step 6), the site showing `reading`.
  const build = async (label: string, round: number, reading?: string): Promise<Run> => {
    if (!BUILDS)
      return { label, round, ms: Number.NaN, rendered: 0, written: 0, peakRssMB: [], cpu: {}, load: 0 };
    const used = cpuMeter(services);
    const readers =
      reading === undefined
        ? undefined
        : startReadLoad(site.match, readRoutes(), { old: reading, new: reading }, READERS, READ_RATE);
    let stdout: string;
    let reads: ReadLoadResult | undefined;
    try {
      ({ stdout } = await promisify(execFile)(
        process.execPath,
        [
          ...BUILD_CHILD_NODE_ARGS,
          join(ROOT, "tests/bench/full-build-child.ts"),
          "build",
          endpoint,
          buildDir,
        ],
        {
          encoding: "utf8",
          maxBuffer: 64 << 20,
          env: { ...process.env, ...MALLOC, LOG_LEVEL: "warn", NODE_ENV: "production" },
        },
      ));
    } finally {
      // Stopped whatever the build did: a failed build must not leave the loops running.
      reads = await readers?.stop();
    }
    const result = childResult<BuildResult>(stdout);
    const run: Run = {
      label,
      round,
      ms: result.summary.durationMs,
      rendered: result.summary.rendered,
      written: result.summary.written,
      peakRssMB: [result.maxRssMB],
      cpu: { build: result.cpuSeconds, ...used() },
      load: loadavg()[0] as number,
      ...(reads ? { reads } : {}),
    };
    rows.push(run);
    return run;
  };
  /** The routes the readers GET: the site folder's, once the workers have built it. */
  let routes: string[] | undefined;
  const readRoutes = () => {
    if (routes === undefined) routes = siteRoutes(siteDir);
    return routes;
  };
  await build("first build (empty folder)", 0);
  await build("rebuild (nothing changed)", 0);

  // 2. Worker processes: the first one builds the site and its index at start (a diff build: a full
  // build inside the worker). It is then replaced by a fresh process, so that the peak RSS of the
  // fan-out is the fan-out's own, not what V8 kept of the diff build's heap.
  const workerEnv = {
    ...common,
    ...MALLOC,
    PRISMIC_ENDPOINT: endpoint,
    CDN_PURGE_URL: `varnish://127.0.0.1:${purges.port}`,
    NODE_OPTIONS: WORKER_NODE_OPTIONS,
  };
  const startWorker = () => startPressroom(["serve", "worker"], workerEnv, /(worker started)/);
  const first = await startWorker();
  const diffBuildStarted = performance.now();
  await untilIndexAt(await masterRef(), [first]);
  const diffBuild = { ms: performance.now() - diffBuildStarted, peakRssMB: peakRssMB(first.pid) };
  await stopProcess(first.child);
  /** A started worker, once its start's reconcile rounds are over: a publish is then the fan-out alone. */
  const settledWorker = async () => {
    const worker = await startWorker();
    await untilWorkerSettled(redis, prefix, await masterRef());
    return worker;
  };
  const workers = [await settledWorker()];

  let changes = 0;
  /** The footer's copyright holder the `n`th settings change publishes. */
  const holderOf = (n: number) => `Northwind Studio, ${n}`;
  const settingsChange = async (label: string, round: number): Promise<Run> => {
    const peakReset = workers.every((worker) => resetPeakRss(worker.pid));
    const settings = (await client.getSingle("settings", {
      ref: await client.fetchMasterRef(),
    })) as unknown as {
      data: Record<string, unknown>;
    };
    const cpuUsed = cpuMeter({
      ...Object.fromEntries(workers.map((worker, i) => [`worker ${i + 1}`, worker.pid])),
      ...services,
    });
    const holder = holderOf(++changes);
    const readers = startReadLoad(
      site.match,
      readRoutes(),
      { old: String(settings.data.copyright_holder), new: holder },
      READERS,
      READ_RATE,
    );
    const purgesBefore = purges.seen.length;
    const started = performance.now();
    const published = await fetch(`${content.match}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        upsert: [{ ...settings, data: { ...settings.data, copyright_holder: holder } }],
      }),
    });
    if (!published.ok) throw new Error(`publish answered ${published.status}: ${await published.text()}`);
    const ref = await masterRef();
    await untilIndexAt(ref, workers);
    const ms = performance.now() - started;
    const cpu = cpuUsed();
    // The publish's summary follows its commit by a round trip.
    let last: {
      ref?: string;
      rendered?: number;
      written?: number;
      batches?: number;
      timings?: Record<string, number>;
      by?: string;
    } = {};
    while (last.ref !== ref) {
      last = JSON.parse((await redis.get(`${prefix}:last-publish`)) ?? "{}");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const reads = await readers.stop();
    const purged = await purgesOf(purgesBefore);
    const publisher = Number(last.by?.split(":").pop());
    const run: Run = {
      label: `${label} (${last.batches ?? 0} child jobs)`,
      round,
      ms,
      rendered: last.rendered ?? 0,
      written: last.written ?? 0,
      // The worker that ran the publish first (`by`: host:pid), then the others.
      peakRssMB: [...workers]
        .sort((a, b) => Number(b.pid === publisher) - Number(a.pid === publisher))
        .map((worker) => peakRssMB(worker.pid)),
      ...(peakReset ? {} : { peakNote: "since start: the peak could not be reset" }),
      cpu,
      ...(last.timings ? { timings: last.timings } : {}),
      reads,
      purges: purged,
      load: loadavg()[0] as number,
    };
    rows.push(run);
    return run;
  };

  /** The purges sent since the `from`th: the publish purges after its commit, so wait for one (10 s at most), then a second for any other. */
  const purgesOf = async (from: number) => {
    const deadline = Date.now() + 10_000;
    while (purges.seen.length === from && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return purges.seen.slice(from).map((purge) => purge.keys);
  };

  // 3. Rounds, each a settings change and then a full build at its ref over the previous round's
  // output, so both meet the same machine load and both overwrite every page, with 1 worker, then 2.
  // Not into an emptied folder: on ext4 without a journal, re-creating freshly deleted folders
  // slows down (docs/storage.md, "The file driver").
  const pairs: { workers: number; build: Run; change: Run }[] = [];
  for (const count of [1, 2]) {
    while (workers.length < count) workers.push(await settledWorker());
    for (let round = 1; round <= ROUNDS; round++) {
      const change = await settingsChange(`settings change, ${count} worker${count > 1 ? "s" : ""}`, round);
      const fullBuild = await build("full build (every page changed)", round, holderOf(changes));
      pairs.push({ workers: count, build: fullBuild, change });
    }
  }

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const cores = availableParallelism();
  console.log(
    `\nFan-out against the full build, ${PAGES} pages, ${cores} cores, Node ${process.version}, ${ROUNDS} rounds, MALLOC_ARENA_MAX=${MALLOC.MALLOC_ARENA_MAX || "unset"}, workers with NODE_OPTIONS="${WORKER_NODE_OPTIONS}"`,
  );
  console.log(
    `the worker's diff build at start (a full build in the worker, into an empty folder; from its ready line): ${s(diffBuild.ms)}, peak RSS ${diffBuild.peakRssMB ?? "?"} MB`,
  );
  console.log(
    "| round | run | routes rendered / written | time | vs the round's full build | peak RSS | CPU s used (all processes) | load (1 min) |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const run of rows) {
    const pair = pairs.find((candidate) => candidate.change === run);
    // A change against its round's build; a round's build is 1.00×; the builds of round 0 stand alone.
    const versus = !BUILDS
      ? "–"
      : pair
        ? `${(run.ms / pair.build.ms).toFixed(2)}×`
        : run.round === 0
          ? ""
          : "1.00×";
    console.log(
      `| ${run.round || "–"} | ${run.label} | ${run.rendered} / ${run.written} | ${s(run.ms)} · ${Math.round((run.rendered / run.ms) * 1000)} routes/s | ${versus} | ${run.peakRssMB.map((mb) => `${mb ?? "?"} MB`).join(", ")}${run.peakNote ? ` (${run.peakNote})` : ""} | ${cpuTotal(run.cpu).toFixed(1)} of ${((cores * run.ms) / 1000).toFixed(1)} | ${run.load.toFixed(2)} |`,
    );
  }
  console.log("");
  for (const count of [1, 2]) {
    const mine = pairs.filter((pair) => pair.workers === count);
    const ratios = mine.map((pair) => pair.change.ms / pair.build.ms);
    if (!BUILDS) {
      console.log(
        `settings change, ${count} worker${count > 1 ? "s" : ""}: median ${s(median(mine.map((pair) => pair.change.ms)))} (BUILDS=0: no full build to compare with)`,
      );
      continue;
    }
    console.log(
      `settings change, ${count} worker${count > 1 ? "s" : ""}: median ${s(median(mine.map((pair) => pair.change.ms)))} against the full builds' ${s(median(mine.map((pair) => pair.build.ms)))}; each round's ratio ${ratios.map((ratio) => `${ratio.toFixed(2)}×`).join(", ")} (median ${median(ratios).toFixed(2)}×)`,
    );
  }
  const publishing = pairs
    .map((pair) => pair.change.peakRssMB[0])
    .filter((mb): mb is number => mb !== undefined);
  const rendering = pairs
    .flatMap((pair) => pair.change.peakRssMB.slice(1))
    .filter((mb): mb is number => mb !== undefined);
  const builds = pairs.map((pair) => pair.build.peakRssMB[0]).filter((mb): mb is number => mb !== undefined);
  console.log(
    `peak RSS: the publishing worker's first fan-out ${publishing[0] ?? "?"} MB, its later ones ${publishing.slice(1).join(", ")} MB (max ${Math.max(...publishing.slice(1))}); a worker rendering child jobs only ${rendering.join(", ")} MB; the full builds ${builds.length > 0 ? `${Math.min(...builds)}–${Math.max(...builds)} MB` : "none (BUILDS=0)"}`,
  );
  for (const run of pairs
    .filter((pair) => pair.build.round === 1)
    .flatMap((pair) => (BUILDS ? [pair.build, pair.change] : [pair.change])))
    console.log(
      `CPU s by process, round 1, ${run.label}: ${Object.entries(run.cpu)
        .map(([name, seconds]) => `${name} ${seconds === undefined ? "?" : seconds.toFixed(2)}`)
        .join(", ")}`,
    );
  for (const pair of pairs.filter((candidate) => candidate.build.round === 1))
    console.log(
      `where the settings change's time went, ${pair.workers} worker(s), round 1 (ms): ${Object.entries(
        pair.change.timings ?? {},
      )
        .map(([step, ms]) => `${step} ${Math.round(ms)}`)
        .join(", ")}`,
    );
  const readsFailed = ({ reads }: Run) => reads !== undefined && (reads.errors > 0 || reads.torn > 0);
  const readLoad = ({ reads }: Run) => {
    if (!reads) return "no read load";
    return `${reads.reads} reads by ${READERS} connections (${Math.round((reads.reads / reads.ms) * 1000)}/s${READ_RATE > 0 ? ` of ${READ_RATE}/s asked` : ", as fast as they could"}), ${reads.errors} errors, ${reads.torn} torn, ${reads.fresh} already fresh${reads.samples.length ? ` (${reads.samples.join("; ")})` : ""}`;
  };
  for (const { workers: count, change, build: floor } of pairs) {
    const { purges: sent = [] } = change;
    const siteWideOnce = sent.length === 1 && sent[0]?.length === 1 && sent[0][0] === SITE_WIDE_KEY;
    if (!siteWideOnce || readsFailed(change) || readsFailed(floor)) process.exitCode = 1;
    console.log(
      `during the settings change, ${count} worker(s), round ${change.round}: ${readLoad(change)}; edge: ${sent.length} purge request(s), keys ${sent.map((keys) => (keys.length > 3 ? `${keys.length} keys` : keys.join(" "))).join(" | ") || "none"} ${siteWideOnce ? "(the site-wide key, once)" : "(NOT the site-wide key once)"}`,
    );
    if (BUILDS) console.log(`during its full build: ${readLoad(floor)}`);
  }
  console.log(
    `load average at the end: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(", ")}`,
  );
  console.log(`command: ${COMMAND}`);
} finally {
  await stopAll();
  await purges.close();
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

/** One measured run: a full build, or a settings change published through the worker(s). */
interface Run {
  label: string;
  round: number;
  ms: number;
  rendered: number;
  written: number;
  /** The build process's, or each worker's (the publishing one first). */
  peakRssMB: (number | undefined)[];
  peakNote?: string;
  cpu: Record<string, number | undefined>;
  /** The 1-minute load average as it ended (other work on the machine shows here). */
  load: number;
  timings?: Record<string, number>;
  /** What the read load saw (a settings change's, and its round's full build's). */
  reads?: ReadLoadResult;
  purges?: string[][];
}

/** CPU seconds of every process that /proc could tell of. */
function cpuTotal(cpu: Record<string, number | undefined>): number {
  return Object.values(cpu).reduce<number>((sum, seconds) => sum + (seconds ?? 0), 0);
}

/**
 * Starts counting the CPU seconds (user + system, every thread) each named process uses, from /proc;
 * the function returned tells them so far (undefined for a process /proc cannot tell of).
 */
function cpuMeter(processes: Record<string, number | undefined>): () => Record<string, number | undefined> {
  const before = Object.entries(processes).map(([name, pid]) => [name, pid, cpuSeconds(pid)] as const);
  return () =>
    Object.fromEntries(
      before.map(([name, pid, then]) => {
        const now = cpuSeconds(pid);
        return [name, now === undefined || then === undefined ? undefined : now - then];
      }),
    );
}

/** The pid of the Redis server when it runs on this machine (INFO's process_id names a redis-server). */
async function localRedisPid(redis: Redis): Promise<number | undefined> {
  const match = /process_id:(\d+)/.exec(await redis.info("server"));
  if (!match) return undefined;
  try {
    return readFileSync(`/proc/${match[1]}/comm`, "utf8").startsWith("redis-server")
      ? Number(match[1])
      : undefined;
  } catch {
    return undefined;
  }
}
