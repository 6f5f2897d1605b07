/**
 * waitForChildren on real Redis and BullMQ: the publish of a large fan-out waits for its child jobs
 * with it, and shrinks each child's outcome as it arrives (`keep`: the dependency pool).
 */
import { Queue, QueueEvents, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForChildren } from "#worker/publish/wait-for-children.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const PREFIX = `test-wait-children-${process.pid}-${Date.now()}`;
const NAME = "children";
const connection = new Redis({ maxRetriesPerRequest: null });
const eventsConnection = new Redis({ maxRetriesPerRequest: null });
let queue: Queue;
let events: QueueEvents;
let worker: Worker;

beforeAll(async () => {
  queue = new Queue(NAME, { connection, prefix: PREFIX });
  events = new QueueEvents(NAME, { connection: eventsConnection, prefix: PREFIX });
  await events.waitUntilReady();
  // Each child returns its routes, the last one after the others (results arrive out of order).
  worker = new Worker(
    NAME,
    async (job) => {
      if (job.data.slow) await new Promise((resolve) => setTimeout(resolve, 300)); // finishes last
      return { routes: job.data.routes as string[] };
    },
    { connection: connection.duplicate(), prefix: PREFIX, concurrency: 4 },
  );
});

afterAll(async () => {
  await worker.close();
  await events.close();
  await queue.close();
  await removeKeysUnder(connection, `${PREFIX}:`);
  connection.disconnect();
  eventsConnection.disconnect();
});

describe("waitForChildren", () => {
  it("passes each result through keep as it arrives and answers them in the jobs' order", async () => {
    const jobs = await queue.addBulk([
      { name: "batch", data: { routes: ["/a"], slow: true } },
      { name: "batch", data: { routes: ["/b", "/c"] } },
      { name: "batch", data: { routes: [] } },
    ]);
    const kept: string[][] = [];
    const results = await waitForChildren<{ routes: string[] }>(queue, events, jobs, {
      keep: (result) => {
        kept.push(result.routes);
        return { routes: result.routes.map((route) => route.toUpperCase()) };
      },
    });
    expect(results).toEqual([{ routes: ["/A"] }, { routes: ["/B", "/C"] }, { routes: [] }]);
    expect(kept).toHaveLength(3);
  });

  it("still gets every result when no completion event arrives (the poll's sweep, in queue order)", async () => {
    // Events of another queue: none of these children's events ever reach the wait.
    const deafConnection = eventsConnection.duplicate();
    const deaf = new QueueEvents(`${NAME}-other`, {
      connection: deafConnection,
      prefix: PREFIX,
    });
    await deaf.waitUntilReady();
    try {
      const jobs = await queue.addBulk([
        { name: "batch", data: { routes: ["/x"], slow: true } },
        { name: "batch", data: { routes: ["/y"] } },
      ]);
      const results = await waitForChildren<{ routes: string[] }>(queue, deaf, jobs);
      expect(results).toEqual([{ routes: ["/x"] }, { routes: ["/y"] }]);
    } finally {
      await deaf.close();
      deafConnection.disconnect();
    }
  });

  it("fails with keep's error on a result keep cannot take, instead of waiting out the time limit", async () => {
    const jobs = await queue.addBulk([{ name: "batch", data: { routes: ["/a"] } }]);
    await expect(
      waitForChildren<{ routes: string[] }>(queue, events, jobs, {
        timeoutMs: 60_000,
        keep: () => {
          throw new Error("not a batch outcome");
        },
      }),
    ).rejects.toThrow("not a batch outcome"); // the time limit says "child jobs not finished after"
  });

  describe("children no worker runs: a wait ends when told", () => {
    const idleConnection = connection.duplicate();
    const idle = new Queue(`${NAME}-idle`, { connection: idleConnection, prefix: PREFIX });
    afterAll(async () => {
      await idle.close();
      idleConnection.disconnect();
    });

    it("fails at once with the shutdown's reason when its signal aborts", async () => {
      const jobs = await idle.addBulk([{ name: "batch", data: { routes: ["/a"] } }]);
      const shutdown = new AbortController();
      const waiting = waitForChildren(idle, events, jobs, { timeoutMs: 60_000, signal: shutdown.signal });
      setTimeout(() => shutdown.abort(new Error("the worker is shutting down")), 100);
      await expect(waiting).rejects.toThrow("the worker is shutting down");
    });

    it("fails with the error `check` answers (children delayed by a long 429), within a poll", async () => {
      const jobs = await idle.addBulk([{ name: "batch", data: { routes: ["/a"] } }]);
      let checks = 0;
      const waiting = waitForChildren(idle, events, jobs, {
        timeoutMs: 60_000,
        check: async () => (++checks >= 2 ? new Error("the content API asks to wait an hour") : undefined),
      });
      await expect(waiting).rejects.toThrow("the content API asks to wait an hour");
      expect(checks).toBe(2);
    });
  });
});
