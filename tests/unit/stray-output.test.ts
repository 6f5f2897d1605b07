import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "#logger";
import { routeStrayOutput } from "#ops/stray-output.ts";
import { WarnLimiter } from "#warn-limiter";

/** A logger writing JSON lines into `lines`. */
function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ name: "test", level: "info", destination }) };
}

let undo: (() => void) | undefined;
afterEach(() => {
  undo?.();
  undo = undefined;
});

describe("routeStrayOutput: what libraries print becomes JSON log lines, a few per kind", () => {
  it("logs ioredis' and BullMQ's console output as warnings, the first of each kind per interval", async () => {
    const { lines, logger } = capture();
    let now = 0;
    undo = routeStrayOutput(logger, new WarnLimiter(60_000, () => now));
    // What ioredis prints for a connection without an error listener, at every reconnect attempt.
    for (let attempt = 0; attempt < 50; attempt++)
      console.error(
        "[ioredis] Unhandled error event:",
        `Error: connect ECONNREFUSED 127.0.0.1:${6000 + attempt}`,
      );
    // BullMQ's console.error(err) of an emitter without an error listener.
    console.error(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" }));
    console.warn('IMPORTANT! Eviction policy is allkeys-lru. It should be "noeviction"');
    now = 61_000;
    console.error("[ioredis] Unhandled error event:", "Error: connect ECONNREFUSED 127.0.0.1:6379");
    await new Promise((resolve) => setImmediate(resolve));

    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map((r) => [r.level, r.source, r.suppressed, String(r.msg).slice(0, 41)])).toEqual([
      [40, "console", 0, "[ioredis] Unhandled error event: Error: c"],
      [40, "console", 0, "Error: connect ECONNREFUSED 127.0.0.1:637"],
      [40, "console", 0, "IMPORTANT! Eviction policy is allkeys-lru"],
      [40, "console", 49, "[ioredis] Unhandled error event: Error: c"],
    ]);
  });

  it("logs Node's process warnings instead of Node printing them to stderr", async () => {
    const { lines, logger } = capture();
    undo = routeStrayOutput(logger);
    expect(process.listeners("warning")).toHaveLength(1);
    process.emitWarning("Possible EventEmitter memory leak detected", { code: "TEST_WARNING" });
    process.emitWarning("Possible EventEmitter memory leak detected", { code: "TEST_WARNING" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      level: 40,
      source: "node",
      msg: "Node warning: Possible EventEmitter memory leak detected",
    });
  });
});
