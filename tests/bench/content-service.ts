/**
 * The local content service's memory for a repository of N documents: its own process, seeded from
 * a generated repository, its resident memory (VmRSS, and the peak VmHWM) read from /proc after
 * start, after listing every document through the API as a build does (`documents/search`, pages
 * of 100), after listing again, and after a few publishes (each keeps a past ref queryable). The
 * floor printed beside: the repository's bytes on disk, what holding every document as JSON would
 * cost at least. Then what one edit costs the service (`TIMED` one-page publishes, one at a time):
 * the publish request, the first API root read after it (the master ref, as a worker reads it), a
 * second one, the by-id search a worker makes for the changed document, and the bytes the publish
 * wrote into the data folder. Compare these between sizes (PAGES=1000, PAGES=100000): a publish's
 * costs should not grow with the repository.
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
const TIMED = Number(process.env.TIMED ?? 20);
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

// What one edit costs the service: publish, the next API root reads, a by-id search, bytes written.
/** Every file under the data folder: its size and identity (inode, modification time). */
const dataFiles = () => {
  const files = new Map<string, { size: number; id: string }>();
  const visit = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path, `${prefix}${entry.name}/`);
      else {
        const stat = statSync(path, { bigint: true });
        files.set(`${prefix}${entry.name}`, { size: Number(stat.size), id: `${stat.ino}:${stat.mtimeNs}` });
      }
    }
  };
  visit(dataDir, "");
  return files;
};
const timings = {
  publish: [] as number[],
  rootFirst: [] as number[],
  rootAgain: [] as number[],
  byId: [] as number[],
};
const written = { bytes: [] as number[], files: [] as number[] };
const timed = async (list: number[], run: () => Promise<unknown>) => {
  const from = performance.now();
  const result = await run();
  list.push(performance.now() - from);
  return result;
};
for (let i = 0; i < TIMED; i++) {
  const doc = pages.results[(i * 7) % pages.results.length] as { id: string; data: Record<string, unknown> };
  const before = dataFiles();
  await timed(timings.publish, async () => {
    const response = await fetch(`${url}/admin/publish`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ upsert: [{ ...doc, data: { ...doc.data, meta_title: `Timed edit ${i}` } }] }),
    });
    if (!response.ok) throw new Error(`publish: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  });
  const after = dataFiles();
  let bytes = 0;
  let files = 0;
  for (const [name, file] of after) {
    const old = before.get(name);
    if (old?.id === file.id) continue;
    // A file that grew in place (an append log) counts what it grew by; a new or rewritten file, all of it.
    const appended = old !== undefined && name.endsWith(".jsonl") && file.size >= old.size;
    bytes += appended ? file.size - old.size : file.size;
    files++;
  }
  written.bytes.push(bytes);
  written.files.push(files);
  const root = (await timed(timings.rootFirst, () => getJson("/api/v2"))) as {
    refs: { ref: string; isMasterRef: boolean }[];
  };
  await timed(timings.rootAgain, () => getJson("/api/v2"));
  const newRef = encodeURIComponent(root.refs.find((r) => r.isMasterRef)?.ref as string);
  const q = encodeURIComponent(`[[in(document.id, ["${doc.id}"])]]`);
  await timed(timings.byId, () => getJson(`/api/v2/documents/search?ref=${newRef}&q=${q}&pageSize=100`));
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] ?? Number.NaN;
const p95 = (list: number[]) =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor(list.length * 0.95))] ?? Number.NaN;

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
console.log(`\nOne-page publishes, ${TIMED} one at a time, ${listed} documents (p50 / p95, ms):`);
console.log("| step | p50 | p95 |\n| --- | ---: | ---: |");
const rows2: [string, number[]][] = [
  ["POST /admin/publish (one document, no webhook)", timings.publish],
  ["GET /api/v2, first after the publish (the master ref)", timings.rootFirst],
  ["GET /api/v2, again", timings.rootAgain],
  ["search by id at the new ref", timings.byId],
];
for (const [name, list] of rows2)
  console.log(`| ${name} | ${median(list).toFixed(1)} | ${p95(list).toFixed(1)} |`);
console.log(
  `written into the data folder per publish: ${median(written.bytes)} bytes in ${median(written.files)} files (p50; max ${Math.max(...written.bytes)} bytes)`,
);
console.log(`command: PAGES=${PAGES} TIMED=${TIMED} npm run bench:content-service`);
stop();
// The HTTP client keeps its connections to the stopped service open: nothing else is left to do.
process.exit(0);
