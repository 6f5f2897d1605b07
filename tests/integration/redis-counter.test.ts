import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisSnapshot, redisWork } from "../bench/redis-counter.ts";
import { type OwnRedis, startOwnRedis } from "../support/own-redis.ts";

/**
 * What `npm run bench:edit-live` reports as a publish's Redis commands and round trips rests on how
 * redis-server counts them (docs/benchmarks.md, "Edit → live against Next 16"): checked here on the
 * redis-server this machine runs, a private one so that nothing else adds to its counters.
 */
describe("Redis work counted from the server's own counters", () => {
  let server: OwnRedis;
  let redis: Redis;
  beforeAll(async () => {
    server = await startOwnRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    await redis.quit();
    await server.stop();
  });

  const measure = async (work: () => Promise<unknown>) => {
    const before = await redisSnapshot(redis);
    await work();
    return redisWork(before, await redisSnapshot(redis));
  };

  it("counts the commands a Lua script calls, and the script as one round trip", async () => {
    const work = await measure(() =>
      redis.eval(
        "redis.call('set', KEYS[1], '1'); redis.call('get', KEYS[1]); return redis.call('get', KEYS[1])",
        1,
        "k",
      ),
    );
    expect(work).toMatchObject({ commands: 4, roundTrips: 1, scripts: 1 });
    expect(Object.fromEntries(work.perCommand)).toEqual({ eval: 1, set: 1, get: 2 });
  });

  it("counts a MULTI … EXEC with its commands, sent as one round trip", async () => {
    const work = await measure(() => redis.multi().set("k", "1").get("k").get("k").exec());
    expect(work).toMatchObject({ commands: 5, roundTrips: 1, scripts: 0 });
  });

  it("counts a pipeline as one round trip, and awaited commands one each", async () => {
    expect(await measure(() => redis.pipeline().set("k", "1").get("k").get("k").exec())).toMatchObject({
      commands: 3,
      roundTrips: 1,
    });
    expect(
      await measure(async () => {
        await redis.get("k");
        await redis.get("k");
      }),
    ).toMatchObject({ commands: 2, roundTrips: 2 });
  });

  it("takes off the snapshots polled in between", async () => {
    const before = await redisSnapshot(redis);
    await redis.get("k");
    await redisSnapshot(redis);
    await redisSnapshot(redis);
    const work = redisWork(before, await redisSnapshot(redis), 3);
    expect(work).toMatchObject({ commands: 1, roundTrips: 1 });
    expect(Object.fromEntries(work.perCommand)).toEqual({ get: 1 });
  });
});
