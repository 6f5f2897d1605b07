/**
 * One measured run, in its own process so that its peak RSS is its own:
 *   build <endpoint> <storageDir>   a full build through the product's path
 *   floor <endpoint>                bare renderToString of the same page trees, content already in memory
 *   list <endpoint>                 every document's id and version, without its content: the floor of a
 *                                   rebuild with nothing changed (what finding that out costs)
 * Prints one JSON line.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { PrismicDocument } from "@prismicio/client";
import { pino } from "pino";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { createMemorySource } from "#content/source.ts";
import { BUILD_HEAP_GROWING_PERCENT, limitHeapGrowth } from "#heap-growth";
import { createSiteStore } from "#storage";
import { buildSiteAssets } from "#web/assets.ts";
import { type PageDocument, type SettingsDocument, typedSource } from "#web/content/index.ts";
import { PageView } from "#web/pages/page-view.tsx";
import { loadSliceContext } from "#web/slice-loader.ts";
import { website } from "#website";
import { fullBuild } from "#worker/build/full-build.ts";
import { forEachVersionPage, listDocuments } from "#worker/build/list-documents.ts";
import { defaultRenderThreads } from "#worker/build/render-pool.ts";
import { localContentClient } from "../support/content-client.ts";

// As bin/pressroom.js does for `pressroom build`, and for the floor too: both run with the same heaps
// (and the same young generation: processes.ts BUILD_CHILD_NODE_ARGS).
limitHeapGrowth(BUILD_HEAP_GROWING_PERCENT);
const [mode, endpoint, storageDir] = process.argv.slice(2);
if (!endpoint) throw new Error("usage: full-build-child.ts build|floor|list <endpoint> [storageDir]");
const logger = pino({ level: "warn" });
const client = localContentClient(endpoint, { timeoutMs: 30_000, rateLimitRetries: 3 }, { logger });
const maxRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);
/** CPU seconds (user + system, every thread, those ended too) this process has used. */
const cpuSeconds = () => {
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  return (userCPUTime + systemCPUTime) / 1e6;
};
/**
 * CPU seconds of the main thread alone (Linux: /proc/self/task/<pid>/stat, utime + stime in clock
 * ticks of 1/100 s). The render threads have ended by the time it is read; their time is the
 * process's total less this (with V8's and libuv's helper threads).
 */
const mainThreadCpuSeconds = () => {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { cpu: (Number(fields[11]) + Number(fields[12])) / 100, system: Number(fields[12]) / 100 };
  } catch {
    return { cpu: Number.NaN, system: Number.NaN }; // not Linux
  }
};
const round = (seconds: number) => Math.round(seconds * 100) / 100;

/**
 * Each thread's CPU seconds, sampled from /proc/self/task every 50 ms while the build runs (a render
 * thread has ended, and left /proc, when the build returns; its last sample stands for it, missing
 * at most 50 ms). Linux only; empty elsewhere.
 */
function sampleThreads(): () => { cpu: number; system: number }[] {
  const seen = new Map<string, number>();
  const systemSeen = new Map<string, number>();
  const sample = () => {
    try {
      for (const tid of readdirSync("/proc/self/task")) {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        seen.set(tid, (Number(fields[11]) + Number(fields[12])) / 100);
        systemSeen.set(tid, Number(fields[12]) / 100);
      }
    } catch {
      // a thread ended between the listing and the read, or not Linux
    }
  };
  sample();
  const before = new Map(seen);
  const systemBefore = new Map(systemSeen);
  const timer = setInterval(sample, 50);
  return () => {
    clearInterval(timer);
    sample();
    return [...seen]
      .filter(([tid]) => tid !== String(process.pid))
      .map(([tid, cpu]) => ({
        cpu: round(cpu - (before.get(tid) ?? 0)),
        system: round((systemSeen.get(tid) ?? 0) - (systemBefore.get(tid) ?? 0)),
      }))
      .sort((a, b) => b.cpu - a.cpu);
  };
}

/**
 * MEMORY_TRACE=1: the main thread's heap and the process's RSS every 250 ms, on stderr (a build's
 * stages show as its shape); HEAP_SNAPSHOT_MB=N also writes one heap snapshot of the main thread
 * the first time its used heap passes N MB. For finding where memory goes, not for the figures.
 */
function traceMemory(): () => void {
  if (!process.env.MEMORY_TRACE) return () => {};
  const started = performance.now();
  const snapshotAt = Number(process.env.HEAP_SNAPSHOT_MB ?? 0) * 1024 * 1024;
  let snapshotted = false;
  const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
  const timer = setInterval(async () => {
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    process.stderr.write(
      `${((performance.now() - started) / 1000).toFixed(1)} s rss ${mb(rss)} heap ${mb(heapUsed)} external ${mb(external)} buffers ${mb(arrayBuffers)}\n`,
    );
    if (snapshotAt > 0 && !snapshotted && heapUsed > snapshotAt) {
      snapshotted = true;
      process.stderr.write(`heap snapshot: ${(await import("node:v8")).writeHeapSnapshot()}\n`);
    }
  }, 250);
  return () => clearInterval(timer);
}

if (mode === "build") {
  const startRssMB = Math.round(process.memoryUsage().rss / 1024 / 1024);
  const stopTrace = traceMemory();
  const store = createSiteStore(
    { url: `file://${storageDir}`, s3Endpoint: undefined, s3Region: "us-east-1" },
    { logger },
  );
  const cpuBefore = cpuSeconds();
  const mainBefore = mainThreadCpuSeconds();
  const threads = sampleThreads();
  const summary = await fullBuild({
    client,
    store,
    siteUrl: "https://www.example.com",
    logger,
    ref: await client.fetchMasterRef(),
    // RENDER_THREADS=0 renders on the main thread; unset: the build's default (cores − 1).
    ...(process.env.RENDER_THREADS ? { renderThreads: Number(process.env.RENDER_THREADS) } : {}),
  });
  stopTrace();
  const cpu = round(cpuSeconds() - cpuBefore);
  const mainAfter = mainThreadCpuSeconds();
  const main = round(mainAfter.cpu - mainBefore.cpu);
  const others = threads();
  const renderThreads = others.slice(0, summary.renderThreads).map((thread) => thread.cpu);
  const helpers = others.slice(renderThreads.length);
  console.log(
    JSON.stringify({
      mode,
      summary,
      maxRssMB: maxRssMB(),
      // The process before the build: Node, the build's code; what the build adds is above it.
      startRssMB,
      cpuSeconds: cpu,
      mainCpuSeconds: main,
      // In the kernel: the folder driver's writes (synchronous calls, on the main thread).
      mainSystemSeconds: round(mainAfter.system - mainBefore.system),
      // The busiest threads besides the main one are the render threads (one per render thread).
      renderCpuSeconds: renderThreads,
      helperCpuSeconds: round(helpers.reduce((sum, thread) => sum + thread.cpu, 0)),
      // In the kernel: libuv's threads writing files, mostly (V8's GC and compiler threads run in user space).
      helperSystemSeconds: round(helpers.reduce((sum, thread) => sum + thread.system, 0)),
    }),
  );
} else if (mode === "floor") {
  const ref = await client.fetchMasterRef();
  const documents: PrismicDocument[] = await listDocuments(client, ref, []);
  const source = typedSource(createMemorySource(documents));
  const settings = (await source.getSettings()) as SettingsDocument;
  const { assets } = await buildSiteAssets();
  const pages = documents.filter((d): d is PageDocument => d.type === "page");
  // Everything a page needs, fetched before the clock starts: the floor is rendering alone.
  const trees = await Promise.all(
    pages.map(async (page) => ({
      page,
      sliceContext: await loadSliceContext(page.data.slices, source, "production"),
    })),
  );
  const started = performance.now();
  const cpuBefore = cpuSeconds();
  let bytes = 0;
  for (const { page, sliceContext } of trees) {
    const path = page.uid === "home" ? "/" : `/${page.uid}`;
    bytes += renderToString(
      createElement(PageView, {
        page,
        sliceContext,
        settings,
        siteUrl: "https://www.example.com",
        assets,
        mode: "production",
        path,
      }),
    ).length;
  }
  const ms = performance.now() - started;
  const cpu = round(cpuSeconds() - cpuBefore);
  console.log(
    JSON.stringify({
      mode,
      pages: trees.length,
      ms: Math.round(ms),
      pagesPerSecond: Math.round((trees.length / ms) * 1000),
      avgKB: Math.round(bytes / trees.length / 1024),
      maxRssMB: maxRssMB(),
      cpuSeconds: cpu,
    }),
  );
} else if (mode === "list") {
  // As a rebuild lists them (full-build.ts renderChanged): the master ref, then every document of the
  // site's types without its content, as many pages at once as the build asks for.
  const started = performance.now();
  const ref = await client.fetchMasterRef();
  const versions = new Map<string, string | null>();
  await forEachVersionPage(client, ref, website.types, defaultRenderThreads() + 1, async (page) => {
    for (const doc of page) versions.set(doc.id, doc.last_publication_date);
  });
  const ms = performance.now() - started;
  console.log(JSON.stringify({ mode, documents: versions.size, ms: Math.round(ms), maxRssMB: maxRssMB() }));
} else {
  throw new Error(`unknown mode ${mode}`);
}
