/**
 * Full-build benchmark: a generated repository of N pages (default 10,000)
 * served by the local content service (its own process), built into a folder
 * by the product's build (its own process), against the floor measured in the
 * same run: bare renderToString of the same page trees with content in memory.
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
  type Floor = { pages: number; ms: number; pagesPerSecond: number; avgKB: number; maxRssMB: number };
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

  const pps = first.summary.pagesPerSecond;
  const rows = [
    [
      "full build (empty folder)",
      `${first.summary.rendered} routes`,
      `${(first.summary.durationMs / 1000).toFixed(2)} s`,
      `${pps} pages/s`,
      `${first.maxRssMB} MB`,
    ],
    [
      "rebuild (nothing changed)",
      `${second.summary.written} written`,
      `${(second.summary.durationMs / 1000).toFixed(2)} s`,
      `${second.summary.pagesPerSecond} pages/s`,
      `${second.maxRssMB} MB`,
    ],
    [
      "floor: bare renderToString",
      `${floor.pages} pages`,
      `${(floor.ms / 1000).toFixed(2)} s`,
      `${floor.pagesPerSecond} pages/s`,
      `${floor.maxRssMB} MB`,
    ],
  ];
  console.log(
    `\nFull build, ${PAGES} pages + ${PRICE_LISTS} price lists, Node ${process.version}, ${(await import("node:os")).cpus().length} cores`,
  );
  console.log("| run | size | time | rate | peak RSS |\n|---|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
  const ratio = (run: { summary: { pagesPerSecond: number } }) =>
    (floor.pagesPerSecond / run.summary.pagesPerSecond).toFixed(2);
  const peak = Math.max(first.maxRssMB, second.maxRssMB);
  console.log(
    `\nfull build: ${pps} pages/s (target ≥ 1000), ${ratio(first)}x the floor's time per page (target ≤ 3x)`,
  );
  console.log(`rebuild:    ${second.summary.pagesPerSecond} pages/s, ${ratio(second)}x the floor`);
  console.log(`peak RSS of a build: ${peak} MB (target < 300 MB); average page ${floor.avgKB} KB`);
  console.log(`command: ${PAGES === 10_000 ? "" : `PAGES=${PAGES} `}npm run bench:full-build`);
} finally {
  stop(content);
}
