/**
 * How fast one page renders in a process that has rendered few: what a worker's publish of a single
 * page pays on the way from edit to live. The generated repository (PAGES, default 10,000; RENDERS pages
 * rendered, default 1,000) is served by the local content service in its own process; this process
 * lists it, then renders pages one after another, each as a publish does (its own memory source,
 * a new fragment cache, nothing kept between them), timing each render. The floor is the same
 * renders once V8 has optimized the code: the last hundred, and a second pass over the first ones.
 *
 *   npm run bench:render-warmth          (NODE_ENV=production, as every Pressroom process runs)
 */
import { join } from "node:path";
import { pino } from "pino";
import { createMemorySource } from "#content/source.ts";
import { buildSiteAssets } from "#web/assets.ts";
import { createFragmentCache } from "#web/components/shared-markup.tsx";
import { routeForDocument } from "#web/routes.ts";
import { website } from "#web/website.ts";
import { listDocuments } from "#worker/build/list-documents.ts";
import { localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { startContentService } from "./edit-live-content.ts";
import { stopAll } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const RENDERS = Number(process.env.RENDERS ?? 1_000);
const work = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-render-warmth-${PAGES}`);
const repo = join(process.env.TMPDIR ?? join(ROOT, ".tmp"), `bench-full-build-${PAGES}`, "repo");

ensureGeneratedRepository(repo, PAGES, 20);
try {
  // One data folder for every run (seeded on the first): nothing written or deleted per run.
  const service = await startContentService("render-warmth", repo, join(work, "content"));
  const client = localContentClient(service.endpoint, {}, { logger: pino({ level: "warn" }) });
  const documents = await listDocuments(client, await client.fetchMasterRef(), []);
  const shared = documents.filter((doc) => doc.type !== "page");
  const pages = documents.filter((doc) => doc.type === "page").slice(0, RENDERS);
  const { assets } = await buildSiteAssets();

  /** Renders each page as a publish would; answers each render's wall and CPU milliseconds. */
  const renderEach = async (list: typeof pages) => {
    const times: { wall: number; cpu: number }[] = [];
    for (const page of list) {
      // A publish's documents are fetched for it: new objects, so no cache keyed by them helps.
      const source = createMemorySource(structuredClone([...shared, page]));
      const route = routeForDocument(page) ?? "/";
      const cpu = process.cpuUsage();
      const started = performance.now();
      await website.render(route, {
        source,
        siteUrl: "https://www.example.com",
        assets,
        mode: "production",
        fragments: createFragmentCache(),
      });
      const wall = performance.now() - started;
      const used = process.cpuUsage(cpu);
      times.push({ wall, cpu: (used.user + used.system) / 1000 });
    }
    return times;
  };
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const row = (label: string, times: { wall: number; cpu: number }[]) =>
    `| ${label} | ${median(times.map((t) => t.wall)).toFixed(2)} ms | ${median(times.map((t) => t.cpu)).toFixed(2)} ms |`;

  const cold = await renderEach(pages);
  const again = await renderEach(pages.slice(0, 100));
  console.log(
    `\nOne page rendered as a publish renders it, ${RENDERS} generated pages in a row, Node ${process.version}, NODE_ENV=${process.env.NODE_ENV}`,
  );
  console.log("| renders | wall (median) | CPU (median) |\n|---|---|---|");
  console.log(row("the first (nothing compiled)", cold.slice(0, 1)));
  for (const [from, to] of [
    [2, 11],
    [12, 41],
    [42, 100],
    [101, 300],
  ] as const)
    if (to <= cold.length) console.log(row(`renders ${from}–${to}`, cold.slice(from - 1, to)));
  console.log(row(`floor: the last 100 (renders ${RENDERS - 99}–${RENDERS})`, cold.slice(-100)));
  console.log(row("floor: the first 100 again", again));
  console.log("command: npm run bench:render-warmth");
} finally {
  await stopAll();
}
