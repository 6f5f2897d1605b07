/**
 * The local content service's memory for a repository of N documents: its own process, seeded from
 * a generated repository, its resident memory (VmRSS, and the peak VmHWM) read from /proc after
 * start, after listing every document through the API as a build does (`documents/search`, pages
 * of 100), after listing again, and after a few publishes (each keeps a past ref queryable). The
 * floor printed beside: the repository's bytes on disk, what holding every document as JSON would
 * cost at least.
 *
 *   npm run bench:content-service                    (PAGES=100000 for the stated bound)
 *   CONTENT_BENCH_REPO=<folder with documents/> npm run bench:content-service   (an existing repository, read only)
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const PUBLISHES = Number(process.env.PUBLISHES ?? 10);
const tmp = process.env.TMPDIR ?? join(ROOT, ".tmp");
const given = process.env.CONTENT_BENCH_REPO;
// The same repository as the other benchmarks of this size (generated once, kept).
const repo = given ?? join(tmp, `bench-full-build-${PAGES}`, "repo");
if (!given) ensureGeneratedRepository(repo, PAGES, 20);
const dataDir = join(tmp, `bench-content-service-${process.pid}`);

const documentsDir = join(repo, "documents");
const files = readdirSync(documentsDir).filter((name) => name.endsWith(".json"));
const diskBytes = files.reduce((sum, name) => sum + statSync(join(documentsDir, name)).size, 0);

const started = Date.now();
const content = spawn(process.execPath, [join(ROOT, "bin/pressroom.js"), "content"], {
  env: { ...process.env, PORT: "0", CONTENT_DATA_DIR: dataDir, CONTENT_SEED_DIR: repo, LOG_LEVEL: "info" },
  stdio: ["ignore", "pipe", "inherit"],
});
const stop = () => {
  if (content.exitCode === null) content.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
};
process.on("exit", stop);

const MB = 1024 * 1024;
const memory = () => {
  const status = readFileSync(`/proc/${content.pid}/status`, "utf8");
  const kB = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rss: (kB("VmRSS") * 1024) / MB, hwm: (kB("VmHWM") * 1024) / MB };
};
const rows: { when: string; rss: number; hwm: number; seconds: number }[] = [];
const measure = (when: string, since: number) =>
  rows.push({ when, ...memory(), seconds: (Date.now() - since) / 1000 });

const url = await new Promise<string>((resolve, reject) => {
  let out = "";
  content.stdout?.on("data", (chunk: Buffer) => {
    out += chunk;
    const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
    if (match?.[1]) resolve(match[1]);
  });
  content.once("exit", (code) => reject(new Error(`content service exited with ${code}:\n${out}`)));
});
measure("after start (seeded)", started);

const getJson = async (path: string) => {
  const response = await fetch(`${url}${path}`);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
};
const masterRef = async () =>
  ((await getJson("/api/v2")).refs as { ref: string; isMasterRef: boolean }[]).find((r) => r.isMasterRef)
    ?.ref as string;

/** Every document at the master ref, 100 a page, as a build lists them. */
const listAll = async () => {
  const ref = encodeURIComponent(await masterRef());
  let listed = 0;
  for (let page = 1; ; page++) {
    const answer = await getJson(`/api/v2/documents/search?ref=${ref}&pageSize=100&page=${page}`);
    listed += (answer.results as unknown[]).length;
    if (answer.next_page === null) return listed;
  }
};

let since = Date.now();
const listed = await listAll();
measure(`after listing ${listed} documents`, since);
since = Date.now();
await listAll();
measure("after listing again", since);

// Publishes that change one page each: every one makes a new master ref and keeps the last one.
since = Date.now();
const ref = encodeURIComponent(await masterRef());
const pages = (await getJson(
  `/api/v2/documents/search?ref=${ref}&pageSize=${Math.min(PUBLISHES, 100)}&q=${encodeURIComponent('[[at(document.type,"page")]]')}`,
)) as { results: { data: Record<string, unknown> }[] };
for (let i = 0; i < PUBLISHES; i++) {
  const doc = pages.results[i % pages.results.length] as { data: Record<string, unknown> };
  const response = await fetch(`${url}/admin/publish`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upsert: [{ ...doc, data: { ...doc.data, meta_title: `Edit ${i}` } }] }),
  });
  if (!response.ok) throw new Error(`publish: ${response.status} ${await response.text()}`);
}
measure(`after ${PUBLISHES} publishes`, since);
since = Date.now();
await listAll();
measure("after listing the new ref", since);

const per10k = (mb: number) => (mb * 10_000) / listed;
console.log(
  `\nlocal content service, ${listed} documents (${(diskBytes / MB).toFixed(0)} MB of JSON on disk, ` +
    `${(per10k(diskBytes / MB)).toFixed(1)} MB per 10,000: the floor of holding them as JSON)`,
);
console.log("| when | RSS MB | peak RSS MB | RSS MB per 10,000 documents | seconds |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const row of rows) {
  console.log(
    `| ${row.when} | ${row.rss.toFixed(0)} | ${row.hwm.toFixed(0)} | ${per10k(row.rss).toFixed(1)} | ${row.seconds.toFixed(1)} |`,
  );
}
stop();
// The HTTP client keeps its connections to the stopped service open: nothing else is left to do.
process.exit(0);
