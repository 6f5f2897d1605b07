/**
 * Milliseconds per stage of a publish (publish.ts), by the stage's name: `take` (ids and index
 * meta), `masterRef` and `indexRead` (at the same time), `fetch` (the changed ids and what their
 * routes need, one request per 100 ids), `plan`, `ownRender` / `ownWrite` and `ownDone` (since the
 * start: the changed pages are live), `rest` (linking pages, listings) or `fanOut`, `redirects`,
 * `delete`, `commit` (manifest, index), `purgeOwn` (the edge purge of the changed pages, sent beside
 * `rest`) and `purge` (the rest).
 */
export type PublishTimings = Record<string, number>;

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * Where a publish's time goes, step by step, into `timings` (a tenth of a millisecond). A step ends
 * with `lap` (the time since the previous step ended); `time` measures one piece of work on its own,
 * so two that run at once each get their figure, and the next step starts when the later one ends.
 */
export class StepTimer {
  readonly timings: PublishTimings = {};
  readonly started = performance.now();
  #last = this.started;

  /** Ends the step `name`. */
  lap(name: string): void {
    const now = performance.now();
    this.timings[name] = round(now - this.#last);
    this.#last = now;
  }

  async time<T>(name: string, work: Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work;
    } finally {
      this.#last = performance.now();
      this.timings[name] = round(this.#last - start);
    }
  }

  /** Adds the time since `since` to `name` (work spread over many calls: rendering route by route). */
  add(name: string, since: number): void {
    this.timings[name] = round((this.timings[name] ?? 0) + performance.now() - since);
  }

  /** Records `name` as `ms` measured elsewhere (work that ran beside the steps: the early edge purge). */
  record(name: string, ms: number): void {
    this.timings[name] = round(ms);
  }

  /** Records `name` as the time since the start, and starts the next step. */
  sinceStart(name: string): void {
    this.#last = performance.now();
    this.timings[name] = round(this.#last - this.started);
  }

  /** Milliseconds since the start, whole. */
  elapsed(): number {
    return Math.round(performance.now() - this.started);
  }
}
