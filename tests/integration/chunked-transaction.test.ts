/**
 * The dependency index's writes (a publish's commit, a build's replace) are one MULTI … EXEC, sent
 * in chunks when large so the worker never holds 40,000 queued commands. Real Redis: a reader sees
 * all of a transaction or none of it, and a transaction that fails part-way applies nothing.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  execTransaction,
  type RedisCommand,
  TRANSACTION_CHUNK_CHARS,
} from "#worker/publish/chunked-transaction.ts";
import { removeKeysUnder } from "../support/redis-keys.ts";

const PREFIX = `test-chunked-tx-${process.pid}-${Date.now()}`;
let redis: Redis;
let reader: Redis;

beforeAll(() => {
  redis = new Redis({ maxRetriesPerRequest: null });
  reader = new Redis({ maxRetriesPerRequest: null });
});

afterAll(async () => {
  await removeKeysUnder(redis, PREFIX);
  await redis.quit();
  await reader.quit();
});

const fields = (key: string, n: number): RedisCommand[] =>
  Array.from({ length: n }, (_, i) => ["hset", key, `f${i}`, `v${i}`]);

describe("execTransaction", () => {
  it("applies a small transaction on the caller's connection", async () => {
    const key = `${PREFIX}:small`;
    await execTransaction(redis, [["sadd", `${key}:set`, "a", "b"], ...fields(key, 5)], 10);
    expect(await redis.hlen(key)).toBe(5);
    expect(await redis.smembers(`${key}:set`)).toEqual(expect.arrayContaining(["a", "b"]));
  });

  it("applies a large one in chunks, none of it visible before EXEC", async () => {
    const key = `${PREFIX}:large`;
    const seenBetweenChunks: Promise<number>[] = [];
    function* commands(): Generator<RedisCommand> {
      for (let i = 0; i < 25; i++) {
        // Built as the previous chunks are queued: a reader asks now, Redis answers before EXEC.
        if (i % 10 === 0 && i > 0) seenBetweenChunks.push(reader.hlen(key));
        yield ["hset", key, `f${i}`, `v${i}`];
      }
    }
    await execTransaction(redis, commands(), 10);
    expect(await Promise.all(seenBetweenChunks)).toEqual([0, 0]);
    expect(await redis.hlen(key)).toBe(25);
    expect(await redis.hget(key, "f24")).toBe("v24");
  });

  it("holds at most TRANSACTION_CHUNK_CHARS of arguments before sending them, however few the commands", async () => {
    const key = `${PREFIX}:wide`;
    const value = "x".repeat(600_000); // a HSET of 100 index entries is ~100 KB; these are larger
    const queuedAt: Promise<number>[] = [];
    /** Commands Redis holds in a MULTI now (CLIENT LIST's `multi=`, -1 outside one). */
    const queued = async () =>
      Math.max(
        ...[...String(await reader.client("LIST")).matchAll(/ multi=(-?\d+)/g)].map((m) => Number(m[1])),
      );
    function* commands(): Generator<RedisCommand> {
      for (let i = 0; i < 12; i++) {
        if (i === 8) queuedAt.push(queued());
        yield ["hset", key, `f${i}`, value];
      }
    }
    expect(TRANSACTION_CHUNK_CHARS).toBeLessThan(4 * value.length);
    await execTransaction(redis, commands());
    // The first four (2.4 M characters) were sent before the ninth was made.
    expect((await Promise.all(queuedAt))[0]).toBeGreaterThanOrEqual(4);
    expect(await redis.hlen(key)).toBe(12);
    await redis.del(key);
  });

  it("applies nothing when Redis refuses a command of a later chunk (EXECABORT)", async () => {
    const key = `${PREFIX}:refused`;
    await redis.hset(key, "kept", "before");
    const commands: RedisCommand[] = [...fields(key, 15), ["hset", key], ...fields(`${key}:more`, 5)];
    await expect(execTransaction(redis, commands, 10)).rejects.toThrow(/EXECABORT|wrong number/);
    expect(await redis.hgetall(key)).toEqual({ kept: "before" });
    expect(await redis.exists(`${key}:more`)).toBe(0);
  });

  it("applies nothing when building the commands fails part-way, and the caller's connection still works", async () => {
    const key = `${PREFIX}:thrown`;
    function* commands(): Generator<RedisCommand> {
      yield* fields(key, 12);
      throw new Error("the index entry could not be serialised");
    }
    await expect(execTransaction(redis, commands(), 10)).rejects.toThrow(/could not be serialised/);
    expect(await redis.exists(key)).toBe(0);
    expect(await redis.ping()).toBe("PONG");
  });

  it("reports a command that failed inside EXEC (a key of the wrong type)", async () => {
    const key = `${PREFIX}:wrongtype`;
    await redis.set(key, "a string");
    await expect(execTransaction(redis, [["sadd", key, "x"]], 10)).rejects.toThrow(/WRONGTYPE/);
    await expect(execTransaction(redis, [...fields(`${key}:h`, 12), ["sadd", key, "x"]], 10)).rejects.toThrow(
      /WRONGTYPE/,
    );
  });

  describe("with a guard (a publish's generation)", () => {
    const generation = `${PREFIX}:generation`;
    const guard = (atMost: number) => ({
      key: generation,
      atMost,
      refused: () => new Error(`generation ${atMost} was superseded`),
    });

    it("applies while the guard holds, small or large", async () => {
      await redis.set(generation, "5");
      await execTransaction(redis, fields(`${PREFIX}:guarded-small`, 3), 10, guard(5));
      await execTransaction(redis, fields(`${PREFIX}:guarded-large`, 25), 10, guard(5));
      expect(await reader.hlen(`${PREFIX}:guarded-small`)).toBe(3);
      expect(await reader.hlen(`${PREFIX}:guarded-large`)).toBe(25);
    });

    it("applies nothing once a newer generation started", async () => {
      await redis.set(generation, "6");
      const key = `${PREFIX}:guarded-late`;
      await expect(execTransaction(redis, fields(key, 3), 10, guard(5))).rejects.toThrow(/superseded/);
      expect(await reader.exists(key)).toBe(0);
    });

    it("applies nothing when a newer generation starts while the transaction is being queued", async () => {
      await redis.set(generation, "7");
      const key = `${PREFIX}:guarded-raced`;
      const other = new Redis({ maxRetriesPerRequest: null });
      // A paused worker's commit, still being sent when another worker takes over (its INCR).
      function* commands(): Generator<RedisCommand> {
        yield* fields(key, 10);
        void other.incr(generation);
        yield* fields(key, 10).map(([name, hash, field]) => [name, hash, `${field}b`, "x"] as RedisCommand);
      }
      try {
        await expect(execTransaction(redis, commands(), 10, guard(7))).rejects.toThrow(/superseded/);
      } finally {
        await other.quit();
      }
      expect(await reader.get(generation)).toBe("8");
      expect(await reader.exists(key)).toBe(0);
    });
  });
});
