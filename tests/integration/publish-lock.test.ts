import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withLock, withLockWhilePending } from "#worker/publish/lock.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

/**
 * The publish lock on a real Redis: one publish at a time across worker processes, and a delivery
 * whose ids are already taken finishes without waiting for anyone (worker.ts).
 */
const prefix = `test-publish-lock-${process.pid}-${Date.now()}`;
const lockKey = `${prefix}:lock`;
const pendingIds = `${prefix}:pending-ids`;
const pendingRefs = `${prefix}:pending-refs`;
let redis: Redis;

beforeAll(() => {
  redis = new Redis("redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
});

afterAll(async () => {
  await removeKeysUnder(redis, prefix);
  await redis.quit();
});

const reset = () => redis.del(lockKey, pendingIds, pendingRefs);

/**
 * Another process's publish: holds the lock from now until the answer is called, then runs `last`
 * (what its publish did to the pending sets) and releases the lock.
 */
async function holdLock(last: () => Promise<unknown>): Promise<() => void> {
  let release = () => {};
  await new Promise<void>((running) => {
    void withLock(redis, lockKey, async () => {
      running();
      await new Promise<void>((done) => {
        release = done;
      });
      await last();
    });
  });
  return release;
}

describe("withLockWhilePending", () => {
  it("runs nothing and takes no lock when no set has a member", async () => {
    await reset();
    let ran = false;
    const answer = await withLockWhilePending(redis, lockKey, [pendingIds, pendingRefs], async () => {
      ran = true;
      return "published";
    });
    expect(answer).toBeUndefined();
    expect(ran).toBe(false);
    expect(await redis.exists(lockKey)).toBe(0);
  });

  it("holds the lock while the task runs when any set has a member, and releases it after", async () => {
    await reset();
    await redis.sadd(pendingRefs, "REF-1");
    const answer = await withLockWhilePending(redis, lockKey, [pendingIds, pendingRefs], async () => {
      expect(await redis.exists(lockKey)).toBe(1);
      // Another process finds it held.
      expect(await redis.set(lockKey, "other", "PX", 1000, "NX")).toBeNull();
      return "published";
    });
    expect(answer).toBe("published");
    expect(await redis.exists(lockKey)).toBe(0);
  });

  it("waits for the holder, then stops without the lock once the holder took the ids", async () => {
    await reset();
    await redis.sadd(pendingIds, "doc-a");
    const releaseHolder = await holdLock(() => redis.del(pendingIds)); // its publish took doc-a
    let ran = false;
    const waiter = withLockWhilePending(redis, lockKey, [pendingIds, pendingRefs], async () => {
      ran = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 150)); // three tries, all finding it held
    expect(ran).toBe(false);
    releaseHolder();
    expect(await waiter).toBeUndefined();
    expect(ran).toBe(false);
    expect(await redis.exists(lockKey)).toBe(0);
  });

  it("waits for the holder, then publishes what is still pending", async () => {
    await reset();
    await redis.sadd(pendingIds, "doc-b");
    // doc-c arrives while it runs: left for the next publish.
    const releaseHolder = await holdLock(() => redis.sadd(pendingIds, "doc-c"));
    const order: string[] = [];
    const waiter = withLockWhilePending(redis, lockKey, [pendingIds, pendingRefs], async () => {
      order.push("waiter");
      return redis.smembers(pendingIds);
    });
    await new Promise((resolve) => setTimeout(resolve, 120)); // the holder's publish lasts a while
    order.push("holder done");
    releaseHolder();
    expect((await waiter)?.sort()).toEqual(["doc-b", "doc-c"]);
    expect(order).toEqual(["holder done", "waiter"]);
  });
});
