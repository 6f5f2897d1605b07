import { format } from "node:util";
import type { Logger } from "../logger.ts";
import { WarnLimiter } from "../warn-limiter.ts";

/**
 * A long-running process writes JSON lines only (pino), so a log shipper can parse every line. Some
 * libraries print on their own: ioredis' `[ioredis] Unhandled error event: …` stack traces, BullMQ's
 * `console.error(err)` when an emitter has no error listener and its console warnings, Node's
 * process warnings (written to stderr by Node's default listener). While Redis is away they print
 * at every reconnect attempt, hundreds of raw lines a minute. From here on, each goes to `logger`
 * as a warning, the first of each kind per minute with the count left out (WarnLimiter); the
 * process's own output is pino's, never the console. Returns the undo (tests).
 */
export function routeStrayOutput(logger: Logger, limiter = new WarnLimiter()): () => void {
  const log = logger.child({ source: "console" });
  const saved = { ...console };
  const route =
    (stream: "stdout" | "stderr") =>
    (...args: unknown[]) => {
      const text = format(...args);
      const limit = limiter.take(`console:${kindOf(text)}`);
      if (limit) log.warn({ stream, suppressed: limit.suppressed }, text.slice(0, 4000));
    };
  console.error = route("stderr");
  console.warn = route("stderr");
  console.trace = route("stderr");
  console.log = route("stdout");
  console.info = route("stdout");
  console.debug = route("stdout");

  // Node's own listener prints to stderr: replaced by one that logs.
  const defaults = process.listeners("warning");
  for (const listener of defaults) process.off("warning", listener);
  const onWarning = (warning: Error & { code?: string }) => {
    const limit = limiter.take(`warning:${warning.name}:${warning.code ?? kindOf(warning.message)}`);
    if (limit)
      logger.warn(
        { err: warning, source: "node", suppressed: limit.suppressed },
        `Node warning: ${warning.message}`,
      );
  };
  process.on("warning", onWarning);

  return () => {
    Object.assign(console, saved);
    process.off("warning", onWarning);
    for (const listener of defaults) process.on("warning", listener);
  };
}

/**
 * What makes two lines "the same kind": the first line without its numbers (ports, addresses,
 * counts), so each reconnect attempt's `connect ECONNREFUSED 127.0.0.1:6379` is one kind.
 */
function kindOf(text: string): string {
  return (text.split("\n", 1)[0] as string).replace(/\d+/g, "#").slice(0, 200);
}
