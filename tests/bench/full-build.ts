/**
 * Full-build benchmark: a generated repository of N pages (default 10,000)
 * served by the local content service (its own process), built into a folder
 * by the product's build (its own process), against the floor measured in the
 * same run: bare renderToString of the same page trees with content in memory, on one thread.
 * Prints wall time and CPU seconds (all threads of the build process; the main thread apart) of
 * a first build and of a rebuild with nothing changed, each against the floor's, per page.
 *
 *   npm run bench:full-build            (PAGES=2000 npm run bench:full-build for a quick run)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { type BuildResult, childResult } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const PRICE_LISTS = 20;
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`);
const repo = join(work, "repo");
const tsx = ["--import", "tsx"];

ensureGeneratedRepository(repo, PAGES, PRICE_LISTS);
rmSync(join(work, "content"), { recursive: true, force: true });
rmSync(join(work, "site"), { recursive: true, force: true });

const content = spawn(process.execPath, [join(ROOT, "bin/pressroom.js"), "content"], {
  env: {
    ...process.env,
    PORT: "0",
    CONTENT_DATA_DIR: join(work, "content"),
    CONTENT_SEED_DIR: repo,
    LOG_LEVEL: "info",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
const stop = (child: ChildProcess) => child.exitCode === null && child.kill("SIGTERM");
process.on("exit", () => stop(content));

try {
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    content.stdout?.on("data", (chunk: Buffer) => {
      out += chunk;
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    content.once("exit", (code) => reject(new Error(`content service exited with ${code}`)));
  });
  const endpoint = `${url}/api/v2`;
  type Floor = {
    pages: number;
    ms: number;
    pagesPerSecond: number;
    avgKB: number;
    maxRssMB: number;
    cpuSeconds: number;
  };
  const child = <T>(...args: string[]) => {
    const out = execFileSync(
      process.execPath,
      [...tsx, join(ROOT, "tests/bench/full-build-child.ts"), ...args],
      { encoding: "utf8", env: { ...process.env, LOG_LEVEL: "warn", NODE_ENV: "production" } },
    );
    return childResult<T>(out);
  };
  const first = child<BuildResult>("build", endpoint, join(work, "site"));
  const second = child<BuildResult>("build", endpoint, join(work, "site"));
  const floor = child<Floor>("floor", endpoint);

  // Per 1,000 pages: the build's routes are the pages plus the price lists and listings (~0.3 %).
  const perThousand = (seconds: number, pages: number) => ((seconds / pages) * 1000).toFixed(2);
  const floorCpu = floor.cpuSeconds / floor.pages;
  const floorWall = floor.ms / 1000 / floor.pages;
  const row = (label: string, run: BuildResult) => {
    const s = run.summary;
    const wall = s.durationMs / 1000;
    const render = run.renderCpuSeconds.map((seconds) => seconds.toFixed(2)).join(" + ");
    return [
      label,
      `${s.rendered} rendered, ${s.reused} reused, ${s.written} written`,
      `${wall.toFixed(2)} s · ${(wall / s.routes / floorWall).toFixed(2)}× floor`,
      `${run.cpuSeconds.toFixed(2)} s (main ${run.mainCpuSeconds.toFixed(2)}, render ${render}, helpers ${run.helperCpuSeconds.toFixed(2)}, of which in the kernel ${run.helperSystemSeconds.toFixed(2)}) · ${perThousand(run.cpuSeconds, s.routes)} s per 1,000 · **${(run.cpuSeconds / s.routes / floorCpu).toFixed(2)}× floor**`,
      `${run.maxRssMB} MB`,
    ];
  };
  const rows = [
    row(
      `full build (empty folder, ${first.summary.renderThreads} render thread${first.summary.renderThreads === 1 ? "" : "s"})`,
      first,
    ),
    row("rebuild (nothing changed)", second),
    [
      "floor: bare renderToString, one thread",
      `${floor.pages} pages`,
      `${(floor.ms / 1000).toFixed(2)} s`,
      `${floor.cpuSeconds.toFixed(2)} s · ${perThousand(floor.cpuSeconds, floor.pages)} s per 1,000`,
      `${floor.maxRssMB} MB`,
    ],
  ];
  console.log(
    `\nFull build, ${PAGES} pages + ${PRICE_LISTS} price lists, Node ${process.version}, ${(await import("node:os")).cpus().length} cores`,
  );
  console.log(
    "| run | routes | wall | CPU (all threads of the build process) | peak RSS |\n|---|---|---|---|---|",
  );
  for (const line of rows) console.log(`| ${line.join(" | ")} |`);
  const ratio = (run: BuildResult) => run.summary.durationMs / 1000 / run.summary.routes / floorWall;
  const cpuRatio = (run: BuildResult) => run.cpuSeconds / run.summary.routes / floorCpu;
  const peak = Math.max(first.maxRssMB, second.maxRssMB);
  console.log(
    `\nfull build: ${first.summary.pagesPerSecond} pages/s, wall ${ratio(first).toFixed(2)}× the floor's (target ≤ 1.5×), CPU ${cpuRatio(first).toFixed(2)}× the floor's per page (target ≤ 2×)`,
  );
  console.log(
    `rebuild:    ${(first.summary.durationMs / second.summary.durationMs).toFixed(2)}× faster than the first build (target ≥ 2×), CPU ${cpuRatio(second).toFixed(2)}× the floor's per page`,
  );
  console.log(`peak RSS of a build: ${peak} MB (target < 300 MB); average page ${floor.avgKB} KB`);
  console.log(`command: ${PAGES === 10_000 ? "" : `PAGES=${PAGES} `}npm run bench:full-build`);
} finally {
  stop(content);
}
