import type { Job, Queue, QueueEvents } from "bullmq";

/** How often the children's states are read, besides the events (which a reconnect can miss). */
const POLL_MS = 1_000;

/** A fan-out's child job vanished from Redis (it lost its data): the publish fails now, not in 10 minutes. */
export class ChildJobsVanishedError extends Error {
  override readonly name = "ChildJobsVanishedError";
}

export interface WaitOptions<T> {
  /**
   * How long the wait goes on while no child finishes (default 10 minutes): a stall, not the whole
   * fan-out's time, which grows with the site (100,000 routes take longer than that on 2 cores).
   */
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
  options: WaitOptions<T> = {},
): Promise<T[]> {
  options.signal?.throwIfAborted();
  return new Promise<T[]>((resolve, reject) => {
    new ChildrenWait<T>(queue, events, jobs, options, { resolve, reject }).start();
  });
}

/**
 * One wait: children an event said are done are read one by one; each poll also sweeps the children
 * in queue order up to the first still to run. Reading every child's state on every event would cost
 * thousands of Lua calls per fan-out on the main thread; the sweep still finds, within a poll,
 * children that vanished (Redis restarted empty) and the events a reconnect missed.
 */
class ChildrenWait<T> {
  readonly #ids: string[];
  readonly #children: Set<string>;
  readonly #results = new Map<string, T>();
  readonly #arrived = new Set<string>();
  #sweepDue = true;
  #checking = false;
  #settled = false;
  #poll?: NodeJS.Timeout;
  #limit?: NodeJS.Timeout;
  readonly #onEvent = ({ jobId }: { jobId: string }) => {
    if (!this.#children.has(jobId)) return;
    this.#arrived.add(jobId);
    void this.#check();
  };
  readonly #onAbort = () => {
    const reason = this.options.signal?.reason;
    this.#finish(reason instanceof Error ? reason : new Error("aborted"));
  };

  constructor(
    private readonly queue: Queue,
    private readonly events: QueueEvents,
    jobs: readonly Job[],
    private readonly options: WaitOptions<T>,
    private readonly answer: { resolve: (results: T[]) => void; reject: (error: Error) => void },
  ) {
    this.#ids = jobs.map((job) => job.id as string);
    this.#children = new Set(this.#ids);
  }

  start(): void {
    const { signal } = this.options;
    this.events.on("completed", this.#onEvent);
    this.events.on("failed", this.#onEvent);
    this.#poll = setInterval(() => this.#pollOnce(), POLL_MS);
    signal?.addEventListener("abort", this.#onAbort, { once: true });
    this.#armLimit();
    void this.#check();
  }

  /** (Re)starts the time limit: from the start, then from each child's result. */
  #armLimit(): void {
    const { timeoutMs = 10 * 60_000 } = this.options;
    clearTimeout(this.#limit);
    this.#limit = setTimeout(
      () =>
        this.#finish(
          new Error(
            `child jobs not finished after ${timeoutMs} ms without progress (${this.#results.size} of ${this.#ids.length} done)`,
          ),
        ),
      timeoutMs,
    );
  }

  #pollOnce(): void {
    this.#sweepDue = true;
    void this.#check();
    this.options.check?.().then(
      (error) => error && this.#finish(error),
      () => undefined, // Redis away for a moment: asked again next poll
    );
  }

  #finish(error?: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    clearInterval(this.#poll);
    clearTimeout(this.#limit);
    this.options.signal?.removeEventListener("abort", this.#onAbort);
    this.events.off("completed", this.#onEvent);
    this.events.off("failed", this.#onEvent);
    if (error) this.answer.reject(error);
    else this.answer.resolve(this.#ids.map((id) => this.#results.get(id) as T));
  }

  /** Reads what arrived, then (when due) sweeps; one reader at a time. */
  async #check(): Promise<void> {
    if (this.#settled || this.#checking) return;
    this.#checking = true;
    try {
      while (!this.#settled && (this.#arrived.size > 0 || this.#sweepDue)) await this.#next();
      if (this.#results.size === this.#ids.length) this.#finish();
    } catch {
      // Redis unreachable for a moment: the next poll sweeps again; the time limit still holds.
    } finally {
      this.#checking = false;
    }
  }

  async #next(): Promise<void> {
    const arrived = this.#arrived.values().next();
    if (!arrived.done) {
      this.#arrived.delete(arrived.value);
      if (!this.#results.has(arrived.value)) await this.#settle(arrived.value);
      return;
    }
    this.#sweepDue = false;
    for (const id of this.#ids) {
      if (this.#results.has(id)) continue;
      if (!(await this.#settle(id))) break;
    }
  }

  /**
   * Reads one child's state: true when it is done (its result kept), false while it is still to
   * run or when it ended the wait (failed, vanished).
   */
  async #settle(id: string): Promise<boolean> {
    const state = await this.queue.getJobState(id);
    if (state === "completed") return this.#keep(id, await this.queue.getJob(id));
    if (state === "failed") {
      const job = await this.queue.getJob(id);
      this.#finish(new Error(`child job ${id} failed: ${job?.failedReason ?? "unknown reason"}`));
    } else if (state === "unknown") {
      this.#finish(
        new ChildJobsVanishedError(
          `child job ${id} vanished from Redis (did it lose its data?): failing the publish now`,
        ),
      );
    }
    return false;
  }

  #keep(id: string, job: Job | undefined): boolean {
    if (!job) {
      this.#finish(new ChildJobsVanishedError(`child job ${id} vanished from Redis`));
      return false;
    }
    // Not the Redis error #check waits out: a result `keep` cannot take fails the wait.
    try {
      const keep = this.options.keep ?? ((result: T) => result);
      this.#results.set(id, keep(job.returnvalue as T));
      if (this.#results.size < this.#ids.length) this.#armLimit();
      return true;
    } catch (error) {
      this.#finish(error instanceof Error ? error : new Error(String(error)));
      return false;
    }
  }
}
