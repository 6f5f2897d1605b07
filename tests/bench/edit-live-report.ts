import type { PressroomEdit } from "./edit-live-pressroom.ts";
import { addPerCommand, type RedisWork } from "./redis-counter.ts";

/** One measured edit of `npm run bench:edit-live`: the same page edited on each system, and the floor. */
export interface EditRow {
  uid: string;
  pressroom: PressroomEdit;
  next?: {
    ms: number;
    webhookMs: number;
    lastPollMs: number;
    slowestPollMs: number;
    requestsUntilFresh: number;
    requests: number;
  };
  floor: { ms: number; requests: number };
}

/** Nearest-rank percentile (as bench:publish-latency computes them). */
export const pct = (list: number[], p: number): number =>
  [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] ??
  Number.NaN;

const ms = (value: number) => (Number.isNaN(value) ? "–" : `${value.toFixed(value < 10 ? 1 : 0)} ms`);
const spread = (list: number[]) =>
  list.length === 0 ? "–" : `${pct(list, 0)} / ${pct(list, 50)} / ${Math.max(...list)}`;

export function printReport(
  rows: EditRow[],
  header: string,
  idle: { work: RedisWork; seconds: number; jobs: Map<string, number> },
  command: string,
): void {
  const p = rows.map((row) => row.pressroom);
  const n = rows.flatMap((row) => (row.next ? [row.next] : []));
  const latency = (name: string, list: number[]) =>
    console.log(`| ${name} | ${ms(pct(list, 50))} | ${ms(pct(list, 95))} | ${ms(pct(list, 99))} |`);
  console.log(`\n${header}`);
  console.log(
    "| webhook POST → page served fresh (polled every 5 ms) | p50 | p95 | p99 |\n|---|---|---|---|",
  );
  const lines: [string, number[] | undefined][] = [
    ["Pressroom (receiver → queue → worker → folder → site server)", p.map((e) => e.ms)],
    [
      "Next 16 (route handler → on-demand revalidation → next start)",
      n.length ? n.map((e) => e.ms) : undefined,
    ],
    ["floor: fetch + render + write, one process (no webhook, queue or server)", rows.map((r) => r.floor.ms)],
    ["Pressroom: webhook answered (200)", p.map((e) => e.webhookMs)],
    ["Next 16: webhook answered (200)", n.length ? n.map((e) => e.webhookMs) : undefined],
    ["Pressroom: the GET that came back fresh", p.map((e) => e.lastPollMs)],
    [
      "Next 16: the GET that came back fresh (with revalidatePath, the page's render)",
      n.length ? n.map((e) => e.lastPollMs) : undefined,
    ],
    ["Pressroom: the slowest GET while polling", p.map((e) => e.slowestPollMs)],
    ["Next 16: the slowest GET while polling", n.length ? n.map((e) => e.slowestPollMs) : undefined],
  ];
  for (const [name, list] of lines) if (list) latency(name, list);
  const pressP50 = pct(
    p.map((e) => e.ms),
    50,
  );
  if (n.length > 0)
    console.log(
      `\nPressroom p50 / Next p50 = **${(
        pressP50 /
          pct(
            n.map((e) => e.ms),
            50,
          )
      ).toFixed(2)}×** (goal ≤ 0.4×, ≈ 20 ms)`,
    );
  console.log(
    `Pressroom p50 / floor p50 = ${(
      pressP50 /
        pct(
          rows.map((r) => r.floor.ms),
          50,
        )
    ).toFixed(2)}×`,
  );

  console.log(
    "\nCounted per edit (min / median / max over the edits):\n| what | until fresh | whole edit |\n|---|---|---|",
  );
  const row = (name: string, untilFresh: number[], whole: number[]) =>
    console.log(`| ${name} | ${spread(untilFresh)} | ${spread(whole)} |`);
  row(
    "Pressroom: content API requests",
    p.map((e) => e.requestsUntilFresh),
    p.map((e) => e.requests),
  );
  row(
    "Pressroom: Redis commands (inside MULTI and Lua included)",
    p.map((e) => e.redisUntilFresh.commands),
    p.map((e) => e.redis.commands),
  );
  row(
    "Pressroom: Redis round trips (read events)",
    p.map((e) => e.redisUntilFresh.roundTrips),
    p.map((e) => e.redis.roundTrips),
  );
  row(
    "Pressroom: Lua scripts (EVALSHA)",
    p.map((e) => e.redisUntilFresh.scripts),
    p.map((e) => e.redis.scripts),
  );
  const jobs = (e: PressroomEdit) => [...e.jobs.values()].reduce((a, b) => a + b, 0);
  row("Pressroom: BullMQ jobs added (hand-offs)", [], p.map(jobs));
  row(
    "Pressroom: routes rendered",
    [],
    p.map((e) => e.summary.rendered ?? 0),
  );
  row(
    "Pressroom: objects written",
    [],
    p.map((e) => e.summary.written ?? 0),
  );
  if (n.length > 0)
    row(
      "Next 16: content API requests",
      n.map((e) => e.requestsUntilFresh),
      n.map((e) => e.requests),
    );
  row(
    "floor: content API requests",
    [],
    rows.map((r) => r.floor.requests),
  );
  const queues = new Map<string, number>();
  for (const e of p) for (const [name, count] of e.jobs) queues.set(name, (queues.get(name) ?? 0) + count);
  console.log(
    `jobs added, all edits: ${[...queues].map(([name, count]) => `${name} ${count}`).join(", ") || "none"}`,
  );
  const perCommand = new Map<string, number>();
  for (const e of p) addPerCommand(perCommand, e.redis);
  const byName = (calls: Map<string, number>, per: number) =>
    [...calls]
      .sort((a, b) => b[1] - a[1])
      .map(([name, count]) => `${name} ${(count / per).toFixed(1)}`)
      .join(", ");
  console.log(`Redis commands per edit, by name (whole edit, mean): ${byName(perCommand, p.length)}`);
  console.log(
    `Redis while idle (${idle.seconds} s before the edits, nothing to publish${idle.jobs.size > 0 ? `; jobs added meanwhile: ${[...idle.jobs].map(([queue, count]) => `${count} ${queue}`).join(", ")}` : ""}): ${(idle.work.commands / idle.seconds).toFixed(1)} commands/s, ${(idle.work.roundTrips / idle.seconds).toFixed(1)} round trips/s: ${byName(idle.work.perCommand, idle.seconds)}`,
  );

  printSteps(p);
  console.log(
    "\nEach edit (ms; Pressroom: requests / Redis commands / round trips / jobs / rendered / written):",
  );
  console.log(
    "| # | page | Pressroom (slowest GET) | counts | Next (slowest GET) | Next requests | floor |\n|---|---|---|---|---|---|---|",
  );
  rows.forEach((r, i) => {
    const e = r.pressroom;
    // A job on another queue than publish's (a reconcile round, child jobs) is named: it is not the edit's.
    const others = [...e.jobs]
      .filter(([queue]) => queue !== "pressroom")
      .map(([queue, count]) => ` (${count} ${queue})`);
    const counts = `${e.requests} / ${e.redis.commands} / ${e.redis.roundTrips} / ${jobs(e)}${others.join("")} / ${e.summary.rendered} / ${e.summary.written}`;
    console.log(
      `| ${i + 1} | ${r.uid} | ${e.ms.toFixed(1)} (${e.slowestPollMs.toFixed(0)}) | ${counts} | ${r.next ? `${r.next.ms.toFixed(1)} (${r.next.slowestPollMs.toFixed(0)})` : "–"} | ${r.next?.requests ?? "–"} | ${r.floor.ms.toFixed(1)} |`,
    );
  });
  console.log(`\ncommand: ${command}`);
}

/** Where Pressroom's time goes: the queue's timestamps and the publish's own step timings (its summary). */
function printSteps(edits: PressroomEdit[]): void {
  const steps = new Map<string, number[]>();
  const add = (name: string, value: number | undefined) => {
    if (value === undefined || Number.isNaN(value)) return;
    steps.set(name, [...(steps.get(name) ?? []), value]);
  };
  for (const e of edits) {
    const { startedAt, timings = {} } = e.summary;
    if (e.jobAddedAt)
      add("webhook POST → job added (receiver: secret, ids recorded, job added)", e.jobAddedAt - e.sentAt);
    if (e.jobAddedAt && e.jobTakenAt)
      add("job added → taken by the worker (BullMQ)", e.jobTakenAt - e.jobAddedAt);
    if (e.jobTakenAt && startedAt) add("taken → publish starts (the publish lock)", startedAt - e.jobTakenAt);
    for (const [name, value] of Object.entries(timings))
      add(name === "ownDone" ? "publish: start → own page written (ownDone)" : `publish: ${name}`, value);
    if (startedAt && timings.ownDone !== undefined)
      add(
        "own page written → served fresh (site server, next 5 ms poll)",
        e.seenAt - (startedAt + timings.ownDone),
      );
  }
  console.log("\nWhere Pressroom's time goes (ms; the worker's steps overlap where its docs say so):");
  console.log("| step | p50 | p95 |\n|---|---|---|");
  for (const [name, list] of steps)
    console.log(`| ${name} | ${pct(list, 50).toFixed(1)} | ${pct(list, 95).toFixed(1)} |`);
}
