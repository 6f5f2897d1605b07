/**
 * Edit → live: webhook POST → the page served fresh, for Pressroom and for a Next 16 peer
 * with on-demand revalidation, alternating edit by edit in one run, on the generated repository
 * (PAGES, default 10,000). Each system reads its own local content service over the same generated
 * repository, started without a webhook: each edit is published through the edit API, then the clock
 * starts and the benchmark POSTs the body Prismic would send; it stops when the system's server serves
 * the page with the edit's marker (polled every 5 ms over a keep-alive connection).
 *
 * Pressroom: webhook receiver, worker and site server as their own processes, a folder as storage, on
 * a private redis-server (so that every Redis command counted is Pressroom's). Per edit: content API
 * requests, Redis commands, round trips and scripts (the server's own counters), BullMQ jobs added,
 * routes rendered and objects written (the worker's publish summary), and where the time went.
 * Next 16 (tests/bench/next-peer/): installed under TMPDIR at bench time, `next build` + `next start`.
 * The floor, per edit in the same run: fetch + render + write of the route in this process.
 *
 *   npm run bench:edit-live                      (PAGES=1000 EDITS=20 npm run bench:edit-live for a quick run)
 *   NEXT=0 …                                     Pressroom and the floor only
 *   NEXT_REVALIDATE=tag …                        Next revalidates with revalidateTag("prismic", "max")
 *   NEXT_PRERENDER=none …                        Next renders pages on first request instead of at build
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { PrismicDocument } from "@prismicio/client";
import { Redis } from "ioredis";
import { localContentClient } from "../support/content-client.ts";
import { ensureGeneratedRepository } from "../support/generated-repository.ts";
import { startOwnRedis } from "../support/own-redis.ts";
import { startContentService } from "./edit-live-content.ts";
import { floorMeter } from "./edit-live-floor.ts";
import { type NextSide, startNextSide } from "./edit-live-next.ts";
import { startPressroomSide } from "./edit-live-pressroom.ts";
import { type EditRow, printReport } from "./edit-live-report.ts";
import { freshPoller } from "./fresh-poll.ts";
import { stopAll } from "./processes.ts";
import { redisSnapshot, redisWork } from "./redis-counter.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PAGES = Number(process.env.PAGES ?? 10_000);
const EDITS = Number(process.env.EDITS ?? 40);
const WARMUP = Number(process.env.WARMUP ?? 2);
const IDLE_SECONDS = 5;
const NEXT = process.env.NEXT !== "0";
const REVALIDATE = process.env.NEXT_REVALIDATE ?? "path";
const PRERENDER = process.env.NEXT_PRERENDER ?? "all";
const tmp = process.env.TMPDIR ?? join(ROOT, ".tmp");
const repo = join(tmp, `bench-full-build-${PAGES}`, "repo"); // shared with the other benchmarks
const work = join(tmp, `bench-edit-live-${PAGES}`);
const secret = "bench-edit-live-webhook-secret";
const command = [
  PAGES === 10_000 ? "" : `PAGES=${PAGES}`,
  EDITS === 40 ? "" : `EDITS=${EDITS}`,
  NEXT ? "" : "NEXT=0",
  REVALIDATE === "path" ? "" : `NEXT_REVALIDATE=${REVALIDATE}`,
  PRERENDER === "all" ? "" : `NEXT_PRERENDER=${PRERENDER}`,
  "npm run bench:edit-live",
]
  .filter(Boolean)
  .join(" ");

ensureGeneratedRepository(repo, PAGES, 20);
rmSync(work, { recursive: true, force: true });
const redisServer = await startOwnRedis();
const redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
const poller = freshPoller();
let next: NextSide = { ok: false, reason: "NEXT=0" };
let closePressroom = async () => {};
try {
  const [pressContent, nextContent] = await Promise.all([
    startContentService("Pressroom's", repo, join(work, "content-pressroom")),
    NEXT ? startContentService("Next's", repo, join(work, "content-next")) : undefined,
  ]);
  const pressroom = await startPressroomSide({
    content: pressContent,
    redis,
    redisUrl: redisServer.url,
    prefix: `bench-edit-live-${process.pid}`,
    secret,
    siteDir: join(work, "site"),
  });
  closePressroom = pressroom.close;
  console.log(
    `Pressroom: the worker's first build of ${PAGES} pages took ${pressroom.firstBuildSeconds.toFixed(1)} s`,
  );
  if (nextContent)
    next = await startNextSide({
      content: nextContent,
      dir: join(tmp, "bench-edit-live-next"),
      secret,
      revalidate: REVALIDATE,
      prerender: PRERENDER,
    });
  if (next.ok)
    console.log(`Next ${next.peer.version}: next build took ${next.peer.buildSeconds.toFixed(1)} s`);
  else console.log(`\n*** Next 16 is not measured in this run: ${next.reason}\n`);

  // Distinct pages spread over the first hundred, never home (its route is / on both systems).
  const client = localContentClient(pressContent.endpoint, { timeoutMs: 30_000 });
  const docs = (
    await client.get({
      ref: await client.fetchMasterRef(),
      pageSize: 100,
      filters: ['[at(document.type, "page")]'],
    })
  ).results.filter((doc) => doc.uid !== "home") as PrismicDocument[];
  if (WARMUP + EDITS > docs.length) throw new Error(`WARMUP + EDITS must be at most ${docs.length}`);
  const targets = Array.from(
    { length: WARMUP + EDITS },
    (_, i) => docs[(i * 7) % docs.length] as PrismicDocument,
  );
  if (next.ok && PRERENDER === "none") for (const doc of targets) await next.visit(`/${doc.uid}`);
  const floor = await floorMeter(pressContent, join(work, "floor-site"));

  // What Redis does with nothing to publish (BullMQ's workers waiting, the worker's periodic checks):
  // the background any edit's counts may catch a little of.
  await pressroom.jobsAdded();
  const idleFrom = await redisSnapshot(redis);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const idle = redisWork(idleFrom, await redisSnapshot(redis));
  const idleJobs = await pressroom.jobsAdded(); // a reconcile round (every 5 minutes) may fall in the window

  const rows: EditRow[] = [];
  for (const [i, doc] of targets.entries()) {
    const route = `/${doc.uid}`;
    const edited = (system: string) => {
      const marker = `Edit-live ${i} on ${system}: ${doc.uid}`;
      return { marker, doc: { ...doc, data: { ...doc.data, meta_description: marker } } as PrismicDocument };
    };
    let pressroomEdit: EditRow["pressroom"] | undefined;
    let nextEdit: Omit<NonNullable<EditRow["next"]>, "requests"> | undefined;
    // Alternate which system goes first, so that neither always meets the other's aftermath.
    for (const system of i % 2 === 0 ? ["pressroom", "next"] : ["next", "pressroom"]) {
      const { marker, doc: version } = edited(system);
      if (system === "pressroom") pressroomEdit = await pressroom.edit(version, route, marker, poller);
      else if (next.ok) {
        await next.requestsSince();
        nextEdit = await next.edit(version, route, marker, poller);
      }
    }
    const floorEdit = await floor(route);
    const nextRequests = next.ok ? await next.requestsSince() : 0;
    if (i < WARMUP || !pressroomEdit) continue;
    rows.push({
      uid: doc.uid as string,
      pressroom: pressroomEdit,
      ...(nextEdit ? { next: { ...nextEdit, requests: nextRequests } } : {}),
      floor: floorEdit,
    });
  }
  const nextName = next.ok
    ? `Next ${next.peer.version} (revalidate: ${REVALIDATE}, prerender: ${PRERENDER})`
    : "no Next";
  printReport(
    rows,
    `Edit → live, ${PAGES} pages, ${rows.length} edits per system after ${WARMUP} warm-up edits, alternating; Pressroom vs ${nextName}; Node ${process.version}`,
    { work: idle, seconds: IDLE_SECONDS, jobs: idleJobs },
    command,
  );
} finally {
  poller.close();
  await closePressroom();
  if (next.ok) await next.close();
  await redis.quit();
  await stopAll();
  await redisServer.stop();
}
