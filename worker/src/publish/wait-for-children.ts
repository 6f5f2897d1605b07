import type { Job, Queue, QueueEvents } from "bullmq";

/** How often the children's states are read, besides the events (which a reconnect can miss). */
const POLL_MS = 1_000;

/** A fan-out's child job vanished from Redis (it lost its data): the publish fails now, not in 10 minutes. */
export class ChildJobsVanishedError extends Error {
  override readonly name = "ChildJobsVanishedError";
}

/**
 * Waits for every child job of a fan-out and returns their results in order. One listener per
 * event on the shared QueueEvents, whatever the number of children (`job.waitUntilFinished` adds
 * one per child, and Node warns past 10), plus a poll of the states: a child Redis no longer knows
 * (restarted empty) fails the wait within a second or two instead of at its time limit. A failed
 * child (its attempts spent) fails the wait with its reason.
 */
export async function waitForChildren<T>(
  queue: Queue,
  events: QueueEvents,
  jobs: readonly Job[],
  options: {
    timeoutMs?: number;
    /** Applied to each result as it arrives (it may shrink it: the others are still to come). */
    keep?: (result: T) => T;
    /** Aborted at shutdown: the wait fails at once with the signal's reason. */
    signal?: AbortSignal;
    /**
     * Asked every poll: an error it answers fails the wait (the content API asked the children to
     * wait longer than a job may hold the publish lock).
     */
    check?: () => Promise<Error | undefined>;
  } = {},
): Promise<T[]> {
  const { timeoutMs = 10 * 60_000, keep = (result: T) => result, signal, check: stopWhen } = options;
  signal?.throwIfAborted();
  const results = new Map<string, T>();
  const ids = jobs.map((job) => job.id as string);
  return new Promise<T[]>((resolve, reject) => {
    let settled = false;
    let checking = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      clearTimeout(limit);
      signal?.removeEventListener("abort", onAbort);
      events.off("completed", onEvent);
      events.off("failed", onEvent);
      if (error) reject(error);
      else resolve(ids.map((id) => results.get(id) as T));
    };
    /**
     * Reads one child's state: true when it is done (its result kept), false while it is still to
     * run or when it ended the wait (failed, vanished).
     */
    const settle = async (id: string): Promise<boolean> => {
      const state = await queue.getJobState(id);
      if (state === "completed") {
        const job = await queue.getJob(id);
        if (!job) {
          finish(new ChildJobsVanishedError(`child job ${id} vanished from Redis`));
          return false;
        }
        // Not the Redis error the catch below waits out: a result `keep` cannot take fails the wait.
        let kept: T;
        try {
          kept = keep(job.returnvalue as T);
        } catch (error) {
          finish(error instanceof Error ? error : new Error(String(error)));
          return false;
        }
        results.set(id, kept);
        return true;
      }
      if (state === "failed") {
        const job = await queue.getJob(id);
        finish(new Error(`child job ${id} failed: ${job?.failedReason ?? "unknown reason"}`));
      } else if (state === "unknown") {
        finish(
          new ChildJobsVanishedError(
            `child job ${id} vanished from Redis (did it lose its data?): failing the publish now`,
          ),
        );
      }
      return false;
    };
    // Children an event said are done, read one by one; and a sweep, each poll, of the children in
    // queue order up to the first still to run. Reading every child's state on every event would cost
    // thousands of Lua calls per fan-out on the main thread. The sweep still finds, within a poll,
    // children that vanished (Redis restarted empty) and the events a reconnect missed.
    const arrived = new Set<string>();
    let sweepDue = true;
    const check = async () => {
      if (settled || checking) return;
      checking = true;
      try {
        while (!settled && (arrived.size > 0 || sweepDue)) {
          const next = arrived.values().next();
          if (!next.done) {
            arrived.delete(next.value);
            if (!results.has(next.value)) await settle(next.value);
            continue;
          }
          sweepDue = false;
          for (const id of ids) {
            if (results.has(id)) continue;
            if (!(await settle(id))) break;
          }
        }
        if (results.size === ids.length) finish();
      } catch (error) {
        // Redis unreachable for a moment: the next poll sweeps again; the time limit still holds.
        void error;
      } finally {
        checking = false;
      }
    };
    const children = new Set(ids);
    const onEvent = ({ jobId }: { jobId: string }) => {
      if (!children.has(jobId)) return;
      arrived.add(jobId);
      void check();
    };
    events.on("completed", onEvent);
    events.on("failed", onEvent);
    const poll = setInterval(() => {
      sweepDue = true;
      void check();
      stopWhen?.().then(
        (error) => error && finish(error),
        () => undefined, // Redis away for a moment: asked again next poll
      );
    }, POLL_MS);
    const onAbort = () => finish(signal?.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal?.addEventListener("abort", onAbort, { once: true });
    const limit = setTimeout(
      () => finish(new Error(`child jobs not finished after ${timeoutMs} ms`)),
      timeoutMs,
    );
    void check();
  });
}
