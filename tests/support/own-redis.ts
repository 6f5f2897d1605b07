import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { Redis } from "ioredis";
import { freePort } from "./free-port.ts";
import { tempDir } from "./temp-dir.ts";
import { until } from "./until.ts";

/**
 * A private `redis-server` on a free loopback port, for tests that kill it or lose its data
 * (never the shared one on 6379). No persistence: a restart comes back empty, as a Redis without
 * AOF/RDB (or a failover to an empty replica) does.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILL, as `kill -9`: whatever was in memory is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = await tempDir("own-redis");
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.path],
      { stdio: "ignore" },
    );
    const probe = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null });
    // A refused connect while the server starts is expected and retried below; without a listener
    // ioredis prints it as an "Unhandled error event".
    probe.on("error", () => {});
    try {
      await until(
        "redis-server to answer",
        async () => {
          await probe.connect();
          return (await probe.ping()) === "PONG";
        },
        { timeoutMs: 5_000, intervalMs: 25, ignoreErrors: true },
      );
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: start,
    stop: async () => {
      await kill();
      await dir.remove();
    },
  };
}
