import { spawnSync } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { removeKeysOfEndedRuns, removeKeysUnder } from "../support/redis-keys.ts";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
// A name of this run's own (lowercase letters only, as benchmarks' names are): its pid spelled a–j.
const name = `leftovers-test-${[...String(process.pid)].map((d) => String.fromCharCode(97 + Number(d))).join("")}`;

describe("a benchmark's start removes what ended runs left in Redis", () => {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  // A process that has ended (its pid names no process any more) and this one.
  const ended = spawnSync(process.execPath, ["-e", ""]).pid as number;
  const running = process.pid;
  // Whatever a failing test left.
  afterAll(async () => {
    for (const pid of [ended, running]) await removeKeysUnder(redis, `${name}-${pid}`);
    await redis.del(`${name}-${ended}-extra`);
    await redis.quit();
  });

  it("removes the keys of a run whose process has ended and keeps a running one's", async () => {
    for (const pid of [ended, running])
      for (let i = 0; i < 2_500; i += 500)
        await redis.mset(
          ...Array.from({ length: 500 }, (_, j) => [`${name}-${pid}:index:docs:${i + j}`, "x"]).flat(),
        );
    await redis.set(`${name}-${ended}-extra`, "not a run's key: no colon after the pid");

    expect(await removeKeysOfEndedRuns(redis, `${name}-${running}`)).toEqual([`${name}-${ended}`]);

    expect(await redis.keys(`${name}-${ended}:*`)).toEqual([]);
    expect((await redis.keys(`${name}-${running}:*`)).length).toBe(2_500);
    expect(await redis.get(`${name}-${ended}-extra`)).toBe("not a run's key: no colon after the pid");
  });

  it("refuses a prefix whose name a SCAN pattern or the pattern of a prefix would read otherwise", async () => {
    await expect(removeKeysOfEndedRuns(redis, `bench-*-${running}`)).rejects.toThrow(/lowercase words/);
  });
});
