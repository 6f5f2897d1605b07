/**
 * Full-build benchmark: a generated repository of N pages (default 10,000)
 * served by the local content service (its own process), built into a folder
 * by the product's build (its own process), against the floor measured in the
 * same run: bare renderToString of the same page trees with content in memory, on one thread.
 * Prints wall time and CPU seconds (all threads of the build process; the main thread apart) of
 * a first build, a rebuild with nothing changed (at the same ref) and a rebuild after one page's
 * publish (a new ref), each against the floor's, per page; the rebuild after the publish against
 * its own floor too (listing every document's id and version without its content, what finding out
 * what changed costs), and peak RSS with what it grows by per 10,000 routes.
 *
 *   npm run bench:full-build            (PAGES=2000 ROUNDS=1 npm run bench:full-build for a quick run)
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { BUILD_CHILD_NODE_ARGS, type BuildResult, childResult, median } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const PRICE_LISTS = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`);
const repo = join(work, "repo");

ensureGeneratedRepository(repo, PAGES, PRICE_LISTS);
// The content service's folder and each round's site are new, and nothing is deleted until every
// round is measured: on ext4 without a journal, files just deleted slow down every file created
// after them (docs/storage.md, "The file driver").
const sites = join(work, "sites");
const deletedAt = join(work, "deleted-at");
const leftovers = join(work, `leftovers-${process.pid}`);
mkdirSync(leftovers, { recursive: true });
const stopped = readdirSync(work).filter(
  (name) => name.startsWith("leftovers-") && join(work, name) !== leftovers,
);
for (const name of ["content", "sites", "site", ...stopped]) {
  // What a run that did not finish left (its own leftovers too; "site" is where runs before 27 Nov
  // built): set aside, deleted after this run's rounds.
  if (existsSync(join(work, name))) renameSync(join(work, name), join(leftovers, name));
}
const sinceDeletion =
  (Date.now() - Number(existsSync(deletedAt) ? readFileSync(deletedAt, "utf8") : 0)) / 1000;
if (sinceDeletion < 300)
  console.error(
    `note: the last run deleted its files ${Math.round(sinceDeletion)} s ago; on an ext4 without a journal, the first builds pay kernel time for it for up to 300 s (printed as the main thread's "in the kernel")`,
  );

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
      [...BUILD_CHILD_NODE_ARGS, join(ROOT, "tests/bench/full-build-child.ts"), ...args],
      { encoding: "utf8", env: { ...process.env, LOG_LEVEL: "warn", NODE_ENV: "production" } },
    );
    return childResult<T>(out);
  };
  // Rounds of (first build into an empty folder, rebuild, floor), each against its own round's floor:
  // this machine's speed drifts by 10-20 % between minutes, so one run proves little.
  type Listing = { documents: number; ms: number; maxRssMB: number };
  /** Publishes one page anew with another title, as an editor would: a new ref, one document changed. */
  const editOnePage = async (round: number) => {
    const ref = ((await (await fetch(endpoint)).json()) as { refs: { ref: string }[] }).refs[0]?.ref;
    // A page in the middle of the listing order, not the home page.
    const q = encodeURIComponent('[[at(document.type,"page")]]');
    const at = Math.ceil(PAGES / 2);
    const search = await fetch(`${endpoint}/documents/search?ref=${ref}&q=${q}&pageSize=1&page=${at}`);
    const page = ((await search.json()) as { results: { data: Record<string, unknown> }[] }).results[0];
    if (!page) throw new Error(`the generated repository has no page ${at}`);
    const response = await fetch(`${url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [{ ...page, data: { ...page.data, meta_title: `Edited ${round}` } }] }),
    });
    if (!response.ok) throw new Error(`publish failed: ${response.status} ${await response.text()}`);
  };
  const rounds: {
    first: BuildResult;
    second: BuildResult;
    edited: BuildResult;
    listing: Listing;
    floor: Floor;
  }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const site = join(sites, `round-${round + 1}`);
    const first = child<BuildResult>("build", endpoint, site);
    const second = child<BuildResult>("build", endpoint, site);
    await editOnePage(round + 1);
    const edited = child<BuildResult>("build", endpoint, site);
    const listing = child<Listing>("list", endpoint);
    const floor = child<Floor>("floor", endpoint);
    console.error(`round ${round + 1} of ${ROUNDS} done`);
    rounds.push({ first, second, edited, listing, floor });
  }

  // Per 1,000 pages: the build's routes are the pages plus the price lists and listings (~0.3 %).
  const perThousand = (seconds: number, pages: number) => ((seconds / pages) * 1000).toFixed(2);
  const ratios = (run: BuildResult, floor: Floor) => ({
    wall: run.summary.durationMs / 1000 / run.summary.routes / (floor.ms / 1000 / floor.pages),
    cpu: run.cpuSeconds / run.summary.routes / (floor.cpuSeconds / floor.pages),
  });
  const row = (label: string, run: BuildResult, floor: Floor) => {
    const s = run.summary;
    const wall = s.durationMs / 1000;
    const render = run.renderCpuSeconds.map((seconds) => seconds.toFixed(2)).join(" + ") || "no thread";
    const ratio = ratios(run, floor);
    return [
      label,
      `${s.rendered} rendered, ${s.reused} reused, ${s.written} written; listings and the sitemap's parts ${((s.stages.listings ?? 0) / 1000).toFixed(2)} s`,
      `${wall.toFixed(2)} s · ${ratio.wall.toFixed(2)}× floor`,
      `${run.cpuSeconds.toFixed(2)} s (main ${run.mainCpuSeconds.toFixed(2)}, of which in the kernel ${run.mainSystemSeconds.toFixed(2)}, render ${render}, helpers ${run.helperCpuSeconds.toFixed(2)}, of which in the kernel ${run.helperSystemSeconds.toFixed(2)}) · ${perThousand(run.cpuSeconds, s.routes)} s per 1,000 · **${ratio.cpu.toFixed(2)}× floor**`,
      `${run.maxRssMB} MB`,
    ];
  };
  console.log(
    `\nFull build, ${PAGES} pages + ${PRICE_LISTS} price lists, Node ${process.version}, ${(await import("node:os")).cpus().length} cores, ${ROUNDS} round${ROUNDS === 1 ? "" : "s"}`,
  );
  console.log(
    "| round | run | routes | wall | CPU (all threads of the build process) | peak RSS |\n|---|---|---|---|---|---|",
  );
  rounds.forEach(({ first, second, edited, floor }, index) => {
    const threads = `${first.summary.renderThreads} render thread${first.summary.renderThreads === 1 ? "" : "s"}`;
    const rows = [
      row(`full build (empty folder, ${threads})`, first, floor),
      row("rebuild (nothing changed)", second, floor),
      row("rebuild after one page's publish", edited, floor),
      [
        "floor: bare renderToString, one thread",
        `${floor.pages} pages`,
        `${(floor.ms / 1000).toFixed(2)} s`,
        `${floor.cpuSeconds.toFixed(2)} s · ${perThousand(floor.cpuSeconds, floor.pages)} s per 1,000`,
        `${floor.maxRssMB} MB`,
      ],
    ];
    for (const line of rows) console.log(`| ${index + 1} | ${line.join(" | ")} |`);
  });
  const range = (values: number[]) =>
    `median ${median(values).toFixed(2)}× (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}×)`;
  const firsts = rounds.map(({ first, floor }) => ratios(first, floor));
  const seconds = rounds.map(({ second, floor }) => ratios(second, floor));
  const peak = Math.max(
    ...rounds.flatMap(({ first, second, edited }) => [first.maxRssMB, second.maxRssMB, edited.maxRssMB]),
  );
  console.log(
    `\nfull build: ${median(rounds.map(({ first }) => first.summary.pagesPerSecond))} pages/s, wall ${range(firsts.map((r) => r.wall))} the floor's (target ≤ 1.5×), CPU ${range(firsts.map((r) => r.cpu))} the floor's per page (target ≤ 2×)`,
  );
  console.log(
    `rebuild:    ${range(rounds.map(({ first, second }) => first.summary.durationMs / second.summary.durationMs))} faster than the first build (target ≥ 2×), CPU ${range(seconds.map((r) => r.cpu))} the floor's per page`,
  );
  const noOp = rounds.map(({ first, second }) => second.summary.durationMs / first.summary.durationMs);
  const listingShare = rounds.map(({ first, listing }) => listing.ms / first.summary.durationMs);
  const percent = (values: number[]) =>
    `median ${(median(values) * 100).toFixed(1)} % (${(Math.min(...values) * 100).toFixed(1)}–${(Math.max(...values) * 100).toFixed(1)} %)`;
  const editShare = rounds.map(({ first, edited }) => edited.summary.durationMs / first.summary.durationMs);
  console.log(
    `no-op:      the rebuild took ${percent(noOp)} of the first build's wall time (target ≤ 10 %): at the ref the first build read, it lists no document`,
  );
  console.log(
    `one edit:   a rebuild after one page's publish (a new ref) took ${percent(editShare)}, rendering ${rounds.map(({ edited }) => edited.summary.rendered).join(", ")} routes; its floor, listing ${rounds[0]?.listing.documents} documents' ids and versions, ${percent(listingShare)} (${rounds.map(({ listing }) => (listing.ms / 1000).toFixed(2)).join(", ")} s)`,
  );
  // What a build holds grows with the routes; the process it starts in (Node, the code) does not.
  const growth = rounds.flatMap(({ first, second, edited }) =>
    [first, second, edited].map((run) => ((run.maxRssMB - run.startRssMB) / run.summary.routes) * 10_000),
  );
  console.log(
    `peak RSS of a build: ${peak} MB (target < 300 MB), ${median(growth).toFixed(1)} MB per 10,000 routes above the ${rounds[0]?.first.startRssMB} MB it starts at; average page ${rounds[0]?.floor.avgKB} KB`,
  );
  console.log(
    `command: ${[PAGES === 10_000 ? "" : `PAGES=${PAGES}`, ROUNDS === 3 ? "" : `ROUNDS=${ROUNDS}`].filter(Boolean).join(" ")}${PAGES === 10_000 && ROUNDS === 3 ? "" : " "}npm run bench:full-build`,
  );
} finally {
  stop(content);
  for (const folder of [leftovers, sites, join(work, "content")])
    rmSync(folder, { recursive: true, force: true });
  writeFileSync(deletedAt, String(Date.now()));
}
