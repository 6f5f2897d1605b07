import type { Job, Queue, QueueEvents } from "bullmq";

/** How often the children's states are read, besides the events (which a reconnect can miss). */
const POLL_MS = 1_000;

/** A fan-out's child job vanished from Redis (it lost its data): the publish fails now, not in 10 minutes. */
export class ChildJobsVanishedError extends Error {
  override readonly name = "ChildJobsVanishedError";
}

/**
 * Waits for every child job of a fan-out and returns their results in order. One listener per
 * event on the shared QueueEvents, whatever the number of children (a listener per child, as
 * `job.waitUntilFinished` adds, printed MaxListenersExceededWarning past 10), plus a poll of the
 * states: a child Redis no longer knows (restarted empty) fails the wait within a second or two
 * instead of at its time limit. A failed child (its attempts spent) fails the wait with its reason.
 */
export async function waitForChildren<T>(
  queue: Queue,
  events: QueueEvents,
  jobs: readonly Job[],
  options: {
    timeoutMs?: number;
    /** Applied to each result as it arrives (it may shrink it: the others are still to come). */
    keep?: (result: T) => T;
  } = {},
): Promise<T[]> {
  const { timeoutMs = 10 * 60_000, keep = (result: T) => result } = options;
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
      events.off("completed", onEvent);
      events.off("failed", onEvent);
      if (error) reject(error);
      else resolve(ids.map((id) => results.get(id) as T));
    };
    const check = async () => {
      if (settled || checking) return;
      checking = true;
      try {
        for (const id of ids) {
          if (results.has(id)) continue;
          const state = await queue.getJobState(id);
          if (state === "completed") {
            const job = await queue.getJob(id);
            if (!job) return finish(new ChildJobsVanishedError(`child job ${id} vanished from Redis`));
            // Not the Redis error the catch below waits out: a result `keep` cannot take fails the wait.
            let kept: T;
            try {
              kept = keep(job.returnvalue as T);
            } catch (error) {
              return finish(error instanceof Error ? error : new Error(String(error)));
            }
            results.set(id, kept);
          } else if (state === "failed") {
            const job = await queue.getJob(id);
            return finish(new Error(`child job ${id} failed: ${job?.failedReason ?? "unknown reason"}`));
          } else if (state === "unknown") {
            return finish(
              new ChildJobsVanishedError(
                `child job ${id} vanished from Redis (did it lose its data?): failing the publish now`,
              ),
            );
          }
        }
        if (results.size === ids.length) finish();
      } catch (error) {
        // Redis unreachable for a moment: the next poll tries again; the time limit still holds.
        void error;
      } finally {
        checking = false;
      }
    };
    const onEvent = ({ jobId }: { jobId: string }) => {
      if (ids.includes(jobId)) void check();
    };
    events.on("completed", onEvent);
    events.on("failed", onEvent);
    const poll = setInterval(() => void check(), POLL_MS);
    const limit = setTimeout(
      () => finish(new Error(`child jobs not finished after ${timeoutMs} ms`)),
      timeoutMs,
    );
    void check();
  });
}
