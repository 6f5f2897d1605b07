import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { createFailFastQueue } from "#jobs/fail-fast-queue.ts";

/**
 * A producer (the site server's contact queue, the webhook receiver's) closed right after it
 * connected, with BullMQ's version check (INFO) in flight: the check used to fail after close had
 * removed every listener, an unhandled rejection that fails the process or the test run (21 of 30
 * closes 1 ms after creation; seen in CI from edge-errors.test.ts). Real Redis on 127.0.0.1:6379;
 * a port nothing listens on for Redis away.
 */
const logger = pino({ level: "silent" });
const unhandled: unknown[] = [];
const record = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", record);
afterAll(() => {
  process.off("unhandledRejection", record);
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a fail-fast queue closed as it starts", () => {
  it("leaves no unhandled rejection, whenever it is closed after creation", async () => {
    for (const delay of [0, 1, 1, 2, 2, 3, 5, 10]) {
      for (let i = 0; i < 5; i++) {
        const producer = createFailFastQueue({
          redisUrl: "redis://127.0.0.1:6379",
          queuePrefix: `test-ff-close-${process.pid}-${delay}-${i}`,
          logger,
        });
        if (delay) await pause(delay);
        await producer.close();
      }
    }
    // A rejection is reported after the microtasks of its turn: give the last closes time.
    await pause(200);
    expect(unhandled.map(String)).toEqual([]);
  });

  it("with Redis away, closes (the wait is bounded) and leaves nothing behind", async () => {
    unhandled.length = 0;
    const producer = createFailFastQueue({
      redisUrl: "redis://127.0.0.1:1",
      queuePrefix: `test-ff-close-${process.pid}-away`,
      logger,
    });
    await producer.close();
    await pause(200); // as above: a late rejection would be reported within this time
    expect(unhandled.map(String)).toEqual([]);
  });
});
