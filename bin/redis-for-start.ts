import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { Redis } from "ioredis";
import type { Logger } from "#logger";

export interface RedisForStart {
  url: string;
  /** Set when Pressroom started a private redis-server that must be stopped with it. */
  stop?: () => void;
}

/**
 * Redis for the one-command start: the configured one if it answers; otherwise a private
 * `redis-server` (no persistence, `noeviction` as BullMQ requires) when one is installed;
 * otherwise undefined, and the caller starts without live publishing.
 */
export async function redisForStart(url: string, logger: Logger): Promise<RedisForStart | undefined> {
  if (await answers(url)) return { url };
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status !== 0) return undefined;
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--maxmemory-policy",
      "noeviction",
    ],
    { stdio: "ignore" },
  );
  const privateUrl = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await answers(privateUrl)) {
      logger.warn(
        { url, privateUrl },
        `nothing answered at ${url}; started a private redis-server for this session`,
      );
      return { url: privateUrl, stop: () => child.kill("SIGTERM") };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  return undefined;
}

async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
